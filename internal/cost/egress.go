package cost

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// gbPerGiB converts usage in GB (10^9 bytes) to GiB-priced tiers.
var gbPerGiB = 1e9 / (1 << 30)

// EgressCost prices one month's volume on a path, tier by tier, from the
// table of the offering's region group (catalog.Egress). It returns ok=false,
// with the reason, when no price is sourced for that region (t == nil), path
// or volume.
func EgressCost(t *catalog.EgressTable, path string, gb float64) (decimal.Decimal, bool, string) {
	if gb == 0 {
		return decimal.Zero, true, ""
	}
	if t == nil {
		return decimal.Zero, false, "no sourced data-transfer prices for this region"
	}
	p, ok := t.Paths[path]
	if !ok {
		return decimal.Zero, false, fmt.Sprintf("no sourced %s price for %s %s", path, t.Provider, t.Group)
	}
	vol := gb
	if t.Unit == "GiB" {
		vol = gb * gbPerGiB
	}
	if p.KnownUpTo != nil && vol > *p.KnownUpTo {
		return decimal.Zero, false, fmt.Sprintf("no sourced %s price above %g %s a month for %s %s", path, *p.KnownUpTo, t.Unit, t.Provider, t.Group)
	}
	cost := decimal.Zero
	prev := 0.0
	for _, tier := range p.Tiers {
		hi := vol
		if tier.UpTo != nil && *tier.UpTo < hi {
			hi = *tier.UpTo
		}
		if hi > prev {
			cost = cost.Add(tier.Price.Mul(decimal.NewFromFloat(hi - prev)))
		}
		if tier.UpTo == nil || *tier.UpTo >= vol {
			break
		}
		prev = *tier.UpTo
	}
	if p.BothDirections {
		cost = cost.Mul(decimal.NewFromInt(2))
	}
	return cost, true, ""
}
