package alibabaecs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Offline formats.
const (
	FormatDescribePrice = "alibaba-describeprice"
	FormatSpotHistory   = "alibaba-spothistory"
)

// Importer is the Alibaba Cloud ECS price importer (feeds.Importer).
type Importer struct {
	// InstanceTypes are the instance types Fetch prices; empty: every GPU
	// instance type DescribeInstanceTypes lists (GPUAmount above zero).
	InstanceTypes []string
	// SignatureV2 signs requests with the older RPC signature (HMAC-SHA1)
	// instead of V3 (ACS3-HMAC-SHA256).
	SignatureV2 bool
	// Throttle waits out requests answered Throttling.* (HTTP 400, which
	// the caller's client does not retry): Tries, Backoff, Sleep.
	feeds.Throttle
	// Nonce returns a request's SignatureNonce (nil: 16 random bytes in hex).
	Nonce func() string
}

// New returns the importer with its defaults.
func New() *Importer { return &Importer{} }

var (
	_ feeds.Importer         = (*Importer)(nil)
	_ feeds.CredentialHelper = (*Importer)(nil)
)

// Provider implements feeds.Importer.
func (*Importer) Provider() string { return provider }

// CredentialHelp implements feeds.CredentialHelper.
func (*Importer) CredentialHelp() string { return credentialHelp }

// Formats implements feeds.Importer.
func (*Importer) Formats() []feeds.Format {
	return []feeds.Format{
		{Name: FormatDescribePrice, Title: `ECS DescribePrice answers, each with its request: [{"Request": {"RegionId", "InstanceType", "PriceUnit", "Period", "SpotStrategy", "ZoneId"}, "Response": <the JSON answer, e.g. of ` + "`aliyun ecs DescribePrice`" + `>}]; needs --as-of, the answers carry no date`},
		{Name: FormatSpotHistory, Title: "ECS DescribeSpotPriceHistory answers (one JSON answer, or a list of its pages), e.g. of `aliyun ecs DescribeSpotPriceHistory --NetworkType vpc`; each price dated by its own Timestamp"},
	}
}

// exchange is one DescribePrice request with its answer.
type exchange struct {
	Request  *Request        `json:"Request"`
	Response json.RawMessage `json:"Response"`
}

// Parse implements feeds.Importer. Prices are cited o.Source as of o.AsOf;
// where it is empty, a spot row is dated by its own Timestamp, and
// DescribePrice answers, which carry no date, are an error wrapping
// feeds.ErrNoDate.
func (*Importer) Parse(format string, r io.Reader, o feeds.ParseOptions) (*feeds.Result, error) {
	origin := o.Origin
	if origin == "" {
		origin = format
	}
	c := newCollector(o.Source, o.AsOf)
	switch format {
	case FormatDescribePrice:
		if o.AsOf == "" {
			return nil, fmt.Errorf("alibaba: %s: %w (DescribePrice answers have none)", origin, feeds.ErrNoDate)
		}
		err := eachValue(r, func(i int, raw json.RawMessage) error {
			var ex exchange
			if err := decodeStrict(raw, &ex); err != nil {
				return fmt.Errorf("entry %d: %v", i, err)
			}
			if ex.Request == nil {
				var bare priceBody
				if decodeStrict(raw, &bare) == nil && bare.PriceInfo != nil {
					return fmt.Errorf(`a DescribePrice answer alone does not say what it prices: give [{"Request": {"RegionId": ..., "InstanceType": ..., "PriceUnit": ..., "Period": ...}, "Response": <the answer>}]`)
				}
				return fmt.Errorf("entry %d has no Request", i)
			}
			req := *ex.Request
			if req.RegionID == "" {
				req.RegionID = o.Region
			}
			eo := fmt.Sprintf("%s#%d", origin, i)
			if len(ex.Response) == 0 {
				c.res.Leave(eo, req.String(), "no Response")
				return nil
			}
			return c.addPrice(eo, req, ex.Response)
		})
		if err != nil {
			return nil, fmt.Errorf("alibaba: %s: %w", origin, err)
		}
	case FormatSpotHistory:
		err := eachValue(r, func(i int, raw json.RawMessage) error {
			b, err := parseSpot(raw)
			if err != nil {
				return fmt.Errorf("page %d: %w", i, err)
			}
			po := origin
			if i > 0 {
				po = fmt.Sprintf("%s[%d]", origin, i)
			}
			c.addSpot(po, b, o.Region)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("alibaba: %s: %w", origin, err)
		}
	default:
		return nil, fmt.Errorf("alibaba: format %q: want %s or %s", format, FormatDescribePrice, FormatSpotHistory)
	}
	return c.result(), nil
}

// eachValue calls fn with each element of a JSON array, or with the one
// JSON object r holds, streaming the array.
func eachValue(r io.Reader, fn func(int, json.RawMessage) error) error {
	br := bufio.NewReader(r)
	var first byte
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return fmt.Errorf("empty input: want a JSON object or array")
		}
		if err != nil {
			return err
		}
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			first = b
			_ = br.UnreadByte()
			break
		}
	}
	dec := json.NewDecoder(br)
	if first != '[' {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("not JSON: %v", err)
		}
		if dec.More() {
			return fmt.Errorf("data after the JSON value")
		}
		return fn(0, raw)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("entry %d: not JSON: %v", i, err)
		}
		if err := fn(i, raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the JSON array")
	}
	return nil
}
