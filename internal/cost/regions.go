package cost

import (
	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Way is one way to pay for an instance type beyond on-demand and spot: a
// commitment scheme's term, payment and class, or a Capacity Block. Quote
// keeps each way in the region where it costs least, and so does advise.
type Way struct{ Model, Term, Payment, Class string }

// WayOf is the way an option pays.
func WayOf(o *Option) Way { return Way{o.Model, o.Term, o.Payment, o.Class} }

// WaysElsewhere says which ways to pay for base's instance type are sold
// at a lower rate in another of the regions given (others: the same
// provider's offerings of other types are ignored) than in base's region,
// or are sold only there: for each such region's offering, those ways. A
// scheme the usage cannot use (u.Terms: a term longer than the usage's
// months) is left out; u nil: every way.
// The rate is what a commitment costs per term hour, upfront and recurring
// fees together (a Capacity Block's price per hour), in USD; a way whose
// price has no exchange rate is left out. A caller that prices only the
// type's on-demand region (advise sizes each candidate once) prices these
// regions too, for these ways only, and keeps each way's cheapest total as
// Quote does.
func WaysElsewhere(c *catalog.Catalog, fx *money.FX, u *Usage, base *catalog.Offering, others []*catalog.Offering) map[*catalog.Offering][]Way {
	type best struct {
		rate decimal.Decimal
		at   *catalog.Offering
	}
	ways := map[Way]best{}
	consider := func(o *catalog.Offering, keep func(old, new decimal.Decimal) bool) {
		for _, x := range c.CommitmentsFor(o) {
			if u != nil && x.IsScheme() && u.Terms(x.TermMonths()) == 0 {
				continue
			}
			r, ok := rate(fx, x)
			if !ok {
				continue
			}
			w := Way{x.Model, x.Term, x.Payment, x.Class}
			if b, seen := ways[w]; !seen || keep(b.rate, r) {
				ways[w] = best{r, o}
			}
		}
	}
	consider(base, func(old, new decimal.Decimal) bool { return new.LessThan(old) })
	for _, o := range others {
		if o.Provider != base.Provider || o.InstanceType != base.InstanceType || o.Region == base.Region {
			continue
		}
		// Lower by more than the sources' rounding (a millionth): a tie keeps the earlier region.
		consider(o, func(old, new decimal.Decimal) bool {
			return new.LessThan(old.Sub(old.Abs().Mul(decimal.New(1, -6))))
		})
	}
	var out map[*catalog.Offering][]Way
	for w, b := range ways {
		if b.at == base {
			continue
		}
		if out == nil {
			out = map[*catalog.Offering][]Way{}
		}
		out[b.at] = append(out[b.at], w)
	}
	return out
}

// rate is a commitment's price per term hour in USD: a scheme's upfront
// and recurring fees over its term's hours, a Capacity Block's hourly price.
func rate(fx *money.FX, x *catalog.Commitment) (decimal.Decimal, bool) {
	v := x.Hourly
	if x.IsScheme() {
		n := x.TermMonths()
		if n <= 0 {
			return decimal.Decimal{}, false
		}
		total := x.Upfront.Add(monthlyRecurring(x).Mul(decimal.NewFromInt(int64(n))))
		v = total.Div(decimal.NewFromInt(int64(n * catalog.HoursPerMonth)))
	}
	usd, err := fx.Convert(v, x.Currency, money.USD)
	return usd, err == nil
}
