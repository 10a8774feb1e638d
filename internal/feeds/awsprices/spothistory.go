package awsprices

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/money"
)

// SpotPrice is the latest spot price of an instance type in one zone.
type SpotPrice struct {
	InstanceType string
	Zone         string
	Region       string
	Product      string // "Linux/UNIX" or "Linux/UNIX (Amazon VPC)"
	Price        decimal.Decimal
	Currency     string // CNY in the China regions, USD elsewhere
	At           time.Time
	Row          int // the row's index in the response
}

// SpotHistory is what a DescribeSpotPriceHistory response yields.
type SpotHistory struct {
	Prices    []SpotPrice // the latest Linux price per instance type and zone, sorted by type and zone
	NextToken string
	LeftOut   []feeds.LeftOut
}

// SpotHistoryOptions say how a response is read.
type SpotHistoryOptions struct {
	Origin string // rows are Origin#index
	Region string // the region asked for; "" reads it from each zone's name
	// Keep decides which instance types are kept (nil: GPUFamily).
	Keep func(instanceType string) (category, reason string)
}

type spotItem struct {
	AvailabilityZone   string `json:"AvailabilityZone" xml:"availabilityZone"`
	InstanceType       string `json:"InstanceType" xml:"instanceType"`
	ProductDescription string `json:"ProductDescription" xml:"productDescription"`
	SpotPrice          string `json:"SpotPrice" xml:"spotPrice"`
	Timestamp          string `json:"Timestamp" xml:"timestamp"`
}

// zoneRegion is the region part of a zone name: us-east-1a, us-west-2-lax-1a → us-east-1, us-west-2.
var zoneRegion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]+`) })

// The leave categories of spot history rows.
const (
	catSpotOS    = "not Linux/UNIX"
	catSpotBad   = "a row gpuscout cannot use"
	catSpotOlder = "an older price of the same zone"
)

// ParseSpotHistory reads a DescribeSpotPriceHistory response: the EC2
// Query API's XML (DescribeSpotPriceHistoryResponse) or the JSON the SDKs
// and CLI write (SpotPriceHistory, NextToken), told apart by the first
// byte. It keeps the latest Linux/UNIX price per instance type and zone;
// older prices, other systems and rows with a missing or negative price are
// left out (counted).
func ParseSpotHistory(r io.Reader, o SpotHistoryOptions) (*SpotHistory, error) {
	if o.Keep == nil {
		o.Keep = GPUFamily
	}
	br := bufio.NewReader(r)
	first, err := firstByte(br)
	if err != nil {
		return nil, fmt.Errorf("aws spot history: %w", err)
	}
	var items []spotItem
	h := &SpotHistory{}
	switch first {
	case '{':
		var raw struct {
			SpotPriceHistory []spotItem
			NextToken        *string
		}
		if err := json.NewDecoder(br).Decode(&raw); err != nil {
			return nil, fmt.Errorf("aws spot history: %w", err)
		}
		if raw.SpotPriceHistory == nil {
			return nil, fmt.Errorf("aws spot history: no SpotPriceHistory")
		}
		items = raw.SpotPriceHistory
		if raw.NextToken != nil {
			h.NextToken = *raw.NextToken
		}
	case '<':
		var raw struct {
			XMLName   xml.Name   `xml:"DescribeSpotPriceHistoryResponse"`
			Items     []spotItem `xml:"spotPriceHistorySet>item"`
			NextToken string     `xml:"nextToken"`
		}
		if err := xml.NewDecoder(br).Decode(&raw); err != nil {
			return nil, fmt.Errorf("aws spot history: %w", err)
		}
		items, h.NextToken = raw.Items, strings.TrimSpace(raw.NextToken)
	default:
		return nil, fmt.Errorf("aws spot history: the body is neither JSON nor XML (starts with %q)", first)
	}
	left := newLeaver(o.Origin)
	latest := map[[2]string]int{} // type, zone → index in h.Prices
	for i, it := range items {
		origin := fmt.Sprintf("%s#%d", o.Origin, i)
		what := it.InstanceType + " " + it.AvailabilityZone + " " + it.ProductDescription
		if cat, reason := o.Keep(it.InstanceType); cat != "" {
			left.leave(cat, origin, what, reason)
			continue
		}
		if it.ProductDescription != "Linux/UNIX" && it.ProductDescription != "Linux/UNIX (Amazon VPC)" {
			left.leave(catSpotOS, origin, what, "not Linux/UNIX (gpuscout prices Linux instances)")
			continue
		}
		p, perr := money.ParseDecimal(it.SpotPrice)
		at, terr := time.Parse(time.RFC3339, it.Timestamp)
		region := o.Region
		if region == "" {
			region = zoneRegion().FindString(it.AvailabilityZone)
		}
		switch {
		case it.InstanceType == "" || it.AvailabilityZone == "":
			left.leave(catSpotBad, origin, what, "no instance type or zone")
			continue
		case perr != nil:
			left.leave(catSpotBad, origin, what, fmt.Sprintf("spot price %q is not a number", it.SpotPrice))
			continue
		case !p.IsPositive():
			left.leave(catSpotBad, origin, what, fmt.Sprintf("spot price %s is not positive", it.SpotPrice))
			continue
		case terr != nil:
			left.leave(catSpotBad, origin, what, fmt.Sprintf("timestamp %q is not RFC 3339", it.Timestamp))
			continue
		case region == "" || !strings.HasPrefix(it.AvailabilityZone, region):
			left.leave(catSpotBad, origin, what, fmt.Sprintf("zone %q is not in region %q", it.AvailabilityZone, region))
			continue
		}
		sp := SpotPrice{InstanceType: it.InstanceType, Zone: it.AvailabilityZone, Region: region, Product: it.ProductDescription,
			Price: p, Currency: "USD", At: at, Row: i}
		if strings.HasPrefix(region, "cn-") {
			sp.Currency = "CNY"
		}
		k := [2]string{sp.InstanceType, sp.Zone}
		j, seen := latest[k]
		switch {
		case !seen:
			latest[k] = len(h.Prices)
			h.Prices = append(h.Prices, sp)
		case at.After(h.Prices[j].At):
			old := h.Prices[j]
			left.leave(catSpotOlder, fmt.Sprintf("%s#%d", o.Origin, old.Row), old.InstanceType+" "+old.Zone+" "+old.Product,
				"a later price of the same type and zone is kept")
			h.Prices[j] = sp
		default:
			left.leave(catSpotOlder, origin, what, "a later price of the same type and zone is kept")
		}
	}
	sort.Slice(h.Prices, func(i, j int) bool {
		a, b := h.Prices[i], h.Prices[j]
		if a.InstanceType != b.InstanceType {
			return a.InstanceType < b.InstanceType
		}
		return a.Zone < b.Zone
	})
	h.LeftOut = left.done()
	return h, nil
}

func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, fmt.Errorf("empty body")
		}
		switch b {
		case ' ', '\t', '\r', '\n', 0xEF, 0xBB, 0xBF: // whitespace, a UTF-8 byte-order mark
			continue
		}
		return b, br.UnreadByte()
	}
}

// Records turns the prices into per-zone offerings with a known spot price,
// dated by each price's timestamp, and an unknown on-demand price.
func (h *SpotHistory) Records(origin, source string, res *feeds.Result) {
	for _, p := range h.Prices {
		res.Offerings = append(res.Offerings, feeds.Offering{Origin: fmt.Sprintf("%s#%d", origin, p.Row), Provider: "aws",
			InstanceType: p.InstanceType, Region: p.Region, Zone: p.Zone, OnDemand: feeds.Unknown(p.Currency),
			Spot: feeds.Known(p.Price, p.Currency, source, p.At.UTC().Format("2006-01-02"))})
	}
	res.LeftOut = append(res.LeftOut, h.LeftOut...)
}
