package advise

import (
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

// DateRead is how the date of a price the plan bills at reads: as the
// catalog dates it where the plan was dated (datePrices: "2021 (day
// unknown)" for a source dated only by year), else its as-of.
func (p *Plan) DateRead(u UsedPrice) string {
	if d, ok := p.datesRead[[2]string{u.Price.Source, u.Price.AsOf}]; ok {
		return d
	}
	return u.Price.AsOf
}

// datePrices sets the plan's price date (its oldest price's, as far as it
// is known: catalog.PriceDate) and age at now, and flags it where a price
// it bills at is past the age rule (catalog.PriceAge: a year, 30 days for
// a spot price), each such price explained in cost's words (cost.StaleLine).
func datePrices(c *catalog.Catalog, p *Plan, now time.Time) {
	var oldest catalog.Age
	for _, u := range p.PricesUsed() {
		a := c.PriceAge(catalog.KindOf(u.Kind), u.Price.Source, u.Price.AsOf, now)
		if a.Date.Precision == catalog.Undated {
			continue
		}
		if p.datesRead == nil {
			p.datesRead = map[[2]string]string{}
		}
		p.datesRead[[2]string{u.Price.Source, u.Price.AsOf}] = a.Date.String()
		if oldest.Date.Precision == catalog.Undated || a.Date.Start.Before(oldest.Date.Start) {
			oldest = a
		}
		if a.Stale {
			p.Stale = true
			p.Explanation = append(p.Explanation, cost.StaleLine(u.Kind, a, u.Price.Source, p.Offering.Provider))
		}
	}
	if oldest.Date.Precision == catalog.Undated {
		return
	}
	p.PriceAsOf, p.PriceAgeDays = oldest.Date.ISO(), oldest.Days
}
