package alibabaecs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Currencies the ECS API answers in: CNY on the China site (aliyun.com),
// USD on the international site (alibabacloud.com), whatever the region.
var currencies = map[string]bool{"CNY": true, "USD": true}

// APIError is an error body of the ECS API ({RequestId, HostId, Code,
// Message, Recommend}) with the HTTP status it came with.
type APIError struct {
	Status    int
	Code      string
	Message   string
	RequestID string
	What      string // the request: "DescribePrice ecs.gn7i-c8g1.2xlarge cn-hangzhou Hour"
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("alibaba: %s: HTTP %d %s: %s", e.What, e.Status, e.Code, e.Message)
	if e.RequestID != "" {
		s += " (RequestId " + e.RequestID + ")"
	}
	return s
}

// throttled says the API asked to slow down: it answers Throttling,
// Throttling.User, Throttling.Api, ... with HTTP 400 (not 429), so the
// retrying HTTP client does not see it.
func (e *APIError) throttled() bool {
	return e.Code == "Throttling" || strings.HasPrefix(e.Code, "Throttling.") || e.Code == "ServiceUnavailable"
}

// notSold says the instance type is not sold in the region (or at all):
// its other pricing models need not be asked.
func (e *APIError) notSold() bool {
	return strings.HasPrefix(e.Code, "InvalidInstanceType.") || e.Code == "InstanceType.Offline"
}

// fatal says the error is about the account or the credentials, so that no
// other request would fare better: the fetch stops.
func (e *APIError) fatal() bool {
	if e.Status == 401 {
		return true
	}
	for _, p := range []string{"InvalidAccessKeyId", "SignatureDoesNotMatch", "IncompleteSignature", "InvalidSecurityToken",
		"SignatureNonceUsed", "InvalidTimeStamp", "Forbidden", "Forbbiden", "InvalidAction", "NoPermission", "Abs.InvalidAccount",
		"InvalidUserType", "UnsupportedSignatureType", "MissingParameter", "InvalidApi"} {
		if e.Code == p || strings.HasPrefix(e.Code, p+".") {
			return true
		}
	}
	return false
}

// errorBody reads an error body; ok is false where b is not one.
func errorBody(b []byte) (code, message, requestID string, ok bool) {
	var e struct {
		Code      string `json:"Code"`
		Message   string `json:"Message"`
		RequestID string `json:"RequestId"`
	}
	if json.Unmarshal(b, &e) != nil || e.Code == "" {
		return "", "", "", false
	}
	return e.Code, e.Message, e.RequestID, true
}

// number is a JSON number kept exactly (prices are decimals, not floats).
type number = json.Number

// decodeStrict decodes one JSON value of b into v, numbers kept as text; data
// after the value is an error.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

// priceBody is a DescribePrice response.
type priceBody struct {
	RequestID string `json:"RequestId"`
	PriceInfo *struct {
		Price *struct {
			Currency      string  `json:"Currency"`
			OriginalPrice *number `json:"OriginalPrice"`
			DiscountPrice *number `json:"DiscountPrice"`
			TradePrice    *number `json:"TradePrice"`
			DetailInfos   struct {
				ResourcePriceModel []priceDetail `json:"ResourcePriceModel"` // older answers
				DetailInfo         []priceDetail `json:"DetailInfo"`
			} `json:"DetailInfos"`
		} `json:"Price"`
	} `json:"PriceInfo"`
}

type priceDetail struct {
	Resource   string  `json:"Resource"`
	TradePrice *number `json:"TradePrice"`
}

// quote is the price a DescribePrice answer gives for the instance.
type quote struct {
	Amount   decimal.Decimal
	Currency string
}

// parsePrice reads a DescribePrice body. A body that is not one is an
// error; a price it cannot use (missing, not positive, an unexpected
// currency) is a reason to leave the row out.
func parsePrice(b []byte) (q quote, reason string, err error) {
	var body priceBody
	if err := decodeStrict(b, &body); err != nil {
		return quote{}, "", fmt.Errorf("not a DescribePrice response: %v", err)
	}
	if body.PriceInfo == nil || body.PriceInfo.Price == nil {
		if code, msg, _, ok := errorBody(b); ok {
			return quote{}, "", fmt.Errorf("an error response: %s: %s", code, msg)
		}
		return quote{}, "", fmt.Errorf("not a DescribePrice response: no PriceInfo.Price")
	}
	p := body.PriceInfo.Price
	if !currencies[p.Currency] {
		return quote{}, fmt.Sprintf("currency %q: the API answers CNY (China site) or USD (international site)", p.Currency), nil
	}
	// The instance's own line where DetailInfos has one; else the total
	// (the instance with its default system disk, a small part of a GPU
	// instance's price).
	amount := p.TradePrice
	for _, d := range append(p.DetailInfos.DetailInfo, p.DetailInfos.ResourcePriceModel...) {
		if (d.Resource == "instanceType" || d.Resource == "instance") && d.TradePrice != nil {
			amount = d.TradePrice
			break
		}
	}
	if amount == nil {
		return quote{}, "no TradePrice", nil
	}
	v, err := money.ParseDecimal(amount.String())
	if err != nil {
		return quote{}, fmt.Sprintf("TradePrice %q is not a number", amount.String()), nil
	}
	if !v.IsPositive() {
		return quote{}, fmt.Sprintf("TradePrice %s is not a positive price", v), nil
	}
	return quote{Amount: v, Currency: p.Currency}, "", nil
}

// spotBody is a DescribeSpotPriceHistory response.
type spotBody struct {
	RequestID  string  `json:"RequestId"`
	Currency   string  `json:"Currency"`
	NextOffset *number `json:"NextOffset"`
	SpotPrices *struct {
		SpotPriceType []spotRow `json:"SpotPriceType"`
	} `json:"SpotPrices"`
}

type spotRow struct {
	InstanceType string  `json:"InstanceType"`
	ZoneID       string  `json:"ZoneId"`
	NetworkType  string  `json:"NetworkType"`
	SpotPrice    *number `json:"SpotPrice"`
	OriginPrice  *number `json:"OriginPrice"`
	Timestamp    string  `json:"Timestamp"`
}

// parseSpot reads a DescribeSpotPriceHistory body.
func parseSpot(b []byte) (*spotBody, error) {
	var body spotBody
	if err := decodeStrict(b, &body); err != nil {
		return nil, fmt.Errorf("not a DescribeSpotPriceHistory response: %v", err)
	}
	if body.SpotPrices == nil {
		if code, msg, _, ok := errorBody(b); ok {
			return nil, fmt.Errorf("an error response: %s: %s", code, msg)
		}
		return nil, fmt.Errorf("not a DescribeSpotPriceHistory response: no SpotPrices")
	}
	return &body, nil
}

// typesBody is a DescribeInstanceTypes response.
type typesBody struct {
	NextToken     string `json:"NextToken"`
	InstanceTypes *struct {
		InstanceType []struct {
			InstanceTypeID string  `json:"InstanceTypeId"`
			GPUAmount      *number `json:"GPUAmount"`
			GPUSpec        string  `json:"GPUSpec"`
		} `json:"InstanceType"`
	} `json:"InstanceTypes"`
}

// parseTypes reads a DescribeInstanceTypes body: the GPU instance types
// (GPUAmount above zero) and the next page's token.
func parseTypes(b []byte) (gpuTypes []string, next string, err error) {
	var body typesBody
	if err := decodeStrict(b, &body); err != nil {
		return nil, "", fmt.Errorf("not a DescribeInstanceTypes response: %v", err)
	}
	if body.InstanceTypes == nil {
		return nil, "", fmt.Errorf("not a DescribeInstanceTypes response: no InstanceTypes")
	}
	for _, t := range body.InstanceTypes.InstanceType {
		if t.GPUAmount == nil || t.InstanceTypeID == "" {
			continue
		}
		if n, err := t.GPUAmount.Float64(); err == nil && n > 0 {
			gpuTypes = append(gpuTypes, t.InstanceTypeID)
		}
	}
	return gpuTypes, body.NextToken, nil
}
