package pricefile

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// Summary counts what a file changed.
type Summary struct {
	Overridden int // catalog offerings whose price the file replaced
	Discounted int // catalog offerings whose price the file discounted
	Added      int // offerings the file added
	Committed  int // commitment prices the file added
	SpotBands  int // spot interruption bands the file gave
}

// Apply applies the file to c (a copy the caller owns) and its rates to fx.
// It fails on the first entry it cannot apply: an unknown provider, a discount
// or commitment that matches no offering, a second entry for the same
// offering or commitment (after resolving provider and region aliases), an
// amount outside the ranges of limits.go in the provider's own currency, or a
// spot price above the on-demand price (see SpotTolerance). Its time is
// linear in the entries (offeringIndex).
func Apply(c *catalog.Catalog, fx *money.FX, f *File) (Summary, error) {
	var sum Summary
	src := catalog.Source{ID: "user:" + filepath.Base(f.Path), Title: "user price file " + f.Path, AsOf: f.AsOf, Notes: f.Note}
	c.AddSource(src)
	for _, r := range f.FX {
		if err := fx.SetUSDValue(r.Currency, r.USD, src.ID); err != nil {
			return sum, &Error{Path: f.Path, Line: r.Line, Field: "fx." + string(r.Currency), Msg: err.Error()}
		}
	}
	x := newOfferingIndex(c)
	b := newBounds(fx)
	seen := map[string]int{} // offering key -> line of the entry that gave it
	for i := range f.Entries {
		e := &f.Entries[i]
		fail := func(field, msg string) error { return &Error{Path: f.Path, Line: e.Line, Field: field, Msg: msg} }
		p, err := c.LookupProvider(e.Provider)
		if err != nil {
			return sum, fail("provider", err.Error())
		}
		region := e.Region
		if region != "" {
			if rs := x.resolveRegion(region); len(rs) > 0 {
				region = pickRegion(c, p.Name, rs)
			}
			if err := x.checkRegion(p.Name, region, e.NewRegion); err != nil {
				return sum, fail("region", err.Error())
			}
		}
		key := entryKey(p.Name, e.InstanceType, region, e.Zone)
		if at, dup := seen[key]; dup {
			return sum, &Error{Path: f.Path, Line: e.Line, Msg: fmt.Sprintf("the same offering as the entry at line %d (%s); give each offering once, with price and spot_price in one entry", at, key)}
		}
		seen[key] = e.Line
		cur := e.Currency
		if cur == "" {
			cur = money.Currency(p.Currency)
		}
		if e.Currency == "" { // in the provider's currency: not checked by Parse
			if err := checkEntryAmounts(f.Path, b, e, cur); err != nil {
				return sum, err
			}
		}
		if err := checkEntrySpot(f.Path, fx, e, cur); err != nil {
			return sum, err
		}
		if e.SpotBand != "" {
			lo, hi, err := spot.ParseBand(e.SpotBand)
			if err != nil {
				return sum, fail("spot_band", err.Error())
			}
			c.SpotBands = append(c.SpotBands, catalog.SpotBand{Provider: p.Name, InstanceType: e.InstanceType, Region: region,
				Label: e.SpotBand, Low: lo, High: hi, Source: src.ID, AsOf: e.AsOf})
			sum.SpotBands++
			if !e.Price.Valid && !e.SpotPrice.Valid && !e.Discount.Valid {
				continue // a band alone changes no price
			}
		}
		matches := x.match(p.Name, e.InstanceType, region, e.Zone)
		mk := func(d decimal.NullDecimal) catalog.Price {
			return catalog.Price{Known: true, Amount: money.New(d.Decimal, cur), Source: src.ID, AsOf: e.AsOf, Note: e.Note}
		}
		switch {
		case e.Discount.Valid:
			if len(matches) == 0 {
				return sum, fail("instance_type", "the discount matches no catalog offering of "+p.Name+describe(e.InstanceType, region))
			}
			keep := decimal.NewFromInt(1).Sub(e.Discount.Decimal)
			for _, o := range matches {
				o.OnDemand = discounted(o.OnDemand, keep, src.ID, e)
				o.Spot = discounted(o.Spot, keep, src.ID, e)
			}
			sum.Discounted += len(matches)
		case len(matches) > 0:
			for _, o := range matches {
				if e.Price.Valid {
					o.OnDemand = mk(e.Price)
					o.Steps = e.Steps
				}
				if e.SpotPrice.Valid {
					o.Spot = mk(e.SpotPrice)
				}
				if err := checkOfferingSpot(f.Path, fx, e, o); err != nil {
					return sum, err
				}
			}
			sum.Overridden += len(matches)
		default:
			o, err := newOffering(c, p.Name, region, e, fail)
			if err != nil {
				return sum, err
			}
			o.OnDemand = catalog.Price{Amount: money.New(decimal.Zero, cur)}
			if e.Price.Valid {
				o.OnDemand = mk(e.Price)
				o.Steps = e.Steps
			}
			if e.SpotPrice.Valid {
				o.Spot = mk(e.SpotPrice)
			}
			o.SpecSource = src.ID
			x.add(o)
			sum.Added++
		}
	}
	seenCommit := map[string]int{}
	for _, ce := range f.Commitments {
		fail := func(field, msg string) error { return &Error{Path: f.Path, Line: ce.Line, Field: field, Msg: msg} }
		p, err := c.LookupProvider(ce.Provider)
		if err != nil {
			return sum, fail("provider", err.Error())
		}
		region := ce.Region
		if rs := x.resolveRegion(region); len(rs) > 0 {
			region = pickRegion(c, p.Name, rs)
		}
		if len(x.match(p.Name, ce.InstanceType, region, "")) == 0 {
			return sum, fail("instance_type", "no offering is "+p.Name+describe(ce.InstanceType, region)+"; add it under prices: first")
		}
		key := commitmentKey(p.Name, ce.InstanceType, region, &ce)
		// One product, one entry: a one-month term paid ahead is the same
		// whether the file calls it monthly or all-upfront (OfferKey).
		same := p.Name + "/" + ce.InstanceType + "/" + region + " " + p.OfferKey(ce.Model, ce.Term, ce.Payment, ce.Class)
		if at, dup := seenCommit[same]; dup {
			why := ""
			if catalog.TermMonths(ce.Term) == 1 && p.PaidAhead(ce.Model) {
				why = ": a one-month term paid ahead is one product, monthly or all-upfront"
			}
			return sum, &Error{Path: f.Path, Line: ce.Line, Msg: fmt.Sprintf("the same commitment as the one at line %d (%s%s); give each commitment once", at, key, why)}
		}
		seenCommit[same] = ce.Line
		cur := ce.Currency
		if cur == "" {
			cur = money.Currency(p.Currency)
			if err := checkCommitmentAmounts(f.Path, b, &ce, cur); err != nil {
				return sum, err
			}
		}
		c.Commitments = append(c.Commitments, catalog.Commitment{Provider: p.Name, InstanceType: ce.InstanceType, Region: region,
			Model: ce.Model, Term: ce.Term, Payment: ce.Payment, Class: ce.Class, Upfront: ce.Upfront, Hourly: ce.Hourly, Monthly: ce.Monthly,
			Currency: cur, Source: src.ID, AsOf: ce.AsOf})
		sum.Committed++
	}
	return sum, nil
}

// pickRegion prefers the resolved region that belongs to the provider (北京 is a region of several clouds).
func pickRegion(c *catalog.Catalog, provider string, rs []string) string {
	if p := c.Provider(provider); p != nil {
		for _, r := range rs {
			if p.RegionInfo(r) != nil {
				return r
			}
		}
	}
	return rs[0]
}

// entryKey names the offerings an entry applies to: provider/type/region/zone
// without the parts it leaves open, or "provider, every instance type".
func entryKey(provider, typ, region, zone string) string {
	if typ == "" {
		s := provider + ", every instance type"
		if region != "" {
			s += " in " + region
		}
		if zone != "" {
			s += " zone " + zone
		}
		return s
	}
	s := provider + "/" + typ
	for _, part := range []string{region, zone} {
		if part != "" {
			s += "/" + part
		}
	}
	return s
}

// commitmentKey names one commitment offer: what it is for, model, term, payment and class.
func commitmentKey(provider, typ, region string, ce *CommitmentEntry) string {
	return strings.TrimSpace(strings.Join([]string{provider + "/" + typ + "/" + region, ce.Model, ce.Term, ce.Payment, ce.Class}, " "))
}

func describe(typ, region string) string {
	s := ""
	if typ != "" {
		s += " instance_type " + typ
	}
	if region != "" {
		s += " in region " + region
	}
	return s
}

func discounted(p catalog.Price, keep decimal.Decimal, src string, e *Entry) catalog.Price {
	if !p.Known {
		return p
	}
	note := e.Discount.Decimal.Mul(decimal.NewFromInt(100)).String() + "% off " + p.Source
	if e.Note != "" {
		note += "; " + e.Note
	}
	return catalog.Price{Known: true, Amount: money.New(p.Value.Mul(keep), p.Currency), Source: src, AsOf: e.AsOf, Note: note}
}

func newOffering(c *catalog.Catalog, provider, region string, e *Entry, fail func(string, string) error) (catalog.Offering, error) {
	var o catalog.Offering
	what := "no catalog offering is " + provider + describe(e.InstanceType, region) + "; to add one give "
	switch {
	case region == "":
		return o, fail("region", what+"its region")
	case e.GPU == "":
		return o, fail("gpu", what+"gpu and gpu_count")
	case e.GPUCount == 0:
		return o, fail("gpu_count", what+"gpu_count")
	}
	gpus, err := c.LookupGPU(e.GPU)
	if err != nil {
		return o, fail("gpu", err.Error())
	}
	if len(gpus) > 1 {
		names := make([]string, len(gpus))
		for i, g := range gpus {
			names[i] = g.Name
		}
		return o, fail("gpu", "\""+e.GPU+"\" names several GPUs; pick one of "+strings.Join(names, ", "))
	}
	link := e.Interconnect
	if link == "" {
		link = catalog.LinkUnknown
		if e.GPUCount <= 1 {
			link = catalog.LinkNone
		}
	} else if !slices.Contains(catalog.Interconnects, link) {
		return o, fail("interconnect", "value \""+link+"\" is not one of "+strings.Join(catalog.Interconnects, ", "))
	}
	mem := e.GPUMemoryGiB
	if mem == 0 && gpus[0].MemoryGiB.Known {
		mem = gpus[0].MemoryGiB.Value
	}
	china := false
	if p := c.Provider(provider); p != nil {
		if r := p.RegionInfo(region); r != nil {
			china = r.China
		}
	}
	return catalog.Offering{
		Provider: provider, InstanceType: e.InstanceType, Region: region, Zone: e.Zone, China: china,
		GPU: gpus[0], GPUCount: e.GPUCount, GPUMemoryGiB: mem, VCPUs: e.VCPUs, MemoryGiB: e.MemoryGiB,
		Interconnect: link,
	}, nil
}

// checkRegion refuses a region the catalog does not know for the provider
// (mars-1 for aws was priced as a new region), unless the entry says it is
// new; a provider with no regions in the catalog takes any.
func (x *offeringIndex) checkRegion(provider, region string, isNew bool) error {
	known := x.byRegion[provider]
	if isNew || len(known) == 0 || known[region] {
		return nil
	}
	names := slices.Sorted(maps.Keys(known))
	return fmt.Errorf("value %q is not a region of %s in the catalog (closest: %s); for a region launched since, add new_region: true to the entry",
		region, provider, strings.Join(catalog.Closest(region, names, 3), ", "))
}
