package cost

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// CurrencyError is a currency the exchange rates do not know: the
// answer's, or that of an amount of a usage (a credit, a promotion, a
// storage price).
type CurrencyError struct {
	What     string // "currency" (the answer's), "credit", "promotion", "storage"
	Currency money.Currency
	Known    []string
}

func (e *CurrencyError) Error() string {
	what := e.What + " currency"
	if e.What == "currency" {
		what = "currency"
	}
	return fmt.Sprintf("%s %s has no exchange rate (known: %s)", what, e.Currency, strings.Join(e.Known, ", "))
}

// Request is what `gpuscout cost` and POST /api/v1/cost price: a usage, in
// a currency, on the offerings a query selects. The CLI builds one from its
// flags and usage file, the API from its JSON body; both validate and quote
// it here, so neither decides what the other does not.
type Request struct {
	Usage    Usage
	Currency money.Currency // of the answer; "" is USD
	Query    catalog.Query  // the offerings; Quote sets its exchange rates and currency
}

// AnswerCurrency is the currency the request is answered in: its own, else USD.
func (r *Request) AnswerCurrency() money.Currency {
	if r.Currency == "" {
		return money.USD
	}
	return r.Currency
}

// Validate checks the request against the catalog and the exchange rates,
// never changing it: the answer's currency and every amount of the usage
// convert (a *CurrencyError: What is "currency", "credit", "promotion" or
// "storage"), and every credit's providers exist (a
// *catalog.UnknownProviderError).
func (r *Request) Validate(c *catalog.Catalog, fx *money.FX) error {
	check := func(what string, cur money.Currency) error {
		if cur == "" || fx.Known(cur) {
			return nil
		}
		return &CurrencyError{What: what, Currency: cur, Known: fx.Currencies()}
	}
	u := &r.Usage
	if err := check("currency", r.AnswerCurrency()); err != nil {
		return err
	}
	for _, x := range u.Credits {
		if err := check("credit", x.Currency); err != nil {
			return err
		}
	}
	for _, x := range u.Promotions {
		if err := check("promotion", x.Currency); err != nil {
			return err
		}
	}
	for _, x := range u.Storage {
		if err := check("storage", x.Currency); err != nil {
			return err
		}
	}
	for _, x := range u.Credits {
		for _, name := range x.Providers {
			if _, err := c.LookupProvider(name); err != nil {
				return err
			}
		}
	}
	return nil
}

// Quote validates the request and prices its usage on every offering the
// query selects (one row per region: zones share everything but spot,
// which the engine quotes per region), under every pricing model,
// cheapest first.
//
// Where the query names no region, every region of each instance type is
// priced and each way to pay (model, term, payment, class) is quoted in
// the region where it costs least: spot where spot is cheapest, a
// Capacity Block where blocks are, on-demand where on-demand is, as advise
// chooses; the region is on each option. A query the catalog refuses or
// that selects nothing is a *SelectionError.
func (r *Request) Quote(c *catalog.Catalog, fx *money.FX) ([]Option, error) {
	if err := r.Validate(c, fx); err != nil {
		return nil, err
	}
	cur := r.AnswerCurrency()
	q := r.Query
	q.FX, q.Currency = fx, cur
	anyRegion := len(q.Regions) == 0 && !q.AllRegions
	if anyRegion {
		q.AllRegions = true
	}
	rows, err := c.Query(q)
	if err != nil {
		return nil, &SelectionError{Err: err}
	}
	if len(rows) == 0 {
		return nil, &SelectionError{Err: errors.New(c.WhyNone(q))}
	}
	rows = catalog.PerRegion(rows)
	eng := &Engine{Catalog: c, FX: fx, Currency: cur}
	var all []Option
	for _, row := range rows {
		opts, err := eng.Price(&r.Usage, row.Offering)
		if err != nil {
			return nil, err
		}
		all = append(all, opts...)
	}
	if anyRegion {
		all = cheapestRegion(all)
	}
	SortOptions(all)
	return all, nil
}

// cheapestRegion keeps, of each instance type's options in several
// regions (in the catalog's order of those regions), the cheapest of each
// way to pay: priced before unpriced, feasible before not, then the lower
// total; totals equal to the sources' rounding (a millionth) keep the
// region the catalog ranks first, as offers does.
func cheapestRegion(opts []Option) []Option {
	type way struct{ provider, instanceType, gpu, model, term, payment, class string }
	best := map[way]int{}
	var out []Option
	for _, o := range opts {
		k := way{o.Offering.Provider, o.Offering.InstanceType, o.Offering.GPU.Name, o.Model, o.Term, o.Payment, o.Class}
		i, ok := best[k]
		if !ok {
			best[k] = len(out)
			out = append(out, o)
			continue
		}
		if better(&o, &out[i]) {
			out[i] = o
		}
	}
	return out
}

// better says whether a is a better quote than b for the same way to pay.
func better(a, b *Option) bool {
	switch {
	case a.Known != b.Known:
		return a.Known
	case a.Feasible != b.Feasible:
		return a.Feasible
	case !a.Known:
		return false
	}
	x, y := a.Total.Value.InexactFloat64(), b.Total.Value.InexactFloat64()
	return x < y-1e-6*math.Abs(y)
}

// SelectionError is a query the catalog refuses (an unknown GPU, region or
// instance type): the caller's input, not a fault of the engine.
type SelectionError struct{ Err error }

func (e *SelectionError) Error() string { return e.Err.Error() }
func (e *SelectionError) Unwrap() error { return e.Err }
