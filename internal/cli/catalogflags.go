package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/form"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/pricefile"
	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// catalogFlags are the flags of every command that reads prices: user price
// files, exchange-rate overrides and the display currency.
type catalogFlags struct {
	prices   []string
	fx       []string
	currency string
	// noUserCatalog ignores the refreshed prices of 'catalog refresh'.
	noUserCatalog bool
	// loaded is what the last load returned (for notes after a run).
	loaded *loadedCatalog
}

func (cf *catalogFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSliceVar(&cf.prices, "prices", nil, "user price file(s) (YAML) whose prices override the catalog; see 'gpuscout catalog validate --help'")
	f.StringArrayVar(&cf.fx, "fx", nil, "exchange rate as CUR=USD_PER_UNIT, e.g. --fx CNY=0.138 (repeatable; overrides the dated default)")
	f.StringVar(&cf.currency, "currency", "USD", "currency to show prices in (USD, CNY, EUR, or any with an --fx rate)")
	f.BoolVar(&cf.noUserCatalog, "no-user-catalog", false, "ignore the prices 'gpuscout catalog refresh' fetched (also: "+usercatalog.EnvIgnore+"=1)")
}

// loadedCatalog is the catalog with the user's prices applied.
type loadedCatalog struct {
	cat      *catalog.Catalog
	fx       *money.FX
	currency money.Currency
	applied  []string // one line per price file
	// fxOverrides are the currencies whose rate --fx set.
	fxOverrides []money.Currency
	// refreshed are the user catalog's file sets applied (catalog refresh).
	refreshed []usercatalog.Applied
}

func (cf *catalogFlags) load() (*loadedCatalog, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, fmt.Errorf("embedded catalog: %w", err)
	}
	l := &loadedCatalog{cat: cat, fx: money.DefaultFX().Clone()}
	if !cf.noUserCatalog && !usercatalog.Ignored(getenv) {
		if err := l.applyUserCatalog(); err != nil {
			return nil, err
		}
	}
	cat = l.cat
	for _, path := range cf.prices {
		pf, err := pricefile.Load(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, usagef("--prices %s: no such file", path)
			}
			return nil, asUsage(err)
		}
		sum, err := pricefile.Apply(cat, l.fx, pf)
		if err != nil {
			return nil, asUsage(err)
		}
		l.applied = append(l.applied, fmt.Sprintf("%s: %d prices overridden, %d discounted, %d offerings added, %d commitment prices, %d spot bands", path, sum.Overridden, sum.Discounted, sum.Added, sum.Committed, sum.SpotBands))
	}
	for _, s := range cf.fx {
		c, r, err := money.ParseOverride(s)
		if err != nil {
			return nil, asUsage(err)
		}
		if slices.Contains(l.fxOverrides, c) {
			return nil, usagef("--fx %q: a rate for %s is given twice; give one", s, c)
		}
		if err := l.fx.CheckDrift(c, r); err != nil {
			return nil, usagef("--fx %q: %v", s, err)
		}
		if err := l.fx.SetUSDValue(c, r, "--fx "+s); err != nil {
			return nil, asUsage(err)
		}
		l.fxOverrides = append(l.fxOverrides, c)
	}
	if l.currency, err = form.ParseCurrency(cf.currency, l.fx); err != nil {
		if c, perr := money.ParseCurrency(cf.currency); perr == nil {
			return nil, usagef("%v; add one with --fx %s=USD_PER_UNIT", err, c)
		}
		return nil, asUsage(err)
	}
	cf.loaded = l
	return l, nil
}
