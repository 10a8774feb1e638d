package advise

import (
	"fmt"
	"slices"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
)

// UsedPrice is a price a plan bills at: what it prices (on-demand, spot,
// commitment) and its citation (source and date).
type UsedPrice struct {
	Kind  string
	Price catalog.Price
}

// PricesUsed are the prices the plan bills at: a spot plan's spot price
// (and on-demand where its policy falls back to it), a commitment's, a
// mix's parts, else the on-demand price; only known ones.
func (p *Plan) PricesUsed() []UsedPrice {
	o := p.Offering
	var out []UsedPrice
	switch {
	case p.Mix != "" || p.Model == "mix":
		out = append(out, UsedPrice{"on-demand", o.OnDemand}, UsedPrice{"spot", o.Spot})
		if c := p.Commitment(); c != nil {
			out = append(out, UsedPrice{"commitment", commitmentPrice(c)})
		}
	case p.Term != "":
		if c := p.Commitment(); c != nil {
			out = append(out, UsedPrice{"commitment", commitmentPrice(c)})
		} else {
			out = append(out, UsedPrice{"on-demand", o.OnDemand})
		}
	case p.Model == cost.ModelSpot:
		out = append(out, UsedPrice{"spot", o.Spot})
		if p.Payment != "" && p.Payment != cost.ModelSpot {
			out = append(out, UsedPrice{"on-demand", o.OnDemand})
		}
	default:
		out = append(out, UsedPrice{"on-demand", o.OnDemand})
	}
	return slices.DeleteFunc(out, func(u UsedPrice) bool { return !u.Price.Known })
}

// commitmentPrice is a commitment's citation as a price: its source and date.
func commitmentPrice(c *catalog.Commitment) catalog.Price {
	return catalog.Price{Known: true, Source: c.Source, AsOf: c.AsOf}
}

// datePrices sets the plan's price date (its oldest price's) and age at
// now, and flags it where the price is older than a year.
func datePrices(p *Plan, now time.Time) {
	var oldest UsedPrice
	for _, u := range p.PricesUsed() {
		if u.Price.AsOf != "" && (oldest.Price.AsOf == "" || u.Price.AsOf < oldest.Price.AsOf) {
			oldest = u
		}
	}
	if oldest.Price.AsOf == "" {
		return
	}
	p.PriceAsOf = oldest.Price.AsOf
	p.PriceAgeDays, p.Stale = catalog.PriceAge(oldest.Price.AsOf, now)
	if p.Stale {
		p.Explanation = append(p.Explanation, fmt.Sprintf("the %s price is dated %s (%s), %d days ago: older than a year, so check it against %s's console before you buy (catalog refresh --provider %s updates it)",
			oldest.Kind, oldest.Price.AsOf, oldest.Price.Source, p.PriceAgeDays, p.Offering.Provider, p.Offering.Provider))
	}
}
