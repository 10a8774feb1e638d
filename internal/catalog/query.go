package catalog

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// SortKey orders query results.
type SortKey string

// Sort keys.
const (
	SortPrice     SortKey = "price"      // price per hour
	SortGPUHour   SortKey = "gpu-hour"   // price per GPU-hour
	SortGPUMemory SortKey = "gpu-memory" // price per GiB of GPU memory per hour
	SortBF16      SortKey = "bf16-pflop" // price per dense BF16 PFLOP-hour
)

// SortKeys lists the accepted --sort values.
var SortKeys = []string{string(SortPrice), string(SortGPUHour), string(SortGPUMemory), string(SortBF16)}

// ParseSortKey checks a --sort value (a few spellings are accepted).
func ParseSortKey(s string) (SortKey, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "price", "hour", "price-hour":
		return SortPrice, nil
	case "gpu-hour", "gpu", "per-gpu", "price-per-gpu-hour":
		return SortGPUHour, nil
	case "gpu-memory", "gpu-mem", "memory", "gpu-gb", "price-per-gpu-memory":
		return SortGPUMemory, nil
	case "bf16-pflop", "bf16-pflop-hour", "pflop", "bf16":
		return SortBF16, nil
	}
	return "", fmt.Errorf("sort %q is not one of %s", s, strings.Join(SortKeys, ", "))
}

// Query selects and orders offerings. Zero values mean "any".
type Query struct {
	GPUs     []*GPU  // nil: any GPU
	GPUCount float64 // 0: any count
	// MinGPUMemoryGiB keeps offerings whose memory per GPU is at least this,
	// compared with the card's nominal memory class (Offering.GPUMemoryClassGB).
	MinGPUMemoryGiB float64
	Providers       []string
	InstanceTypes   []string
	Regions         []string // canonical region names
	China           *bool
	Spot            bool // only offerings with a spot price; rank by it
	MaxPrice        decimal.NullDecimal
	Interconnects   []string
	Sort            SortKey
	AllRegions      bool // every region (and zone); otherwise each instance type once, in its cheapest region
	Currency        money.Currency
	FX              *money.FX
	Limit           int
	// IncludeRetired keeps offerings the provider has retired (Offering.Retired
	// on or before Today); by default they are left out of every query, so
	// that no plan or price list proposes them.
	IncludeRetired bool
	// Today is the day (YYYY-MM-DD) retirement dates are compared with;
	// empty: the current UTC date.
	Today string
}

// Row is one result: the offering and its prices in the query's currency.
type Row struct {
	Offering *Offering
	Zone     string              // the offering's zone; empty where zones were merged into their region
	SpotZone string              // the zone of the spot price, where zones were merged
	Price    decimal.NullDecimal // on-demand per hour
	Spot     decimal.NullDecimal // spot per hour
	// SpotCite is the spot price's provenance (source, as-of date): the
	// offering's own, or where zones were merged the region's quote's.
	SpotCite  Price
	Converted bool                // prices were converted from the offering's currency
	PerGPU    decimal.NullDecimal // ranked price per GPU-hour
	SortValue float64             // NaN when the ranked price or its divisor is unknown
}

// RankedPrice is the price the query ranks by: spot with --spot, else on-demand.
func (r *Row) RankedPrice(spot bool) decimal.NullDecimal {
	if spot {
		return r.Spot
	}
	return r.Price
}

// Query runs q over the catalog.
func (c *Catalog) Query(q Query) ([]Row, error) {
	if q.FX == nil {
		q.FX = money.DefaultFX()
	}
	if q.Currency == "" {
		q.Currency = money.USD
	}
	if !q.FX.Known(q.Currency) {
		return nil, fmt.Errorf("currency %s has no exchange rate (known: %s); add one with --fx %s=USD_PER_UNIT", q.Currency, strings.Join(q.FX.Currencies(), ", "), q.Currency)
	}
	if q.Sort == "" {
		q.Sort = SortPrice
	}
	if q.Today == "" {
		q.Today = time.Now().UTC().Format(time.DateOnly)
	}
	gpuSet := map[*GPU]bool{}
	for _, g := range q.GPUs {
		gpuSet[g] = true
	}
	var rows []Row
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if !q.matches(o, gpuSet) {
			continue
		}
		r := Row{Offering: o, Zone: o.Zone, SpotCite: o.Spot}
		var err error
		if r.Price, r.Converted, err = convert(o.OnDemand, q); err != nil {
			return nil, err
		}
		var spotConverted bool
		if r.Spot, spotConverted, err = convert(o.Spot, q); err != nil {
			return nil, err
		}
		r.Converted = r.Converted || spotConverted
		if q.Spot && !r.Spot.Valid {
			continue
		}
		rows = append(rows, r)
	}
	if !q.AllRegions {
		rows = mergeZones(rows)
		// A merged region is quoted at the spot price resolve.go decides, as
		// cost, spot and advise quote it.
		for i := range rows {
			sq := c.SpotQuoteFor(rows[i].Offering)
			spot, conv, err := convert(sq.Price, q)
			if err != nil {
				return nil, err
			}
			rows[i].Spot, rows[i].SpotZone, rows[i].SpotCite = spot, sq.Zone, sq.Price
			rows[i].Converted = rows[i].Converted || conv
		}
	}
	kept := rows[:0]
	for _, r := range rows {
		ranked := r.RankedPrice(q.Spot)
		if q.MaxPrice.Valid && (!ranked.Valid || ranked.Decimal.GreaterThan(q.MaxPrice.Decimal)) {
			continue
		}
		if ranked.Valid && r.Offering.GPUCount > 0 {
			r.PerGPU = decimal.NullDecimal{Decimal: ranked.Decimal.Div(decimal.NewFromFloat(r.Offering.GPUCount)), Valid: true}
		}
		r.SortValue = sortValue(ranked, r.Offering, q.Sort)
		kept = append(kept, r)
	}
	rows = kept
	sortRows(rows)
	if !q.AllRegions {
		rows = cheapestPerType(rows)
	}
	if q.Limit > 0 && len(rows) > q.Limit {
		rows = rows[:q.Limit]
	}
	return rows, nil
}

func (q *Query) matches(o *Offering, gpuSet map[*GPU]bool) bool {
	if len(gpuSet) > 0 && !gpuSet[o.GPU] {
		return false
	}
	if !q.IncludeRetired && o.RetiredOn(q.Today) {
		return false
	}
	if q.GPUCount > 0 && math.Abs(o.GPUCount-q.GPUCount) > 1e-9 {
		return false
	}
	if q.MinGPUMemoryGiB > 0 && o.GPUMemoryClassGB() < q.MinGPUMemoryGiB-1e-9 {
		return false
	}
	if len(q.Providers) > 0 && !containsFold(q.Providers, o.Provider) {
		return false
	}
	if len(q.InstanceTypes) > 0 && !containsFold(q.InstanceTypes, o.InstanceType) {
		return false
	}
	if len(q.Regions) > 0 && !containsFold(q.Regions, o.Region) {
		return false
	}
	if q.China != nil && o.China != *q.China {
		return false
	}
	if len(q.Interconnects) > 0 && !containsFold(q.Interconnects, o.Interconnect) {
		return false
	}
	return true
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func convert(p Price, q Query) (decimal.NullDecimal, bool, error) {
	if !p.Known {
		return decimal.NullDecimal{}, false, nil
	}
	if p.Currency == q.Currency {
		return decimal.NullDecimal{Decimal: p.Value, Valid: true}, false, nil
	}
	v, err := q.FX.Convert(p.Value, p.Currency, q.Currency)
	if err != nil {
		return decimal.NullDecimal{}, false, err
	}
	return decimal.NullDecimal{Decimal: v, Valid: true}, true, nil
}

func sortValue(price decimal.NullDecimal, o *Offering, key SortKey) float64 {
	if !price.Valid {
		return math.NaN()
	}
	p := price.Decimal.InexactFloat64()
	var div float64
	switch key {
	case SortPrice:
		return p
	case SortGPUHour:
		div = o.GPUCount
	case SortGPUMemory:
		div = o.GPUCount * o.GPUMemoryGiB
	case SortBF16:
		if o.GPU.BF16.Known {
			div = o.GPUCount * o.GPU.BF16.Value / 1000
		}
	}
	if div <= 0 {
		return math.NaN()
	}
	return p / div
}

// sortRows orders by sort value (unknown last), then by provider, size (GPUs, vCPUs), type, region, zone.
func sortRows(rows []Row) {
	slices.SortStableFunc(rows, func(x, y Row) int {
		switch {
		case rowLess(&x, &y):
			return -1
		case rowLess(&y, &x):
			return 1
		}
		return 0
	})
}

// rowLess is sortRows's order.
func rowLess(ri, rj *Row) bool {
	a, b := ri.SortValue, rj.SortValue
	an, bn := math.IsNaN(a), math.IsNaN(b)
	if an != bn {
		return bn
	}
	if !an && math.Abs(a-b) > 1e-6*math.Max(math.Abs(a), math.Abs(b)) {
		return a < b
	}
	// Equal prices, to the sources' rounding (AWS prices p4d at 21.957642 in
	// us-east-1 and 21.95764 in us-east-2): the cheaper spot price decides
	// which region represents the type.
	if si, sj := ri.Spot, rj.Spot; si.Valid != sj.Valid {
		return si.Valid
	} else if si.Valid && !si.Decimal.Equal(sj.Decimal) {
		return si.Decimal.LessThan(sj.Decimal)
	}
	x, y := ri.Offering, rj.Offering
	if x.Provider != y.Provider {
		return x.Provider < y.Provider
	}
	if x.GPUCount != y.GPUCount {
		return x.GPUCount < y.GPUCount
	}
	if x.VCPUs != y.VCPUs {
		return x.VCPUs < y.VCPUs
	}
	return CompareKeys(x, y) < 0
}

// mergeZones folds the zones of one region into one row, at the lowest
// on-demand price (the same in every zone where a cloud prices per region);
// the spot price is the region's quote (SpotQuoteFor), set by the caller.
func mergeZones(rows []Row) []Row {
	type zoneless struct {
		regionID
		gpu string
	}
	idx := make(map[zoneless]int, len(rows))
	var out []Row // nil for no rows, as before (JSON null)
	if len(rows) > 0 {
		out = make([]Row, 0, len(rows))
	}
	for _, r := range rows {
		o := r.Offering
		k := zoneless{regionOf(o), o.GPU.Name}
		i, ok := idx[k]
		if !ok {
			r.Zone = ""
			idx[k] = len(out)
			out = append(out, r)
			continue
		}
		m := &out[i]
		if r.Price.Valid && (!m.Price.Valid || r.Price.Decimal.LessThan(m.Price.Decimal)) {
			m.Price = r.Price
			m.Offering = r.Offering
		}
	}
	return out
}

// cheapestPerType keeps the first (cheapest) row of each provider/instance type;
// rows must already be sorted.
func cheapestPerType(rows []Row) []Row {
	type typeGPU struct{ provider, instanceType, gpu string }
	seen := map[typeGPU]bool{}
	out := rows[:0:0]
	for _, r := range rows {
		k := typeGPU{r.Offering.Provider, r.Offering.InstanceType, r.Offering.GPU.Name}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	return out
}
