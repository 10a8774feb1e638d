package tencentcvm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// QuotaItem is one row of DescribeZoneInstanceConfigInfos'
// InstanceTypeQuotaSet: an instance type a zone sells under one charge type.
type QuotaItem struct {
	Zone               string
	InstanceType       string
	InstanceChargeType string
	InstanceFamily     string
	TypeName           string
	Status             string // SELL or SOLD_OUT
	Cpu                float64
	Memory             float64 // GB
	Gpu                *float64
	GpuCount           *float64 // fractional for vGPU types
	InstanceBandwidth  float64  // private network, Gbps
	Price              ItemPrice
}

// GPUs is the row's GPU count: GpuCount where given, else Gpu. known is
// false where the row gives neither.
func (q QuotaItem) GPUs() (n float64, known bool) {
	if q.GpuCount != nil && *q.GpuCount > 0 {
		return *q.GpuCount, true
	}
	if q.Gpu != nil && *q.Gpu > 0 {
		return *q.Gpu, true
	}
	return 0, q.GpuCount != nil || q.Gpu != nil
}

// gpuFamilies are the CVM GPU families (GPU Computing and Rendering types,
// and the HCC GPU cluster types), by name prefix; a row naming no GPU count
// is a GPU type when its family is one of these.
var gpuFamilies = []string{"GN", "GT", "PNV", "HCCPNV"}

// IsGPU says whether the row is a GPU instance type: a GPU count above
// zero, or no count and a GPU family.
func (q QuotaItem) IsGPU() bool {
	n, known := q.GPUs()
	if known {
		return n > 0
	}
	for _, f := range gpuFamilies {
		if strings.HasPrefix(strings.ToUpper(q.InstanceFamily), f) {
			return true
		}
	}
	return false
}

// APIError is the error object of a CVM API answer.
type APIError struct {
	Code      string
	Message   string
	RequestID string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: %s (RequestId %s)", e.Code, e.Message, e.RequestID)
}

// zoneConfig reads DescribeZoneInstanceConfigInfos answers
// ({"Response": {"InstanceTypeQuotaSet": [...]}}, or the inner object as
// tccli prints it), streaming the rows: one answer, or where several is
// set, any number one after another (one per charge type, say).
func (c *collector) zoneConfig(r io.Reader, origin, region string, several bool) error {
	dec := json.NewDecoder(r)
	n := 0
	for answers := 0; ; answers++ {
		if answers > 0 && (!several || !dec.More()) {
			break
		}
		apiErr, err := walkAnswer(dec, "InstanceTypeQuotaSet", func(dec *json.Decoder) error {
			var q QuotaItem
			if err := dec.Decode(&q); err != nil {
				return fmt.Errorf("malformed answer: InstanceTypeQuotaSet[%d]: %w", n, err)
			}
			c.quotaItem(fmt.Sprintf("%s#%d", origin, n), region, q)
			n++
			return nil
		})
		if err != nil {
			return err
		}
		if apiErr != nil {
			return fmt.Errorf("the answer is an error: %w", apiErr)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("malformed answer: more after the answer object")
	}
	return nil
}

// quotaItem turns one row into records or a left-out report.
func (c *collector) quotaItem(origin, region string, q QuotaItem) {
	what := strings.TrimSpace(q.InstanceType + " " + q.Zone + " " + q.InstanceChargeType)
	if what == "" {
		what = "row"
	}
	if q.InstanceType == "" || q.Zone == "" {
		c.res.Leave(origin, what, "no InstanceType or Zone")
		return
	}
	if !q.IsGPU() {
		c.res.Leave(origin, what, "not a GPU instance type (GPU count 0, family "+q.InstanceFamily+")")
		return
	}
	zr, ok := zoneRegion(q.Zone)
	if !ok {
		c.res.Leave(origin, what, "zone "+q.Zone+" names no region (want REGION-N)")
		return
	}
	if region != "" && zr != region {
		c.res.Leave(origin, what, "zone "+q.Zone+" is not in region "+region+", the region asked")
		return
	}
	gpus, _ := q.GPUs()
	m := feeds.Machine{GPUCount: gpus, VCPUs: q.Cpu, MemoryGiB: q.Memory, NetworkGbps: q.InstanceBandwidth, SpecSource: c.src}
	switch q.InstanceChargeType {
	case ChargePostpaid, ChargeSpot:
		v, ok, err := q.Price.Hourly()
		if err != nil {
			c.res.Leave(origin, what, err.Error())
			return
		}
		if !ok {
			c.res.Leave(origin, what, "no hourly price in the row (a zero price is not a price)")
			return
		}
		c.setPrice(origin, c.offering(origin, zr, q.Zone, q.InstanceType, m), q.InstanceChargeType, v)
	case ChargePrepaid:
		c.prepaid(origin, zr, q.Zone, q.InstanceType, what, q.Price)
	default:
		c.res.Leave(origin, what, "charge type "+q.InstanceChargeType+"; gpuscout prices POSTPAID_BY_HOUR, SPOTPAID and PREPAID")
	}
}

// prepaid keeps a PREPAID row's one-month, one-year and three-year totals
// as all-upfront subscriptions.
func (c *collector) prepaid(origin, region, zone, typ, what string, p ItemPrice) {
	kept := 0
	for _, t := range []struct {
		term  string
		years int // 0: the base period, one month
	}{{"1mo", 0}, {"1y", 1}, {"3y", 3}} {
		v, ok, err := p.Prepaid()
		if t.years > 0 {
			v, ok, err = p.PrepaidYears(t.years)
		}
		if err != nil {
			c.res.Leave(origin, what+" "+t.term, err.Error())
			continue
		}
		if ok {
			c.addCommitment(origin, region, zone, typ, t.term, v)
			kept++
		}
	}
	if kept == 0 {
		c.res.Leave(origin, what, "no prepaid price in the row (a zero price is not a price)")
	}
}

// walkAnswer reads one CVM API answer object from dec, calling each for
// every element of the array named key, and returns the answer's Error
// object if any. The object may be wrapped in "Response" (the HTTP answer)
// or not (tccli).
func walkAnswer(dec *json.Decoder, key string, each func(*json.Decoder) error) (*APIError, error) {
	var apiErr *APIError
	seen := false
	var walk func(depth int) error
	walk = func(depth int) error {
		if err := expectDelim(dec, '{'); err != nil {
			return err
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return malformed(err)
			}
			name, _ := tok.(string)
			switch {
			case name == "Response" && depth == 0:
				if err := walk(1); err != nil {
					return err
				}
			case name == "Error":
				var e struct{ Code, Message string }
				if err := dec.Decode(&e); err != nil {
					return malformed(err)
				}
				if apiErr == nil {
					apiErr = &APIError{}
				}
				apiErr.Code, apiErr.Message = e.Code, e.Message
			case name == "RequestId":
				var id string
				if err := dec.Decode(&id); err != nil {
					return malformed(err)
				}
				if apiErr == nil {
					apiErr = &APIError{}
				}
				apiErr.RequestID = id
			case name == key:
				seen = true
				tok, err := dec.Token()
				if err != nil {
					return malformed(err)
				}
				if tok == nil {
					continue // null: the API's "no valid value", here no row
				}
				if d, ok := tok.(json.Delim); !ok || d != '[' {
					return fmt.Errorf("malformed answer: %s is %v, not an array", key, tok)
				}
				for dec.More() {
					if err := each(dec); err != nil {
						return err
					}
				}
				if err := expectDelim(dec, ']'); err != nil {
					return err
				}
			default:
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return malformed(err)
				}
			}
		}
		return expectDelim(dec, '}')
	}
	if err := walk(0); err != nil {
		return nil, err
	}
	if apiErr != nil && apiErr.Code != "" {
		return apiErr, nil
	}
	if !seen {
		return nil, fmt.Errorf("malformed answer: no %s and no Error in it", key)
	}
	return nil, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return malformed(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("malformed answer: %v where %q was expected", tok, string(want))
	}
	return nil
}

func malformed(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("malformed answer: %w", err)
}
