package usercatalog

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Change kinds.
const (
	Changed = "changed" // both prices known, different
	Priced  = "priced"  // was unknown, now known
	New     = "new"     // an offering the old rows did not list
	Gone    = "gone"    // an offering the new rows no longer list
	Unknown = "unpriced"
)

// Change is one price that moved between two sets of rows.
type Change struct {
	Provider, InstanceType, Region, Zone string
	Price                                string // "on-demand", "spot" or "windows licence" (DiffLicenses)
	Kind                                 string
	Old, New                             catalog.Price
	// Pct is the change in percent of the old price, rounded to 0.1; null
	// unless both are known in the same currency.
	Pct decimal.NullDecimal
}

// Diff compares the on-demand and spot prices of the offerings in old and
// new (matched by provider, type, region and zone) of provider ("" for
// all), sorted by provider, type, region, zone.
func Diff(old, new []catalog.Offering, provider string) []Change {
	idx := func(offs []catalog.Offering) map[string]*catalog.Offering {
		m := map[string]*catalog.Offering{}
		for i := range offs {
			if provider == "" || offs[i].Provider == provider {
				m[offs[i].Key()] = &offs[i]
			}
		}
		return m
	}
	om, nm := idx(old), idx(new)
	var out []Change
	for k, n := range nm {
		o := om[k]
		if o == nil {
			if n.OnDemand.Known || n.Spot.Known {
				out = append(out, change(n, "on-demand", New, catalog.Price{}, n.OnDemand))
			}
			continue
		}
		for _, p := range []struct {
			name     string
			old, new catalog.Price
		}{{"on-demand", o.OnDemand, n.OnDemand}, {"spot", o.Spot, n.Spot}} {
			switch {
			case p.old.Known && p.new.Known:
				if !p.old.Value.Equal(p.new.Value) || p.old.Currency != p.new.Currency {
					out = append(out, change(n, p.name, Changed, p.old, p.new))
				}
			case !p.old.Known && p.new.Known:
				out = append(out, change(n, p.name, Priced, p.old, p.new))
			case p.old.Known && !p.new.Known:
				out = append(out, change(n, p.name, Unknown, p.old, p.new))
			}
		}
	}
	for k, o := range om {
		if nm[k] == nil && (o.OnDemand.Known || o.Spot.Known) {
			out = append(out, change(o, "on-demand", Gone, o.OnDemand, catalog.Price{}))
		}
	}
	sortChanges(out)
	return out
}

// DiffLicenses compares the licence surcharges in old and new (matched by
// provider, type, region and licence) of provider ("" for all), as changes
// whose Price is "windows licence" (the licence's name), sorted like Diff.
func DiffLicenses(old, new []catalog.LicenseSurcharge, provider string) []Change {
	idx := func(ls []catalog.LicenseSurcharge) map[licenseKey]*catalog.LicenseSurcharge {
		m := map[licenseKey]*catalog.LicenseSurcharge{}
		for i := range ls {
			if provider == "" || ls[i].Provider == provider {
				m[licenseKey{ls[i].Provider, ls[i].InstanceType, ls[i].Region, ls[i].License}] = &ls[i]
			}
		}
		return m
	}
	om, nm := idx(old), idx(new)
	var out []Change
	add := func(l *catalog.LicenseSurcharge, kind string, o, n catalog.Price) {
		off := catalog.Offering{Provider: l.Provider, InstanceType: l.InstanceType, Region: l.Region}
		out = append(out, change(&off, l.License+" licence", kind, o, n))
	}
	for k, n := range nm {
		o := om[k]
		switch {
		case o == nil:
			add(n, New, catalog.Price{}, licensePrice(n))
		case !o.PerHour.Equal(n.PerHour) || o.Currency != n.Currency:
			add(n, Changed, licensePrice(o), licensePrice(n))
		}
	}
	for k, o := range om {
		if nm[k] == nil {
			add(o, Gone, licensePrice(o), catalog.Price{})
		}
	}
	sortChanges(out)
	return out
}

// licensePrice is a surcharge as a price: dated by the record, else by
// nothing (the source entry dates the embedded ones).
func licensePrice(l *catalog.LicenseSurcharge) catalog.Price {
	return catalog.Price{Known: true, Amount: money.Amount{Value: l.PerHour, Currency: l.Currency}, Source: l.Source, AsOf: l.AsOf}
}

func sortChanges(out []Change) {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		for _, p := range [][2]string{{a.Provider, b.Provider}, {a.InstanceType, b.InstanceType}, {a.Region, b.Region}, {a.Zone, b.Zone}, {a.Price, b.Price}} {
			if p[0] != p[1] {
				return p[0] < p[1]
			}
		}
		return false
	})
}

var hundred = decimal.NewFromInt(100)

func change(o *catalog.Offering, price, kind string, old, new catalog.Price) Change {
	c := Change{Provider: o.Provider, InstanceType: o.InstanceType, Region: o.Region, Zone: o.Zone, Price: price, Kind: kind, Old: old, New: new}
	if old.Known && new.Known && old.Currency == new.Currency && old.Value.IsPositive() {
		c.Pct = decimal.NewNullDecimal(new.Value.Sub(old.Value).Mul(hundred).DivRound(old.Value, 4).Round(1))
	}
	return c
}

// Baseline picks, for `catalog diff --since`, the version of a set to
// compare the current one with: the newest fetched at or before since (the
// prices as they were then), else the oldest kept after it; nil when the
// set has a single version. versions are one set's, oldest first.
func Baseline(versions []*Set, since time.Time) *Set {
	if len(versions) < 2 {
		return nil
	}
	cur := versions[len(versions)-1]
	var base *Set
	for _, v := range versions[:len(versions)-1] {
		if !v.Meta.FetchedAt.After(since) {
			base = v
		}
	}
	if base == nil {
		base = versions[0]
	}
	if base == cur {
		return nil
	}
	return base
}
