package tencentcvm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// InquiryRequest is the part of an InquiryPriceRunInstances request that
// says what was priced. Region is the request's X-TC-Region, where the file
// records it.
type InquiryRequest struct {
	Region    string
	Placement struct {
		Zone string
	}
	InstanceType          string
	InstanceChargeType    string // default POSTPAID_BY_HOUR, as the API's
	InstanceChargePrepaid *struct {
		Period int // months
	}
}

// InquiryAnswer is an InquiryPriceRunInstances answer.
type InquiryAnswer struct {
	Price struct {
		InstancePrice  ItemPrice
		BandwidthPrice ItemPrice
	}
	Error     *struct{ Code, Message string }
	RequestID string `json:"RequestId"`
}

// Inquiry is one request with its answer, the unit of the tencent-inquiry
// format: the answer alone does not say which type, zone and charge type
// it prices.
type Inquiry struct {
	Request  *InquiryRequest
	Response json.RawMessage
}

// prepaidTerms are the prepaid periods (months) gpuscout keeps, as terms.
var prepaidTerms = map[int]string{1: "1mo", 12: "1y", 36: "3y"}

// inquiries reads one Inquiry, an array of them, or a stream of them.
func (c *collector) inquiries(r io.Reader, origin, region string) error {
	dec := json.NewDecoder(r)
	n := 0
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			return malformed(err)
		}
		var list []json.RawMessage
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			if err := json.Unmarshal(t, &list); err != nil {
				return malformed(err)
			}
		} else {
			list = []json.RawMessage{raw}
		}
		for _, one := range list {
			if err := c.inquiry(fmt.Sprintf("%s#%d", origin, n), region, one); err != nil {
				return fmt.Errorf("inquiry %d: %w", n, err)
			}
			n++
		}
	}
	if n == 0 {
		return errors.New("no inquiry in the file")
	}
	return nil
}

// inquiry turns one request and answer into a record or a left-out report.
func (c *collector) inquiry(origin, region string, raw json.RawMessage) error {
	var q Inquiry
	if err := json.Unmarshal(raw, &q); err != nil {
		return malformed(err)
	}
	if q.Request == nil || len(q.Response) == 0 {
		return errors.New(`want {"Request": {...}, "Response": {...}}: an answer alone does not say which instance type, zone and charge type it prices`)
	}
	var wrapped struct{ Response *InquiryAnswer }
	if err := json.Unmarshal(q.Response, &wrapped); err != nil {
		return malformed(err)
	}
	ans := wrapped.Response
	if ans == nil { // tccli prints the inner object
		ans = &InquiryAnswer{}
		if err := json.Unmarshal(q.Response, ans); err != nil {
			return malformed(err)
		}
	}
	req := q.Request
	charge := req.InstanceChargeType
	if charge == "" {
		charge = ChargePostpaid
	}
	what := strings.TrimSpace(req.InstanceType + " " + req.Placement.Zone + " " + charge)
	if ans.Error != nil && ans.Error.Code != "" {
		c.res.Leave(origin, what, "the answer is an error: "+ans.Error.Code+": "+ans.Error.Message)
		return nil
	}
	if req.InstanceType == "" || req.Placement.Zone == "" {
		c.res.Leave(origin, what, "the request names no InstanceType or Placement.Zone (the API then prices its defaults)")
		return nil
	}
	if !gpuFamily(req.InstanceType) {
		c.res.Leave(origin, what, "not a GPU instance type (family "+family(req.InstanceType)+")")
		return nil
	}
	zr, ok := zoneRegion(req.Placement.Zone)
	if !ok {
		c.res.Leave(origin, what, "zone "+req.Placement.Zone+" names no region (want REGION-N)")
		return nil
	}
	for _, r := range []string{req.Region, region} {
		if r != "" && r != zr {
			c.res.Leave(origin, what, "zone "+req.Placement.Zone+" is not in region "+r+", the region asked")
			return nil
		}
	}
	p := ans.Price.InstancePrice
	switch charge {
	case ChargePostpaid, ChargeSpot:
		v, ok, err := p.Hourly()
		if err != nil {
			c.res.Leave(origin, what, err.Error())
			return nil
		}
		if !ok {
			c.res.Leave(origin, what, "no hourly price in the answer (a zero price is not a price)")
			return nil
		}
		c.setPrice(origin, c.offering(origin, zr, req.Placement.Zone, req.InstanceType, feeds.Machine{}), charge, v)
	case ChargePrepaid:
		period := 1 // the API's default
		if req.InstanceChargePrepaid != nil {
			period = req.InstanceChargePrepaid.Period
		}
		term, ok := prepaidTerms[period]
		if !ok {
			c.res.Leave(origin, what, "prepaid period "+strconv.Itoa(period)+" months; gpuscout keeps 1, 12 and 36")
			return nil
		}
		v, ok, err := p.Prepaid()
		if err != nil {
			c.res.Leave(origin, what, err.Error())
			return nil
		}
		if !ok {
			c.res.Leave(origin, what, "no prepaid price in the answer (a zero price is not a price)")
			return nil
		}
		c.addCommitment(origin, zr, req.Placement.Zone, req.InstanceType, term, v)
	default:
		c.res.Leave(origin, what, "charge type "+charge+"; gpuscout prices POSTPAID_BY_HOUR, SPOTPAID and PREPAID")
	}
	return nil
}

// family is an instance type's family: "GN7" of "GN7.2XLARGE32".
func family(typ string) string {
	f, _, _ := strings.Cut(typ, ".")
	return f
}

// gpuFamily says whether the type's family is a GPU family.
func gpuFamily(typ string) bool {
	return QuotaItem{InstanceFamily: family(typ)}.IsGPU()
}
