package cost

import (
	"fmt"
	"slices"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// PriceUsed is a price an option bills at: what it prices ("on-demand",
// "spot", "commitment", as advise names them) and its citation.
type PriceUsed struct {
	Kind  string
	Price catalog.Price
}

// PricesUsed are the known prices the option bills at: a commitment's (or
// Capacity Block's), a spot option's spot price (and the on-demand price
// where its policy falls back to it), else the on-demand price.
func (o *Option) PricesUsed() []PriceUsed {
	var out []PriceUsed
	switch {
	case o.commitment != nil:
		c := o.commitment
		out = append(out, PriceUsed{"commitment", catalog.Price{Known: true, Source: c.Source, AsOf: c.AsOf}})
	case o.Model == ModelSpot:
		out = append(out, PriceUsed{"spot", o.spotPrice})
		if o.SpotEstimate != nil && o.SpotEstimate.OnDemandFallback() {
			out = append(out, PriceUsed{"on-demand", o.Offering.OnDemand})
		}
	case o.Model == ModelOnDemand || o.Model == ModelHybridBenefit:
		out = append(out, PriceUsed{"on-demand", o.Offering.OnDemand})
	}
	return slices.DeleteFunc(out, func(u PriceUsed) bool { return !u.Price.Known })
}

// DatePrices dates the prices each priced option bills at, at now, by the
// catalog's age rule (catalog.PriceAge: a year for list prices, 30 days for
// spot): the option's PriceAge is its oldest price's, Stale says whether
// any is past the rule, and each one past it adds StaleLine to the
// explanation. cost and its API call it after Quote; advise dates its
// plans itself (advise.datePrices) in the same words.
func DatePrices(c *catalog.Catalog, opts []Option, now time.Time) {
	for i := range opts {
		o := &opts[i]
		if !o.Known {
			continue
		}
		for _, u := range o.PricesUsed() {
			a := c.PriceAge(catalog.KindOf(u.Kind), u.Price.Source, u.Price.AsOf, now)
			if a.Date.Precision == catalog.Undated {
				continue
			}
			if o.PriceAge.Date.Precision == catalog.Undated || a.Date.Start.Before(o.PriceAge.Date.Start) {
				o.PriceAge = a
			}
			if a.Stale {
				o.Stale = true
				o.Explanation = append(o.Explanation, StaleLine(u.Kind, a, u.Price.Source, o.Offering.Provider))
			}
		}
	}
}

// StaleLine is the warning for a price past the age rule, the same in cost
// and advise: what it prices, its date, source and age, and what to do.
// A date known only to its year or month says so, and how old the price
// may be at most.
func StaleLine(what string, a catalog.Age, source, provider string) string {
	dated := fmt.Sprintf("dated %s (%s), %s", a.Date.ISO(), source, a.Ago())
	older := "older than " + a.Kind.Limit()
	if a.Date.Partial() {
		unit := "year"
		if a.Date.Precision == catalog.MonthOnly {
			unit = "month"
		}
		dated = fmt.Sprintf("dated only to the %s %s (%s), %s", unit, a.Date.ISO(), source, a.Ago())
		older = "it may be older than " + a.Kind.Limit()
	}
	if a.Kind == catalog.SpotPrice {
		older += " (spot prices move far faster than list prices)"
	}
	return fmt.Sprintf("the %s price is %s: %s, so check it against %s's console before you buy (catalog refresh --provider %s updates it)",
		what, dated, older, provider, provider)
}

// cite is a price's citation in an explanation: its source and its date as
// catalog.PriceDate reads it ("2021 (day unknown)" for a page dated only by
// year), or the source alone where it has no date.
func (p *pricer) cite(source, asOf string) string {
	if d := p.e.Catalog.PriceDate(source, asOf).String(); d != "" {
		return source + ", " + d
	}
	return source
}
