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
// wins where two price the same offering): a set's offerings replace every
// row (all zones) of the same provider, instance type and region, and are
// added where the catalog has none; its commitment prices and spot bands
// replace those of the same provider, type and region; its licence
// surcharges replace those of the same provider, type, region and licence
// (the embedded ones from licenses.yaml) and are added otherwise; its sources are
// added. Every other offering, commitment and band of cat stays. cat itself
// is not changed.
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
		a := Applied{Set: set, Commitments: len(set.Snapshot.Commitments), SpotBands: len(set.Snapshot.SpotBands)}
		replace := map[rowKey]bool{}
		for i := range set.Snapshot.Offerings {
			o := &set.Snapshot.Offerings[i]
			replace[rowKey{o.Provider, o.InstanceType, o.Region}] = true
		}
		present := map[rowKey]bool{}
		offs := make([]catalog.Offering, 0, len(c.Offerings)+len(set.Snapshot.Offerings))
		for i := range c.Offerings {
			o := &c.Offerings[i]
			k := rowKey{o.Provider, o.InstanceType, o.Region}
			if replace[k] {
				present[k] = true
				continue
			}
			offs = append(offs, *o)
		}
		offs = append(offs, set.Snapshot.Offerings...)
		c.Offerings = offs
		a.Replaced = len(present)
		a.Added = len(replace) - len(present)

		commitKeys := map[rowKey]bool{}
		for _, x := range set.Snapshot.Commitments {
			commitKeys[rowKey{x.Provider, x.InstanceType, x.Region}] = true
		}
		commits := make([]catalog.Commitment, 0, len(c.Commitments)+len(set.Snapshot.Commitments))
		for _, x := range c.Commitments {
			if !commitKeys[rowKey{x.Provider, x.InstanceType, x.Region}] {
				commits = append(commits, x)
			}
		}
		c.Commitments = append(commits, set.Snapshot.Commitments...)

		bandKeys := map[rowKey]bool{}
		for _, b := range set.Snapshot.SpotBands {
			bandKeys[rowKey{b.Provider, b.InstanceType, b.Region}] = true
		}
		bands := make([]catalog.SpotBand, 0, len(c.SpotBands)+len(set.Snapshot.SpotBands))
		for _, b := range c.SpotBands {
			if !bandKeys[rowKey{b.Provider, b.InstanceType, b.Region}] {
				bands = append(bands, b)
			}
		}
		c.SpotBands = append(bands, set.Snapshot.SpotBands...)

		c.Licenses = overlayLicenses(c.Licenses, set.Snapshot.Licenses)
		a.Licenses = len(set.Snapshot.Licenses)

		if len(set.Snapshot.LeftOut) > 0 {
			c.LeftOut = append(append([]catalog.LeftOutType(nil), c.LeftOut...), set.Snapshot.LeftOut...)
		}
		applied = append(applied, a)
	}
	return c.Clone(), applied, nil // a fresh copy: indexes built for the new rows
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

// overlayLicenses returns a new list: old's surcharges less those of the
// same provider, type, region and licence as one of set's, then set's.
func overlayLicenses(old, set []catalog.LicenseSurcharge) []catalog.LicenseSurcharge {
	if len(set) == 0 {
		return old
	}
	keys := map[licenseKey]bool{}
	for _, l := range set {
		keys[licenseKey{l.Provider, l.InstanceType, l.Region, l.License}] = true
	}
	out := make([]catalog.LicenseSurcharge, 0, len(old)+len(set))
	for _, l := range old {
		if !keys[licenseKey{l.Provider, l.InstanceType, l.Region, l.License}] {
			out = append(out, l)
		}
	}
	return append(out, set...)
}

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
