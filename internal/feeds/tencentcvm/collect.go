package tencentcvm

import (
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// The charge types (InstanceChargeType) gpuscout prices.
const (
	ChargePostpaid = "POSTPAID_BY_HOUR" // pay-as-you-go (按量计费)
	ChargeSpot     = "SPOTPAID"         // spot (竞价实例)
	ChargePrepaid  = "PREPAID"          // 包年包月
)

type offKey struct{ region, zone, typ string }

type commitKey struct{ region, typ, term string }

// collector turns rows of either API into records: one offering per zone
// and type (on-demand and spot prices from their own rows), one prepaid
// commitment per region, type and term.
type collector struct {
	src, asOf string
	res       feeds.Result
	offs      map[offKey]*feeds.Offering
	commits   map[commitKey]*commitFrom
}

type commitFrom struct {
	c    feeds.Commitment
	zone string
}

func newCollector(src, asOf string) *collector {
	return &collector{src: src, asOf: asOf, offs: map[offKey]*feeds.Offering{}, commits: map[commitKey]*commitFrom{}}
}

// offering returns the zone's offering of the type, made on first use.
func (c *collector) offering(origin, region, zone, typ string, m feeds.Machine) *feeds.Offering {
	k := offKey{region, zone, typ}
	o := c.offs[k]
	if o == nil {
		o = &feeds.Offering{Origin: origin, Provider: "tencent", InstanceType: typ, Region: region, Zone: zone,
			Machine: m, OnDemand: feeds.Unknown(Currency), Spot: feeds.Unknown(Currency)}
		c.offs[k] = o
	}
	return o
}

// setPrice sets an hourly price of an offering; a second row giving a
// different price for the same zone, type and charge type is left out.
func (c *collector) setPrice(origin string, o *feeds.Offering, charge string, v decimal.Decimal) {
	p := &o.OnDemand
	if charge == ChargeSpot {
		p = &o.Spot
	}
	if p.Known {
		if !p.Amount.Equal(v) {
			c.res.Leave(origin, o.InstanceType+" "+o.Zone+" "+charge, "a second row prices it "+v.String()+", the first "+p.Amount.String())
		}
		return
	}
	*p = feeds.Known(v, Currency, c.src, c.asOf)
}

// addCommitment keeps one prepaid price per region, type and term: zones of
// a region that price it alike give one commitment, a zone pricing it
// differently is left out with both prices.
func (c *collector) addCommitment(origin, region, zone, typ, term string, upfront decimal.Decimal) {
	k := commitKey{region, typ, term}
	if prev := c.commits[k]; prev != nil {
		if !prev.c.Upfront.Equal(upfront) {
			c.res.Leave(origin, typ+" "+zone+" prepaid "+term, "prepaid "+upfront.String()+" differs from zone "+prev.zone+"'s "+prev.c.Upfront.String()+" (commitments are per region; the first zone's is kept)")
		}
		return
	}
	c.commits[k] = &commitFrom{zone: zone, c: feeds.Commitment{Origin: origin, Provider: "tencent", InstanceType: typ, Region: region,
		Model: "subscription", Term: term, Payment: "all-upfront", Upfront: upfront, Currency: Currency, Source: c.src, AsOf: c.asOf}}
}

// result returns the records sorted by region, zone (or term) and type.
func (c *collector) result() *feeds.Result {
	res := c.res
	for _, o := range c.offs {
		res.Offerings = append(res.Offerings, *o)
	}
	sort.Slice(res.Offerings, func(i, j int) bool {
		a, b := res.Offerings[i], res.Offerings[j]
		return strings.Join([]string{a.Region, a.Zone, a.InstanceType}, "\x00") < strings.Join([]string{b.Region, b.Zone, b.InstanceType}, "\x00")
	})
	for _, cf := range c.commits {
		res.Commitments = append(res.Commitments, cf.c)
	}
	sort.Slice(res.Commitments, func(i, j int) bool {
		a, b := res.Commitments[i], res.Commitments[j]
		return strings.Join([]string{a.Region, a.InstanceType, termOrder(a.Term)}, "\x00") < strings.Join([]string{b.Region, b.InstanceType, termOrder(b.Term)}, "\x00")
	})
	sort.SliceStable(res.LeftOut, func(i, j int) bool { return res.LeftOut[i].Origin < res.LeftOut[j].Origin })
	return &res
}

func termOrder(t string) string {
	switch t {
	case "1mo":
		return "0"
	case "1y":
		return "1"
	}
	return "2" + t
}
