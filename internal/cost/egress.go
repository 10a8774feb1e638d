package cost

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// gbPerGiB converts usage in GB (10^9 bytes) to GiB-priced tiers.
var gbPerGiB = 1e9 / (1 << 30)

// EgressCost prices gb GB on a path, tier by tier, from the table of the
// region the bytes leave (catalog.Egress), without the table's free
// allowance: that is the account's, shared by all its traffic, and
// EgressMonth takes it. It returns ok=false, with the reason, when no price
// is sourced for that region (t == nil), path or volume.
func EgressCost(t *catalog.EgressTable, path string, gb float64) (decimal.Decimal, bool, string) {
	return egressTiers(t, path, gb, 0)
}

// PathCost is one path's share of a month of data transfer.
type PathCost struct {
	Path string
	GB   float64         // the month's volume, all instances together
	Cost decimal.Decimal // in the table's currency
	// FreeGB is the part of the table's free allowance this path used, in
	// the table's unit.
	FreeGB float64
	Known  bool
	Why    string // why no price is sourced, where !Known
}

// EgressMonth prices one month of an account's data transfer out of one
// region: gb is the month's GB per path, every instance together. The tiers
// apply to each path's whole volume, since providers count them per account
// and month, not per instance; the table's free allowance (AWS: the first
// 100 GB a month to the internet) is taken once, from the paths it covers in
// catalog.EgressPaths order, before their tiers. It is the one place that
// decides how a usage's egress is billed. Paths with no volume are left out.
func EgressMonth(t *catalog.EgressTable, gb map[string]float64) []PathCost {
	var free float64
	if t != nil && t.Free != nil {
		free = t.Free.Amount
	}
	var out []PathCost
	for _, path := range catalog.EgressPaths {
		v := gb[path]
		if v == 0 {
			continue
		}
		pc := PathCost{Path: path, GB: v}
		if t != nil && t.Free.Covers(path) && free > 0 {
			pc.FreeGB = min(free, unitVolume(t, v))
			free -= pc.FreeGB
		}
		pc.Cost, pc.Known, pc.Why = egressTiers(t, path, v, pc.FreeGB)
		out = append(out, pc)
	}
	return out
}

// unitVolume is gb in the table's unit.
func unitVolume(t *catalog.EgressTable, gb float64) float64 {
	if t.Unit == "GiB" {
		return gb * gbPerGiB
	}
	return gb
}

// egressTiers prices gb GB on a path, less freeUnits (in the table's unit)
// of an allowance, through the path's tiers.
func egressTiers(t *catalog.EgressTable, path string, gb, freeUnits float64) (decimal.Decimal, bool, string) {
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
	vol := unitVolume(t, gb)
	if p.KnownUpTo != nil && vol > *p.KnownUpTo {
		return decimal.Zero, false, fmt.Sprintf("no sourced %s price above %g %s a month for %s %s", path, *p.KnownUpTo, t.Unit, t.Provider, t.Group)
	}
	vol = max(0, vol-freeUnits)
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
