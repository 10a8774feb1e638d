package usercatalog

import (
	"fmt"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// Applied is what one set changed in a catalog.
type Applied struct {
	Set *Set
	// Replaced counts the provider/type/region offerings whose rows the set
	// replaced, Added those the catalog did not list.
	Replaced, Added int
	Commitments     int
	SpotBands       int
	Licenses        int
}

// Note is the line commands print when the set's prices were used: "prices
// for aws us-east-1 from your catalog refresh of 2026-11-30 (3 days old)".
func (a Applied) Note(now time.Time) string {
	return fmt.Sprintf("prices for %s from your catalog refresh of %s (%s)", a.Set.Describe(), a.Set.Meta.FetchedAt.UTC().Format("2006-01-02"), ageWords(a.Set.Age(now)))
}

func ageWords(days int) string {
	switch days {
	case 0:
		return "today"
	case 1:
		return "1 day old"
	}
	return fmt.Sprintf("%d days old", days)
}

// Cites reports whether a source id is one of the set's.
func (s *Set) Cites(id string) bool {
	for _, src := range s.Meta.Sources {
		if src.ID == id {
			return true
		}
	}
	return false
}

type rowKey struct{ provider, typ, region string }

// Overlay returns a copy of cat with the sets applied in order (the later
// wins where two price the same offering), under the partial refresh policy
// of the package doc: a set's offerings replace every row (all
// zones) of the same provider, instance type and region, and are added
// where the catalog has none; a price kind the set says nothing about keeps
// the catalog's price; its sources are added. Every offering, commitment,
// band and licence of cat the set does not list stays. cat itself is not
// changed.
func Overlay(cat *catalog.Catalog, sets []*Set) (*catalog.Catalog, []Applied, error) {
	c := cat.Clone()
	var applied []Applied
	for _, set := range sets {
		for _, s := range set.Meta.Sources {
			c.AddSource(s)
		}
		if err := checkCited(c, set); err != nil {
			return nil, nil, err
		}
		applied = append(applied, apply(c, set))
		c = c.Clone() // a fresh copy: indexes built for the new rows
	}
	return c, applied, nil
}

// apply overlays one set on c (its lists replaced, never changed in place).
func apply(c *catalog.Catalog, set *Set) Applied {
	snap := set.Snapshot
	cov := coverage(snap)
	a := Applied{Set: set, Commitments: len(snap.Commitments), SpotBands: len(snap.SpotBands), Licenses: len(snap.Licenses)}

	replace := map[rowKey]bool{}
	setRegion := map[rowKey]*catalog.Offering{} // the set's region-wide row (no zone) of a key
	setZoned := map[rowKey]bool{}               // the set has zone rows of a key
	for i := range snap.Offerings {
		o := &snap.Offerings[i]
		k := rowKey{o.Provider, o.InstanceType, o.Region}
		replace[k] = true
		if o.Zone == "" {
			setRegion[k] = o
		} else {
			setZoned[k] = true
		}
	}
	present := map[rowKey]bool{}
	old := map[rowKey][]*catalog.Offering{} // the replaced rows
	offs := make([]catalog.Offering, 0, len(c.Offerings)+len(snap.Offerings))
	for i := range c.Offerings {
		o := &c.Offerings[i]
		k := rowKey{o.Provider, o.InstanceType, o.Region}
		if replace[k] {
			present[k] = true
			old[k] = append(old[k], o)
			continue
		}
		offs = append(offs, *o)
	}
	own := map[string]bool{}
	for i := range snap.Offerings {
		own[snap.Offerings[i].Key()] = true
	}
	for _, n := range snap.Offerings {
		k := rowKey{n.Provider, n.InstanceType, n.Region}
		keepOD, keepSpot := !cov.has(n.Provider, n.Region, kindOnDemand), !cov.has(n.Provider, n.Region, kindSpot)
		if r := setRegion[k]; n.Zone != "" && r != nil { // the feed's region-wide price fills its zone row's gap
			if !n.OnDemand.Known && r.OnDemand.Known {
				n.OnDemand = r.OnDemand
			}
			if !n.Spot.Known && r.Spot.Known {
				n.Spot = r.Spot
			}
		}
		prev := old[k]
		spread := n.Zone == "" && setZoned[k] // a region row beside the feed's own zone rows
		if len(prev) == 0 || !keepOD && !keepSpot && !spread {
			offs = append(offs, n)
			continue
		}
		merge := func(n catalog.Offering, p *catalog.Offering) catalog.Offering {
			if keepOD {
				n.OnDemand = p.OnDemand
			}
			if keepSpot {
				n.Spot = p.Spot
			}
			return n
		}
		var same, region *catalog.Offering
		for _, p := range prev {
			if p.Zone == n.Zone {
				same = p
			}
			if p.Zone == "" {
				region = p
			}
		}
		switch {
		case same != nil:
			offs = append(offs, merge(n, same))
		case n.Zone != "" && region != nil: // a zone row replacing the region's row
			offs = append(offs, merge(n, region))
		case n.Zone == "": // a region row replacing zone rows: each zone keeps its own prices
			for _, p := range prev {
				z := n
				z.Zone = p.Zone
				if !own[z.Key()] {
					offs = append(offs, merge(z, p))
				}
			}
		default: // a zone the catalog did not have: the price every replaced row agrees on
			if keepOD {
				n.OnDemand = agreed(prev, func(o *catalog.Offering) catalog.Price { return o.OnDemand }, n.OnDemand)
			}
			if keepSpot {
				n.Spot = agreed(prev, func(o *catalog.Offering) catalog.Price { return o.Spot }, n.Spot)
			}
			offs = append(offs, n)
		}
	}
	unlistedNotes(offs, set, replace)
	c.Offerings = offs
	a.Replaced = len(present)
	a.Added = len(replace) - len(present)

	listed := func(provider, typ, region string) bool { return set.Prices(provider, typ, region) }
	commits := make([]catalog.Commitment, 0, len(c.Commitments)+len(snap.Commitments))
	for _, x := range c.Commitments {
		if !(cov.has(x.Provider, x.Region, kindCommitment+x.Model) && listed(x.Provider, x.InstanceType, x.Region)) {
			commits = append(commits, x)
		}
	}
	c.Commitments = append(commits, snap.Commitments...)

	bands := make([]catalog.SpotBand, 0, len(c.SpotBands)+len(snap.SpotBands))
	for _, b := range c.SpotBands {
		if !(cov.has(b.Provider, b.Region, kindBands) && listed(b.Provider, b.InstanceType, b.Region)) {
			bands = append(bands, b)
		}
	}
	c.SpotBands = append(bands, snap.SpotBands...)

	lics := make([]catalog.LicenseSurcharge, 0, len(c.Licenses)+len(snap.Licenses))
	for _, l := range c.Licenses {
		if !(cov.has(l.Provider, l.Region, kindLicense+l.License) && listed(l.Provider, l.InstanceType, l.Region)) {
			lics = append(lics, l)
		}
	}
	c.Licenses = append(lics, snap.Licenses...)

	if len(snap.LeftOut) > 0 {
		c.LeftOut = append(append([]catalog.LeftOutType(nil), c.LeftOut...), snap.LeftOut...)
	}
	return a
}

// The price kinds of the partial refresh policy; commitments are a kind per
// model and licences per licence (the prefix and its name).
const (
	kindOnDemand   = "on-demand"
	kindSpot       = "spot"
	kindBands      = "spot-bands"
	kindCommitment = "commitment:"
	kindLicense    = "license:"
)

type covKey struct{ provider, region, kind string }

// covered is which price kinds a set has at least one record of, per
// provider and region: what it speaks for (the package doc's partial
// refresh policy).
type covered map[covKey]bool

func (c covered) has(provider, region, kind string) bool { return c[covKey{provider, region, kind}] }

func coverage(s *catalog.Snapshot) covered {
	c := covered{}
	for i := range s.Offerings {
		o := &s.Offerings[i]
		if o.OnDemand.Known {
			c[covKey{o.Provider, o.Region, kindOnDemand}] = true
		}
		if o.Spot.Known {
			c[covKey{o.Provider, o.Region, kindSpot}] = true
		}
	}
	for _, x := range s.Commitments {
		c[covKey{x.Provider, x.Region, kindCommitment + x.Model}] = true
	}
	for _, b := range s.SpotBands {
		c[covKey{b.Provider, b.Region, kindBands}] = true
	}
	for _, l := range s.Licenses {
		c[covKey{l.Provider, l.Region, kindLicense + l.License}] = true
	}
	return c
}

// agreed returns the price every row has (value, currency, source and
// date alike), else def.
func agreed(rows []*catalog.Offering, get func(*catalog.Offering) catalog.Price, def catalog.Price) catalog.Price {
	if len(rows) == 0 {
		return def
	}
	first := get(rows[0])
	for _, r := range rows[1:] {
		p := get(r)
		if p.Known != first.Known || p.Currency != first.Currency || p.Source != first.Source || p.AsOf != first.AsOf || !p.Value.Equal(first.Value) {
			return def
		}
	}
	return first
}

// checkCited: every source a set's rows cite is known once its own sources
// are added (a hand-edited or damaged set is refused, naming it).
func checkCited(c *catalog.Catalog, set *Set) error {
	where := set.Meta.Provider + "/" + set.Key + "/" + set.Version
	for i := range set.Snapshot.Offerings {
		o := &set.Snapshot.Offerings[i]
		if c.Provider(o.Provider) == nil {
			return fmt.Errorf("user catalog %s: offering %s: provider %q is not in the catalog", where, o.Key(), o.Provider)
		}
		for _, s := range []string{o.OnDemand.Source, o.Spot.Source, o.SpecSource, o.NetworkSource, o.RetiredSource} {
			if s != "" && c.Source(s) == nil {
				return fmt.Errorf("user catalog %s: offering %s cites unknown source %q", where, o.Key(), s)
			}
		}
	}
	for _, x := range set.Snapshot.Commitments {
		if c.Source(x.Source) == nil {
			return fmt.Errorf("user catalog %s: commitment %s %s cites unknown source %q", where, x.InstanceType, x.Region, x.Source)
		}
	}
	for _, b := range set.Snapshot.SpotBands {
		if c.Source(b.Source) == nil {
			return fmt.Errorf("user catalog %s: spot band %s %s cites unknown source %q", where, b.InstanceType, b.Region, b.Source)
		}
	}
	for _, l := range set.Snapshot.Licenses {
		if c.Source(l.Source) == nil {
			return fmt.Errorf("user catalog %s: %s licence of %s %s cites unknown source %q", where, l.License, l.InstanceType, l.Region, l.Source)
		}
	}
	return nil
}

type licenseKey struct{ provider, typ, region, license string }

// Prices reports whether the set priced the provider's instance type in the
// region: an offering, a commitment price, a spot band or a licence price of it.
func (s *Set) Prices(provider, typ, region string) bool {
	if s.priced == nil {
		s.priced = map[rowKey]bool{}
		for i := range s.Snapshot.Offerings {
			o := &s.Snapshot.Offerings[i]
			s.priced[rowKey{o.Provider, o.InstanceType, o.Region}] = true
		}
		for _, x := range s.Snapshot.Commitments {
			s.priced[rowKey{x.Provider, x.InstanceType, x.Region}] = true
		}
		for _, b := range s.Snapshot.SpotBands {
			s.priced[rowKey{b.Provider, b.InstanceType, b.Region}] = true
		}
		for _, l := range s.Snapshot.Licenses {
			s.priced[rowKey{l.Provider, l.InstanceType, l.Region}] = true
		}
	}
	return s.priced[rowKey{provider, typ, region}]
}
