package catalog

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Egress paths: where the bytes go.
const (
	PathSameZone      = "same-zone"
	PathCrossZone     = "cross-zone"
	PathCrossRegion   = "cross-region"
	PathInternet      = "internet"
	PathInternetChina = "internet-china"
)

// EgressPaths lists the paths in display order.
var EgressPaths = []string{PathSameZone, PathCrossZone, PathCrossRegion, PathInternet, PathInternetChina}

// EgressTier prices the GB of a month up to UpTo (nil: no upper limit).
type EgressTier struct {
	UpTo  *float64        `yaml:"up_to"`
	Price decimal.Decimal `yaml:"price"`
	// Source, where set, is the source of this tier when it is not the
	// path's (AWS's free first 100 GB come from its Free Tier terms).
	Source string `yaml:"source"`
}

// EgressPath is the tiered price of one path. A path absent from a
// provider's table has no sourced price and stays unknown.
type EgressPath struct {
	BothDirections bool         `yaml:"both_directions"` // billed on the way out and on the way in (AWS cross-AZ)
	Tiers          []EgressTier `yaml:"tiers"`
	// KnownUpTo: above this many GB a month no price is sourced (nil: all known).
	KnownUpTo *float64 `yaml:"known_up_to"`
	// Source, where set, is the source of this path's prices when it is not
	// the table's.
	Source string `yaml:"source"`
}

// EgressAllowance is data transfer a provider gives free each month over
// some paths, counted once per account and month across every instance,
// path and region of the account (AWS: the first 100 GB a month out to the
// internet, aggregated over all its services and regions), not per
// instance or per path. The tiers of the paths it covers price what is left
// after it.
type EgressAllowance struct {
	Amount float64  `yaml:"amount"` // in the table's unit, a month
	Paths  []string `yaml:"paths"`  // the paths it is shared by
	Source string   `yaml:"source"`
}

// Covers reports whether the allowance applies to path.
func (a *EgressAllowance) Covers(path string) bool {
	return a != nil && slices.Contains(a.Paths, path)
}

// EgressTable is one provider's data-transfer prices in one group of regions
// that share them. Prices differ by the region the bytes leave from, so a
// table lists the regions (exact names) and region prefixes it covers; a
// region no table covers has no sourced price and its egress stays unknown.
type EgressTable struct {
	Provider       string                `yaml:"provider"`
	Group          string                `yaml:"group"`           // a name for the region group ("US, Canada, EU")
	Regions        []string              `yaml:"regions"`         // region names covered
	RegionPrefixes []string              `yaml:"region_prefixes"` // or covered by prefix ("eu-")
	Unit           string                `yaml:"unit"`            // GB or GiB: the tiers' unit; usage is always given in GB
	Currency       money.Currency        `yaml:"currency"`
	Source         string                `yaml:"source"`
	Notes          string                `yaml:"notes"`
	Paths          map[string]EgressPath `yaml:"paths"`
	// Free is the account's monthly free allowance over some of the paths
	// (nil: none sourced).
	Free *EgressAllowance `yaml:"free"`
}

// Egress returns the table of the provider that covers the region: one that
// names the region, else the one with the longest matching prefix. It
// returns nil when no sourced table covers the region, so that egress from
// it stays unknown rather than borrowing another region's prices.
func (c *Catalog) Egress(provider, region string) *EgressTable {
	var best *EgressTable
	bestLen := -1
	for i := range c.EgressTables {
		t := &c.EgressTables[i]
		if t.Provider != provider {
			continue
		}
		if n := t.covers(region); n > bestLen {
			best, bestLen = t, n
		}
	}
	return best
}

// covers returns how well the table covers the region: a large number for
// an exact name, the prefix length for a prefix, -1 for no match.
func (t *EgressTable) covers(region string) int {
	if region == "" {
		return -1
	}
	for _, r := range t.Regions {
		if strings.EqualFold(r, region) {
			return math.MaxInt
		}
	}
	best := -1
	for _, p := range t.RegionPrefixes {
		if len(p) > best && strings.HasPrefix(strings.ToLower(region), strings.ToLower(p)) {
			best = len(p)
		}
	}
	return best
}

// PathSource is the source of one path's prices: the path's own, or the
// table's, followed by the sources of single tiers where they differ.
func (t *EgressTable) PathSource(path string) string {
	src := t.Source
	p, ok := t.Paths[path]
	if !ok {
		return src
	}
	if p.Source != "" {
		src = p.Source
	}
	for _, tier := range p.Tiers {
		if tier.Source != "" && !strings.Contains(src, tier.Source) {
			src += ", " + tier.Source
		}
	}
	if t.Free.Covers(path) && t.Free.Source != "" && !strings.Contains(src, t.Free.Source) {
		src += ", " + t.Free.Source
	}
	return src
}

func (t *EgressTable) validate() error {
	if t.Unit != "GB" && t.Unit != "GiB" {
		return fmt.Errorf("egress %s: unit %q; want GB or GiB", t.Provider, t.Unit)
	}
	if len(t.Regions) == 0 && len(t.RegionPrefixes) == 0 {
		return fmt.Errorf("egress %s %s: lists no regions or region prefixes; a table covers the regions whose prices it sources", t.Provider, t.Group)
	}
	for name, p := range t.Paths {
		known := false
		for _, x := range EgressPaths {
			known = known || x == name
		}
		if !known {
			return fmt.Errorf("egress %s: unknown path %q", t.Provider, name)
		}
		var prev float64
		for i, tier := range p.Tiers {
			if tier.Price.IsNegative() {
				return fmt.Errorf("egress %s %s: negative price", t.Provider, name)
			}
			if tier.UpTo == nil && i != len(p.Tiers)-1 {
				return fmt.Errorf("egress %s %s: only the last tier may be open-ended", t.Provider, name)
			}
			if tier.UpTo != nil {
				if *tier.UpTo <= prev {
					return fmt.Errorf("egress %s %s: tier limits must increase", t.Provider, name)
				}
				prev = *tier.UpTo
			}
		}
		if len(p.Tiers) == 0 {
			return fmt.Errorf("egress %s %s: no tiers", t.Provider, name)
		}
	}
	if f := t.Free; f != nil {
		if !(f.Amount > 0) || len(f.Paths) == 0 {
			return fmt.Errorf("egress %s %s: free: amount %g over paths %v; want an amount above 0 over at least one path", t.Provider, t.Group, f.Amount, f.Paths)
		}
		for _, name := range f.Paths {
			if _, ok := t.Paths[name]; !ok {
				return fmt.Errorf("egress %s %s: free: path %q has no prices in the table", t.Provider, t.Group, name)
			}
		}
	}
	return nil
}
