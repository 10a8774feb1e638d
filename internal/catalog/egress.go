package catalog

import (
	"fmt"

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
}

// EgressPath is the tiered price of one path. A path absent from a
// provider's table has no sourced price and stays unknown.
type EgressPath struct {
	BothDirections bool         `yaml:"both_directions"` // billed on the way out and on the way in (AWS cross-AZ)
	Tiers          []EgressTier `yaml:"tiers"`
	// KnownUpTo: above this many GB a month no price is sourced (nil: all known).
	KnownUpTo *float64 `yaml:"known_up_to"`
}

// EgressTable is one provider's data-transfer prices.
type EgressTable struct {
	Provider string                `yaml:"provider"`
	Unit     string                `yaml:"unit"` // GB or GiB: the tiers' unit; usage is always given in GB
	Currency money.Currency        `yaml:"currency"`
	Source   string                `yaml:"source"`
	Notes    string                `yaml:"notes"`
	Paths    map[string]EgressPath `yaml:"paths"`
}

// Egress returns the provider's table, or nil.
func (c *Catalog) Egress(provider string) *EgressTable {
	for i := range c.EgressTables {
		if c.EgressTables[i].Provider == provider {
			return &c.EgressTables[i]
		}
	}
	return nil
}

func (t *EgressTable) validate() error {
	if t.Unit != "GB" && t.Unit != "GiB" {
		return fmt.Errorf("egress %s: unit %q; want GB or GiB", t.Provider, t.Unit)
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
	return nil
}
