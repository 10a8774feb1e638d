package alibabaecs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/money"
)

// provider is the catalog's name for Alibaba Cloud.
const provider = "alibaba"

// Request is the part of a DescribePrice request its price depends on; an
// offline alibaba-describeprice file gives it with each response, since the
// response does not say what it prices.
type Request struct {
	RegionID     string `json:"RegionId"`
	InstanceType string `json:"InstanceType"`
	PriceUnit    string `json:"PriceUnit,omitempty"` // Hour (the API's default), Month, Year
	Period       int    `json:"Period,omitempty"`    // billing periods; the API's default 1
	SpotStrategy string `json:"SpotStrategy,omitempty"`
	ZoneID       string `json:"ZoneId,omitempty"`
}

// Pricing models a DescribePrice request asks for.
const (
	kindOnDemand = "on-demand"
	kindSpot     = "spot"
	kindSub      = "subscription"
)

// kind says what the request prices: pay-as-you-go per hour, spot per
// hour, or a subscription term ("1mo", "1y") paid upfront; reason says why
// it is none of them.
func (r Request) kind() (kind, term, reason string) {
	period := r.Period
	if period == 0 {
		period = 1
	}
	switch r.PriceUnit {
	case "", "Hour":
		if period != 1 {
			return "", "", fmt.Sprintf("PriceUnit Hour with Period %d (the API allows 1)", r.Period)
		}
		switch r.SpotStrategy {
		case "", "NoSpot":
			return kindOnDemand, "", ""
		case "SpotAsPriceGo", "SpotWithPriceLimit":
			return kindSpot, "", ""
		}
		return "", "", fmt.Sprintf("SpotStrategy %q (NoSpot, SpotAsPriceGo or SpotWithPriceLimit)", r.SpotStrategy)
	case "Month":
		if period < 1 || period > 9 {
			return "", "", fmt.Sprintf("PriceUnit Month with Period %d (1 to 9)", r.Period)
		}
		return kindSub, strconv.Itoa(period) + "mo", ""
	case "Year":
		if period < 1 || period > 5 {
			return "", "", fmt.Sprintf("PriceUnit Year with Period %d (1 to 5)", r.Period)
		}
		return kindSub, strconv.Itoa(period) + "y", ""
	case "Week":
		return "", "", "PriceUnit Week: weekly subscriptions are not a catalog term"
	}
	return "", "", fmt.Sprintf("PriceUnit %q (Hour, Month or Year)", r.PriceUnit)
}

// String names the request in origins and errors.
func (r Request) String() string {
	s := r.InstanceType + " " + r.RegionID
	if r.PriceUnit != "" {
		s += " " + r.PriceUnit
	}
	if r.Period > 1 {
		s += "×" + strconv.Itoa(r.Period)
	}
	if r.SpotStrategy != "" && r.SpotStrategy != "NoSpot" {
		s += " " + r.SpotStrategy
	}
	if r.ZoneID != "" {
		s += " " + r.ZoneID
	}
	return s
}

// cellKey is an instance type in a region.
type cellKey struct{ typ, region string }

// zonePrice is the latest spot price of a zone.
type zonePrice struct {
	origin string
	spot   feeds.Price
	hint   feeds.Price // the pay-as-you-go price the spot answer gives alongside (OriginPrice)
	at     time.Time
}

type cell struct {
	onDemand       feeds.Price
	onDemandOrigin string
	zones          map[string]*zonePrice
	subs           map[string]string // term -> origin of its price
}

// collector gathers the prices of many answers into one feeds.Result:
// per-zone offerings (spot, with the region's pay-as-you-go price) before
// the region-wide one, which catalog/build then cross-checks against them,
// and subscription commitments.
type collector struct {
	source, asOf string
	res          feeds.Result
	cells        map[cellKey]*cell
}

func newCollector(source, asOf string) *collector {
	return &collector{source: source, asOf: asOf, cells: map[cellKey]*cell{}}
}

func (c *collector) cell(typ, region string) *cell {
	k := cellKey{typ, region}
	if c.cells[k] == nil {
		c.cells[k] = &cell{zones: map[string]*zonePrice{}, subs: map[string]string{}}
	}
	return c.cells[k]
}

// addPrice adds a DescribePrice answer to the request. An error answer or
// an unusable price is left out with the reason; a body that is no
// DescribePrice answer is an error.
func (c *collector) addPrice(origin string, r Request, body []byte) error {
	what := r.String()
	if r.InstanceType == "" || r.RegionID == "" {
		c.res.Leave(origin, what, "the request names no InstanceType or RegionId")
		return nil
	}
	kind, term, reason := r.kind()
	if reason != "" {
		c.res.Leave(origin, what, reason)
		return nil
	}
	if code, msg, _, ok := errorBody(body); ok {
		c.res.Leave(origin, what, "the API answered "+code+": "+msg)
		return nil
	}
	q, reason, err := parsePrice(body)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if reason != "" {
		c.res.Leave(origin, what, reason)
		return nil
	}
	cl := c.cell(r.InstanceType, r.RegionID)
	p := feeds.Known(q.Amount, q.Currency, c.source, c.asOf)
	switch kind {
	case kindOnDemand:
		if cl.onDemand.Known {
			c.res.Leave(origin, what, "a second pay-as-you-go price of the type in the region (the first: "+cl.onDemandOrigin+")")
			return nil
		}
		cl.onDemand, cl.onDemandOrigin = p, origin
	case kindSpot:
		if z := cl.zones[r.ZoneID]; z != nil {
			c.res.Leave(origin, what, "a second spot price of the zone (the first: "+z.origin+")")
			return nil
		}
		cl.zones[r.ZoneID] = &zonePrice{origin: origin, spot: p}
	case kindSub:
		if first, dup := cl.subs[term]; dup {
			c.res.Leave(origin, what, "a second "+term+" subscription price (the first: "+first+")")
			return nil
		}
		cl.subs[term] = origin
		c.res.Commitments = append(c.res.Commitments, feeds.Commitment{Origin: origin, Provider: provider, InstanceType: r.InstanceType,
			Region: r.RegionID, Model: "subscription", Term: term, Payment: "all-upfront", Upfront: q.Amount, Currency: q.Currency,
			Source: c.source, AsOf: c.asOf})
	}
	return nil
}

// addSpot adds the rows of a DescribeSpotPriceHistory answer: the latest
// price of each zone is kept, older ones are left out as superseded.
// region, where given, is the region asked; otherwise each row's region is
// its zone's.
func (c *collector) addSpot(origin string, b *spotBody, region string) {
	rows := b.SpotPrices.SpotPriceType
	for i, row := range rows {
		o := fmt.Sprintf("%s#SpotPriceType[%d]", origin, i)
		what := strings.TrimSpace(row.InstanceType + " " + row.ZoneID + " " + row.Timestamp)
		if what == "" {
			what = "spot price row"
		}
		if !currencies[b.Currency] {
			c.res.Leave(o, what, fmt.Sprintf("currency %q: the API answers CNY (China site) or USD (international site)", b.Currency))
			continue
		}
		if row.InstanceType == "" || row.ZoneID == "" || row.Timestamp == "" || row.SpotPrice == nil {
			c.res.Leave(o, what, "a row without InstanceType, ZoneId, Timestamp or SpotPrice")
			continue
		}
		at, err := time.Parse(time.RFC3339, row.Timestamp)
		if err != nil {
			c.res.Leave(o, what, fmt.Sprintf("Timestamp %q is not yyyy-MM-ddTHH:mm:ssZ", row.Timestamp))
			continue
		}
		spot, err := money.ParseDecimal(row.SpotPrice.String())
		if err != nil || !spot.IsPositive() {
			c.res.Leave(o, what, fmt.Sprintf("SpotPrice %q is not a positive price", row.SpotPrice.String()))
			continue
		}
		r := region
		if r == "" || !strings.HasPrefix(row.ZoneID, r) {
			r = regionOfZone(row.ZoneID)
		}
		if r == "" {
			c.res.Leave(o, what, fmt.Sprintf("zone %q names no region", row.ZoneID))
			continue
		}
		asOf := c.asOf
		if asOf == "" {
			asOf = at.UTC().Format("2006-01-02")
		}
		z := &zonePrice{origin: o, spot: feeds.Known(spot, b.Currency, c.source, asOf), at: at}
		if row.OriginPrice != nil {
			if v, err := money.ParseDecimal(row.OriginPrice.String()); err == nil && v.IsPositive() {
				z.hint = feeds.Known(v, b.Currency, c.source, asOf)
			}
		}
		cl := c.cell(row.InstanceType, r)
		prev := cl.zones[row.ZoneID]
		switch {
		case prev == nil:
			cl.zones[row.ZoneID] = z
		case prev.at.IsZero():
			c.res.Leave(o, what, "the zone's spot price is given by "+prev.origin)
		case at.After(prev.at):
			c.res.Leave(prev.origin, row.InstanceType+" "+row.ZoneID+" "+prev.at.Format(time.RFC3339), "superseded by the zone's later price at "+row.Timestamp)
			cl.zones[row.ZoneID] = z
		default:
			c.res.Leave(o, what, "superseded by the zone's later price at "+prev.at.Format(time.RFC3339))
		}
	}
}

// regionOfZone is the region of an Alibaba Cloud zone id: "cn-hangzhou-g"
// is in cn-hangzhou, "ap-southeast-1a" in ap-southeast-1; "" where the id
// has neither form.
func regionOfZone(zone string) string {
	if i := strings.LastIndexByte(zone, '-'); i > 0 && len(zone)-i == 2 && isLower(zone[i+1]) {
		return zone[:i]
	}
	if n := len(zone); n >= 2 && isLower(zone[n-1]) && zone[n-2] >= '0' && zone[n-2] <= '9' && strings.Contains(zone, "-") {
		return zone[:n-1]
	}
	return ""
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// result returns the offerings (per zone, then region-wide) and
// commitments gathered, in a stable order.
func (c *collector) result() *feeds.Result {
	keys := make([]cellKey, 0, len(c.cells))
	for k := range c.cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].typ != keys[j].typ {
			return keys[i].typ < keys[j].typ
		}
		return keys[i].region < keys[j].region
	})
	res := c.res
	res.Offerings = nil
	for _, k := range keys {
		cl := c.cells[k]
		zones := make([]string, 0, len(cl.zones))
		for z := range cl.zones {
			zones = append(zones, z)
		}
		sort.Strings(zones)
		var regionSpot feeds.Price // a spot price asked without a zone
		for _, zn := range zones {
			z := cl.zones[zn]
			if zn == "" && cl.onDemand.Known {
				regionSpot = z.spot
				continue
			}
			od := cl.onDemand
			if !od.Known {
				od = z.hint
			}
			if !od.Known {
				od = feeds.Unknown(z.spot.Currency)
			}
			res.Offerings = append(res.Offerings, feeds.Offering{Origin: z.origin, Provider: provider, InstanceType: k.typ,
				Region: k.region, Zone: zn, OnDemand: od, Spot: z.spot})
		}
		if cl.onDemand.Known {
			res.Offerings = append(res.Offerings, feeds.Offering{Origin: cl.onDemandOrigin, Provider: provider, InstanceType: k.typ,
				Region: k.region, OnDemand: cl.onDemand, Spot: regionSpot})
		}
	}
	sort.SliceStable(res.Commitments, func(i, j int) bool {
		a, b := res.Commitments[i], res.Commitments[j]
		if a.InstanceType != b.InstanceType {
			return a.InstanceType < b.InstanceType
		}
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		return a.Term < b.Term
	})
	return &res
}
