package cost

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// CurrencyError is an amount of a usage (a credit, a promotion, a storage
// price) in a currency the exchange rates do not know.
type CurrencyError struct {
	What     string // "credit", "promotion", "storage"
	Currency money.Currency
	Known    []string
}

func (e *CurrencyError) Error() string {
	return fmt.Sprintf("%s currency %s has no exchange rate (known: %s); add one with --fx %s=USD_PER_UNIT", e.What, e.Currency, strings.Join(e.Known, ", "), e.Currency)
}

// CheckUsage checks what a usage names against the catalog and the exchange
// rates, never changing it: every amount's currency converts, and every
// credit's providers exist. The CLI (cost, advise's credits) and the API
// check the same way; the error is a *CurrencyError or a
// *catalog.UnknownProviderError.
func CheckUsage(u *Usage, c *catalog.Catalog, fx *money.FX) error {
	check := func(what string, cur money.Currency) error {
		if cur == "" || fx.Known(cur) {
			return nil
		}
		return &CurrencyError{What: what, Currency: cur, Known: fx.Currencies()}
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

// Quote prices a usage on every offering the query selects (one row per
// region: zones share everything but spot, which the engine quotes per
// region), under every pricing model, cheapest first: what `cost` prints
// and POST /api/v1/cost returns.
func Quote(c *catalog.Catalog, fx *money.FX, cur money.Currency, q catalog.Query, u *Usage) ([]Option, error) {
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
	for _, r := range rows {
		opts, err := eng.Price(u, r.Offering)
		if err != nil {
			return nil, err
		}
		all = append(all, opts...)
	}
	SortOptions(all)
	return all, nil
}

// SelectionError is a query the catalog refuses (an unknown GPU, region or
// instance type): the caller's input, not a fault of the engine.
type SelectionError struct{ Err error }

func (e *SelectionError) Error() string { return e.Err.Error() }
func (e *SelectionError) Unwrap() error { return e.Err }
