package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// zoneMoveCosts is the money of one move between each pair of zones: --move-gb
// GB of job state at --move-price per GB, or at the catalog's transfer price
// (cross-zone within a region, billed both ways; cross-region from the
// source region) where the zones are AWS zones it prices. It returns the
// matrix (nil: moves are free of data charges) and a note with the source.
func zoneMoveCosts(l *loadedCatalog, zones []spot.Zone, gb, price float64, priceSet bool) ([][]float64, string, error) {
	if gb == 0 {
		if priceSet {
			return nil, "", usagef("--move-price %g needs --move-gb: the GB of job state each move copies", price)
		}
		return nil, "moves are not charged for data (--move-gb 0), only for their restart delay; give --move-gb GB to price the job state each move copies", nil
	}
	n := len(zones)
	mc := make([][]float64, n)
	for i := range mc {
		mc[i] = make([]float64, n)
	}
	if priceSet {
		for a := range mc {
			for b := range mc[a] {
				if a != b {
					mc[a][b] = gb * price
				}
			}
		}
		return mc, fmt.Sprintf("each move copies %g GB of job state at %g %s per GB (--move-price): %s a move", gb, price, l.currency, fmtMoneyF(gb*price, string(l.currency))), nil
	}
	var notes []string
	for a := range zones {
		if !awsZone().MatchString(zones[a].Name) {
			return nil, "", usagef("--move-gb %g: zone %s is not an AWS zone the catalog prices transfer for; give --move-price PRICE_PER_GB", gb, zones[a].Name)
		}
		for b := range zones {
			if a == b {
				continue
			}
			cross, what := zones[a].Region != zones[b].Region, "between regions"
			if !cross {
				what = "between zones of one region"
			}
			mv, err := cost.MoveCost(l.cat, l.fx, "aws", zones[a].Region, cross, gb, l.currency)
			if err != nil {
				return nil, "", usagef("--move-gb %g: %v (moves from %s); give --move-price PRICE_PER_GB", gb, err, zones[a].Name)
			}
			mc[a][b] = mv.Amount.InexactFloat64()
			note := fmt.Sprintf("%s %s a move (%s)", what, fmtMoneyF(mc[a][b], string(l.currency)), mv.Describe())
			if !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
		}
	}
	return mc, fmt.Sprintf("each move copies %g GB of job state, priced by the catalog's transfer prices per move (each move priced from the month's first GB): %s", gb, strings.Join(notes, "; ")), nil
}

// zoneCatalogPrices prices each zone with --offering's instance in the
// zone's region: its on-demand price and the region's spot quote (the
// catalog's cheapest zone there: its zone IDs do not map to the traces' zone
// names, which differ by account). A zone whose trace has prices keeps
// them for spot; --spot-price or --od-price, where given, apply to every
// zone. A region without a sourced price is an error naming it: a price is
// never borrowed from another region.
func zoneCatalogPrices(l *loadedCatalog, spec string, zones []spot.Zone, tracePriced []bool, setSpot, setOD bool) ([]string, error) {
	ref, err := catalog.ParseOfferingRef(spec)
	if err != nil {
		return nil, usagef("--offering %v", err)
	}
	type price struct{ spot, od float64 }
	byRegion := map[string]price{}
	var sources []string
	for i := range zones {
		r := zones[i].Region
		p, ok := byRegion[r]
		if !ok {
			o, err := findOffering(l, ref.Provider+"/"+ref.InstanceType+"/"+r)
			if err != nil {
				return nil, usagef("--offering %s for zone %s (region %s): %v", spec, zones[i].Name, r, err)
			}
			op, err := spot.PriceOffering(l.cat, l.fx, l.currency, o)
			if err != nil {
				return nil, asUsage(err)
			}
			var parts []string
			if !setOD {
				if op.ODSource == "" {
					return nil, usagef("--offering %s: no sourced on-demand price in %s (zone %s); give --od-price", spec, r, zones[i].Name)
				}
				p.od = op.OnDemand
				parts = append(parts, op.ODSource)
			}
			if !setSpot && !tracePriced[i] {
				if op.SpotSource == "" {
					return nil, usagef("--offering %s: no sourced spot price in %s (zone %s); give --spot-price", spec, r, zones[i].Name)
				}
				p.spot = op.Spot
				parts = append(parts, op.SpotSource)
			}
			byRegion[r] = p
			if len(parts) > 0 {
				sources = append(sources, "zones in "+r+": "+strings.Join(parts, ", "))
			}
		}
		if p.od > 0 {
			zones[i].ODPrice = p.od
		}
		if p.spot > 0 && !tracePriced[i] {
			zones[i].SpotPrice = p.spot
		}
	}
	return sources, nil
}
