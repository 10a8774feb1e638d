package form

import (
	"math"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Offers is the inputs of `gpuscout offers` and GET /api/v1/offerings.
type Offers struct {
	Form
	sel            Selection
	minGPUMemory   string
	spot           bool
	maxPrice       string
	interconnects  []string
	sort           string
	limit          int
	includeRetired bool
}

// NewOffers is offers' inputs with their defaults; a new input is one line here.
func NewOffers() *Offers {
	f := &Offers{Form: newForm("offers"), sort: "price"}
	fs := f.fs
	f.sel.Register(fs)
	fs.StringVar(&f.minGPUMemory, "min-gpu-memory", "", "minimum memory per GPU as the card's nominal class, e.g. 40GB or 80GB (an H100 80 GB counts as 80 though NVML reports 79.6 GiB)")
	f.boolVar(&f.spot, "spot", "only offerings with a spot price, ranked by it")
	fs.StringVar(&f.maxPrice, "max-price", "", "maximum price per hour, in --currency")
	fs.StringSliceVar(&f.interconnects, "interconnect", nil, "GPU interconnect: "+strings.Join(catalog.Interconnects, ", "))
	fs.StringVar(&f.sort, "sort", "price", "rank by: price (per hour), gpu-hour (per GPU-hour), gpu-memory (per GiB of GPU memory-hour), bf16-pflop (per dense BF16 PFLOP-hour)")
	fs.Var(&intValue{n: &f.limit, min: 0, max: MaxLimit}, "limit", "show at most this many rows (0: all)")
	f.boolVar(&f.includeRetired, "include-retired", "also list sizes the provider has retired (marked; never used by cost or advise)")
	return f
}

// MaxLimit bounds --limit: more rows than any catalog holds.
const MaxLimit = 1 << 20

// Query turns the inputs into a catalog query, prices in cur; errors are
// *InputError in the CLI's words.
func (f *Offers) Query(cat *catalog.Catalog, fx *money.FX, cur money.Currency) (catalog.Query, error) {
	q := catalog.Query{FX: fx, Currency: cur, Spot: f.spot, Limit: f.limit, IncludeRetired: f.includeRetired}
	var err error
	if err := f.sel.Apply(&q, cat); err != nil {
		return q, err
	}
	if f.minGPUMemory != "" {
		if q.MinGPUMemoryGiB, err = ParseMemory("min-gpu-memory", f.minGPUMemory); err != nil {
			return q, err
		}
	}
	if f.maxPrice != "" {
		d, err := money.ParseDecimal(f.maxPrice)
		if err != nil || d.IsNegative() || d.GreaterThan(money.MaxHourly) {
			return q, inputErrorf("max-price", "--max-price %q: want a price per hour from 0 to %s in %s", f.maxPrice, money.Grouped(money.MaxHourly, 0), cur)
		}
		q.MaxPrice = decimal.NullDecimal{Decimal: d, Valid: true}
	}
	for _, ic := range f.interconnects {
		ic = strings.ToLower(strings.TrimSpace(ic))
		ok := false
		for _, x := range catalog.Interconnects {
			ok = ok || x == ic
		}
		if !ok {
			return q, inputErrorf("interconnect", "--interconnect %q is not one of %s", ic, strings.Join(catalog.Interconnects, ", "))
		}
		q.Interconnects = append(q.Interconnects, ic)
	}
	if q.Sort, err = catalog.ParseSortKey(f.sort); err != nil {
		return q, inputErrorf("sort", "--sort: %v", err)
	}
	return q, nil
}

// MaxGPUMemoryGB bounds --min-gpu-memory: no GPU sold has more than 1 TB.
const MaxGPUMemoryGB = 1024

// ParseMemory reads 80, 80GB, 80GiB or 80G as a GPU memory class for the
// input name. Vendors market binary sizes as GB ("80 GB" is 80 GiB of HBM)
// and NVML reports a little less than that (an H100 80 GB: 81,559 MiB =
// 79.6 GiB), so GB and GiB name the same class here and the catalog
// compares the value with each card's nominal class
// (catalog.Offering.GPUMemoryClassGB), not with what a feed copied from NVML.
func ParseMemory(name, s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, suf := range []string{"gib", "gb", "g"} {
		if strings.HasSuffix(t, suf) {
			t = strings.TrimSpace(strings.TrimSuffix(t, suf))
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v > MaxGPUMemoryGB || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, inputErrorf(name, "--%s %q: want a size from 0 to %dGB, such as 40GB or 80GiB", name, s, MaxGPUMemoryGB)
	}
	return v, nil
}
