package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
)

// selectFlags choose offerings: shared by offers and cost.
type selectFlags struct {
	gpu           string
	providers     []string
	regions       []string
	china, noChin bool
	allRegions    bool
}

func (f *selectFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.gpu, "gpu", "", "GPU name and optional count, NAME[:COUNT] (A100, A100-80GB:8, H100-SXM5-80GB, L4:0.5)")
	fl.StringSliceVar(&f.providers, "provider", nil, "providers, comma-separated (aws,azure,gcp,alibaba,tencent,lambda,nebius,vast,seeweb,fluidstack)")
	fl.StringArrayVar(&f.regions, "region", nil, "region; repeat the flag or separate with commas (names that contain commas, like Vast's \"CN, AS\", are matched whole first); Chinese names work (华东1, 北京)")
	fl.BoolVar(&f.china, "china", false, "only regions in mainland China")
	fl.BoolVar(&f.noChin, "no-china", false, "exclude regions in mainland China")
	fl.BoolVar(&f.allRegions, "all-regions", false, "every region and zone, not only each instance type's cheapest region")
}

// apply sets the selection on q.
func (f *selectFlags) apply(q *catalog.Query, l *loadedCatalog) error {
	q.AllRegions = f.allRegions
	if f.gpu != "" {
		name, count, err := parseGPUFlag(f.gpu)
		if err != nil {
			return err
		}
		if q.GPUs, err = l.cat.LookupGPU(name); err != nil {
			return usagef("--gpu: %v", err)
		}
		q.GPUCount = count
	}
	for _, p := range f.providers {
		prov := l.cat.Provider(p)
		if prov == nil {
			return usagef("--provider %q is not a known provider; known: %s", p, strings.Join(l.cat.ProviderNames(), ", "))
		}
		q.Providers = append(q.Providers, prov.Name)
	}
	for _, r := range f.regions {
		rs, err := resolveRegionFlag(r, l.cat.ResolveRegion)
		if err != nil {
			var bad *unknownRegionError
			if errors.As(err, &bad) {
				return usagef("%v; closest: %s", err, strings.Join(catalog.Closest(bad.name, l.cat.Regions(""), 5), ", "))
			}
			return err
		}
		q.Regions = append(q.Regions, rs...)
	}
	if f.china && f.noChin {
		return usagef("--china and --no-china exclude each other; give one")
	}
	if f.china || f.noChin {
		v := f.china
		q.China = &v
	}
	return nil
}

// unknownRegionError names a --region value (or a part of a comma list) that is no region.
type unknownRegionError struct{ flag, name string }

func (e *unknownRegionError) Error() string {
	if e.flag == e.name {
		return fmt.Sprintf("--region %q is not a known region", e.name)
	}
	return fmt.Sprintf("--region %q: %q is not a known region", e.flag, e.name)
}

// resolveRegionFlag reads one --region value. The whole value is tried first,
// since some regions contain commas (Vast's "CN, AS"); otherwise it is a comma
// list, read left to right, each time taking the longest run of parts that
// names a region ("Sichuan, CN, AS,us-east-1" is two regions).
func resolveRegionFlag(v string, resolve func(string) []string) ([]string, error) {
	if rs := resolve(v); len(rs) > 0 {
		return rs, nil
	}
	var parts []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil, usagef("--region %q: empty; give a region name such as us-east-1 or 华东1", v)
	}
	var out []string
	for i := 0; i < len(parts); {
		j := len(parts)
		for ; j > i; j-- {
			if rs := resolve(strings.Join(parts[i:j], ", ")); len(rs) > 0 {
				out = append(out, rs...)
				break
			}
		}
		if j == i {
			return nil, &unknownRegionError{flag: v, name: parts[i]}
		}
		i = j
	}
	return out, nil
}

type offersFlags struct {
	catalogFlags
	selectFlags
	minGPUMemory   string
	spot           bool
	maxPrice       string
	interconnects  []string
	sort           string
	limit          int
	includeRetired bool
}

func newOffersCmd(e *env) *cobra.Command {
	var f offersFlags
	cmd := &cobra.Command{
		Use:   "offers",
		Short: "List GPU offerings with prices, cheapest first",
		Long: `List GPU offerings (instance type × region) with their on-demand and spot
prices, each with its source and as-of date. By default each instance type is
shown once, in its cheapest region; --all-regions shows every region and zone.

Prices the catalog has no source for are shown as "?" (Alibaba Cloud and
Tencent Cloud publish no GPU list price we could source): supply your own with
--prices FILE.`,
		Example: `  gpuscout offers --gpu A100:8
  gpuscout offers --gpu H100 --spot --provider aws,gcp --sort gpu-hour -o csv
  gpuscout offers --min-gpu-memory 80GB --max-price 30 --currency CNY
  gpuscout offers --china --gpu A10 --prices examples/prices-china.yaml`,
		Args: noArgs,
	}
	getFormat := outputFlag(cmd)
	wide := wideFlag(cmd)
	f.catalogFlags.register(cmd)
	f.selectFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.minGPUMemory, "min-gpu-memory", "", "minimum memory per GPU as the card's nominal class, e.g. 40GB or 80GB (an H100 80 GB counts as 80 though NVML reports 79.6 GiB)")
	fl.BoolVar(&f.spot, "spot", false, "only offerings with a spot price, ranked by it")
	fl.StringVar(&f.maxPrice, "max-price", "", "maximum price per hour, in --currency")
	fl.StringSliceVar(&f.interconnects, "interconnect", nil, "GPU interconnect: "+strings.Join(catalog.Interconnects, ", "))
	fl.StringVar(&f.sort, "sort", "price", "rank by: price (per hour), gpu-hour (per GPU-hour), gpu-memory (per GiB of GPU memory-hour), bf16-pflop (per dense BF16 PFLOP-hour)")
	fl.IntVar(&f.limit, "limit", 0, "show at most this many rows (0: all)")
	fl.BoolVar(&f.includeRetired, "include-retired", false, "also list sizes the provider has retired (marked; never used by cost or advise)")
	_ = cmd.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions(catalog.SortKeys, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("interconnect", cobra.FixedCompletions(catalog.Interconnects, cobra.ShellCompDirectiveNoFileComp))
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		l, err := f.load()
		if err != nil {
			return err
		}
		q, err := f.query(l)
		if err != nil {
			return err
		}
		rows, err := l.cat.Query(q)
		if err != nil {
			return asUsage(err)
		}
		return e.writeFitted(format, offersTable(l, q, rows), offersJSON(rows, q), *wide)
	}
	return cmd
}

// parseGPUFlag splits NAME[:COUNT].
// maxGPUCount bounds the COUNT of --gpu NAME:COUNT.
const maxGPUCount = 1024

func parseGPUFlag(s string) (string, float64, error) {
	name, count, hasCount := strings.Cut(strings.TrimSpace(s), ":")
	name = strings.TrimSpace(name)
	if name == "" {
		return "", 0, usagef("--gpu %q: want NAME[:COUNT], e.g. A100:8", s)
	}
	if !hasCount {
		return name, 0, nil
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(count), 64)
	if err != nil || !(n > 0) || n > maxGPUCount || math.IsInf(n, 0) {
		return "", 0, usagef("--gpu %q: count %q: want a number more than 0 and at most %d (fractions such as 0.5 select GPU slices)", s, count, maxGPUCount)
	}
	return name, n, nil
}

// maxGPUMemoryGB bounds --min-gpu-memory: no GPU sold has more than 1 TB.
const maxGPUMemoryGB = 1024

// parseMemory reads 80, 80GB, 80GiB or 80G as a GPU memory class. Vendors
// market binary sizes as GB ("80 GB" is 80 GiB of HBM) and NVML reports a
// little less than that (an H100 80 GB: 81,559 MiB = 79.6 GiB), so GB and
// GiB name the same class here and the catalog compares the value with each
// card's nominal class (catalog.Offering.GPUMemoryClassGB), not with what a
// feed copied from NVML.
func parseMemory(flag, s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, suf := range []string{"gib", "gb", "g"} {
		if strings.HasSuffix(t, suf) {
			t = strings.TrimSpace(strings.TrimSuffix(t, suf))
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v > maxGPUMemoryGB || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, usagef("%s %q: want a size from 0 to %dGB, such as 40GB or 80GiB", flag, s, maxGPUMemoryGB)
	}
	return v, nil
}

func (f *offersFlags) query(l *loadedCatalog) (catalog.Query, error) {
	q := catalog.Query{FX: l.fx, Currency: l.currency, Spot: f.spot, Limit: f.limit, IncludeRetired: f.includeRetired}
	var err error
	if err := f.selectFlags.apply(&q, l); err != nil {
		return q, err
	}
	if f.minGPUMemory != "" {
		if q.MinGPUMemoryGiB, err = parseMemory("--min-gpu-memory", f.minGPUMemory); err != nil {
			return q, err
		}
	}
	if f.maxPrice != "" {
		d, err := money.ParseDecimal(f.maxPrice)
		if err != nil || d.IsNegative() || d.GreaterThan(money.MaxHourly) {
			return q, usagef("--max-price %q: want a price per hour from 0 to %s in %s", f.maxPrice, money.Grouped(money.MaxHourly, 0), l.currency)
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
			return q, usagef("--interconnect %q is not one of %s", ic, strings.Join(catalog.Interconnects, ", "))
		}
		q.Interconnects = append(q.Interconnects, ic)
	}
	if q.Sort, err = catalog.ParseSortKey(f.sort); err != nil {
		return q, usagef("--sort: %v", err)
	}
	if f.limit < 0 {
		return q, usagef("--limit %d: want 0 (all) or a positive number", f.limit)
	}
	return q, nil
}

// money formatting for tables: up to 4 decimals, at least 2.
func fmtMoney(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	s := d.Decimal.Round(4).StringFixed(4)
	s = strings.TrimRight(s, "0")
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s
}

func fmtNum(f float64) string {
	if f == 0 {
		return render.Unknown // a size no source gives
	}
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func fmtCount(f float64) string {
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}

func offersTable(l *loadedCatalog, q catalog.Query, rows []catalog.Row) *render.Table {
	cur := string(q.Currency)
	t := &render.Table{Columns: []render.Column{
		{Header: "PROVIDER"}, {Header: "INSTANCE"}, {Header: "GPU", Drop: 1}, {Header: "QTY", Right: true},
		{Header: "GPU GiB", Right: true, Short: "GiB", Drop: 4}, {Header: "vCPU", Right: true, Drop: 6}, {Header: "MEM GiB", Right: true, Drop: 7},
		{Header: "LINK", Drop: 5}, {Header: "REGION", Drop: 2}, {Header: cur + "/h", Right: true}, {Header: "SPOT " + cur + "/h", Right: true, Short: "SPOT/h"},
		{Header: map[bool]string{true: "SPOT ", false: ""}[q.Spot] + cur + "/GPU-h", Right: true, Short: "/GPU-h", Drop: 3},
	}, Currency: cur}
	extra := ""
	switch q.Sort {
	case catalog.SortGPUMemory:
		extra = cur + "/GiB-h"
	case catalog.SortBF16:
		extra = cur + "/BF16-PFLOP-h"
	}
	if extra != "" {
		t.Columns = append(t.Columns, render.Column{Header: extra, Right: true, Short: strings.TrimPrefix(extra, cur)})
	}
	unknown := map[string]int{}
	converted := map[money.Currency]bool{}
	retired := map[string]bool{}
	for _, r := range rows {
		o := r.Offering
		region := o.Region
		if region == "" {
			region = "-"
		}
		if r.Zone != "" {
			region += "/" + r.Zone
		}
		price, spot := fmtMoney(r.Price), fmtMoney(r.Spot)
		if !r.Price.Valid {
			price = render.Unknown
			unknown[o.Provider]++
		}
		if spot == "" {
			spot = render.Unknown
			if p := l.cat.Provider(o.Provider); p != nil && p.SkyPilot != nil && p.SkyPilot.NoSpot {
				spot = render.NotApplied // the provider sells no spot capacity
			}
		}
		if r.Converted {
			converted[o.OnDemand.Currency] = true
			if r.Price.Valid {
				price += "*"
			}
			if r.Spot.Valid {
				spot += "*"
			}
		}
		perGPU := fmtMoney(r.PerGPU)
		if perGPU == "" {
			perGPU = render.Unknown
		}
		link := o.Interconnect
		if link == "" || link == "unknown" {
			link = render.Unknown
		}
		typ := o.InstanceType
		if o.Retired != "" {
			typ += " (retired " + o.Retired + ")"
			retired[o.RetiredSource] = true
		}
		row := []string{o.Provider, typ, o.GPU.Name, fmtCount(o.GPUCount), fmtNum(o.GPUMemoryGiB),
			fmtNum(o.VCPUs), fmtNum(o.MemoryGiB), link, region, price, spot, perGPU}
		if extra != "" {
			v := render.Unknown
			if !math.IsNaN(r.SortValue) {
				v = fmtMoney(decimal.NullDecimal{Decimal: decimal.NewFromFloat(r.SortValue), Valid: true})
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	if len(rows) == 0 {
		t.Notes = append(t.Notes, "No offering matches. Widen the filters, or list GPUs with 'gpuscout gpus'.")
		if len(q.Regions) > 0 {
			wide := q // the region alone
			wide.GPUs, wide.GPUCount, wide.MinGPUMemoryGiB, wide.MaxPrice, wide.Spot, wide.Interconnects = nil, 0, 0, decimal.NullDecimal{}, false, nil
			if r, err := l.cat.Query(wide); err == nil && len(r) == 0 {
				t.Notes = append(t.Notes, fmt.Sprintf("The region (%s) is known, but the catalog lists no GPU offering there; add yours with --prices FILE.", strings.Join(q.Regions, ", ")))
			}
		}
		if !q.IncludeRetired {
			all := q
			all.IncludeRetired = true
			if r, err := l.cat.Query(all); err == nil && len(r) > 0 {
				t.Notes = append(t.Notes, fmt.Sprintf("%d retired size(s) match; list them with --include-retired.", len(r)))
			}
		}
	}
	convList := make([]string, 0, len(converted))
	for c := range converted {
		convList = append(convList, string(c))
	}
	sort.Strings(convList)
	for _, cs := range convList {
		c := money.Currency(cs)
		other := c
		if c == money.USD {
			other = q.Currency
		}
		t.Notes = append(t.Notes, fmt.Sprintf("* converted from %s: %s; override with --fx %s=USD_PER_UNIT", c, l.fx.Describe(c, q.Currency), other))
	}
	if len(unknown) > 0 {
		var parts []string
		for _, p := range l.cat.ProviderNames() {
			if n := unknown[p]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", p, n))
			}
		}
		t.Notes = append(t.Notes, fmt.Sprintf("? price: no public list price could be sourced (%s). Supply yours with --prices FILE; 'gpuscout catalog validate --help' shows the format.", strings.Join(parts, ", ")))
	}
	for _, id := range slices.Sorted(maps.Keys(retired)) {
		t.Notes = append(t.Notes, fmt.Sprintf("(retired DATE): the provider retired the size on that date (%s); shown because of --include-retired, never used by cost or advise.", sourceRef(l, id)))
	}
	if !q.AllRegions && len(rows) > 0 {
		t.Notes = append(t.Notes, "Each instance type in its cheapest region; --all-regions shows all. Sources and dates: -o json, or 'gpuscout catalog info'.")
	}
	for _, a := range l.applied {
		t.Notes = append(t.Notes, "prices from "+a)
	}
	offs := make([]*catalog.Offering, len(rows))
	for i := range rows {
		offs[i] = rows[i].Offering
	}
	t.Notes = append(t.Notes, l.refreshNotes(offs, clock())...)
	t.Legend = true
	return t
}

// offerJSON is the JSON contract of `gpuscout offers -o json`.
type offerJSON struct {
	Provider         string       `json:"provider"`
	InstanceType     string       `json:"instance_type"`
	Region           string       `json:"region"`
	Zone             string       `json:"zone"`
	China            bool         `json:"china"`
	GPU              string       `json:"gpu"`
	GPUCount         float64      `json:"gpu_count"`
	GPUMemoryGiB     float64      `json:"gpu_memory_gib"`
	VCPUs            float64      `json:"vcpus"`
	MemoryGiB        float64      `json:"memory_gib"`
	LocalDiskGB      *float64     `json:"local_disk_gb"`
	Interconnect     string       `json:"interconnect"`
	NetworkGbps      *float64     `json:"network_gbps"`
	PricePerHour     *json.Number `json:"price_per_hour"`
	SpotPricePerHour *json.Number `json:"spot_price_per_hour"`
	SpotZone         string       `json:"spot_zone,omitempty"`
	PricePerGPUHour  *json.Number `json:"price_per_gpu_hour"`
	Currency         string       `json:"currency"`
	ConvertedFrom    string       `json:"converted_from,omitempty"`
	PriceSource      string       `json:"price_source"`
	PriceAsOf        string       `json:"price_as_of"`
	SpotSource       string       `json:"spot_source,omitempty"`
	SpotAsOf         string       `json:"spot_as_of,omitempty"`
	PriceNote        string       `json:"price_note,omitempty"`
	SpecSource       string       `json:"spec_source,omitempty"`
	Retired          string       `json:"retired,omitempty"`        // YYYY-MM-DD the provider retired the size (--include-retired)
	RetiredSource    string       `json:"retired_source,omitempty"` // the retirement notice
}

// jsonNum writes a price the one way every command does (money.Number: at
// most 6 decimals); converted says nothing about the format any more, the
// row's converted_from does.
func jsonNum(d decimal.NullDecimal, _ bool) *json.Number { return money.NullNumber(d) }

func optNum(f float64) *float64 {
	if f == 0 {
		return nil
	}
	return &f
}

func offersJSON(rows []catalog.Row, q catalog.Query) []offerJSON {
	out := make([]offerJSON, 0, len(rows))
	for _, r := range rows {
		o := r.Offering
		j := offerJSON{
			Provider: o.Provider, InstanceType: o.InstanceType, Region: o.Region, Zone: r.Zone, China: o.China,
			GPU: o.GPU.Name, GPUCount: o.GPUCount, GPUMemoryGiB: o.GPUMemoryGiB, VCPUs: o.VCPUs, MemoryGiB: o.MemoryGiB,
			LocalDiskGB: optNum(o.LocalDiskGB), Interconnect: o.Interconnect, NetworkGbps: optNum(o.NetworkGbps),
			PricePerHour: jsonNum(r.Price, r.Converted), SpotPricePerHour: jsonNum(r.Spot, r.Converted), SpotZone: r.SpotZone,
			PricePerGPUHour: jsonNum(r.PerGPU, true),
			Currency:        string(q.Currency), PriceSource: o.OnDemand.Source, PriceAsOf: o.OnDemand.AsOf,
			SpotSource: o.Spot.Source, SpotAsOf: o.Spot.AsOf, PriceNote: o.OnDemand.Note, SpecSource: o.SpecSource,
			Retired: o.Retired, RetiredSource: o.RetiredSource,
		}
		if r.Converted {
			j.ConvertedFrom = string(o.OnDemand.Currency)
		}
		out = append(out, j)
	}
	return out
}

// sourceRef names a source by id and, where known, its URL.
func sourceRef(l *loadedCatalog, id string) string {
	if s := l.cat.Source(id); s != nil && s.URL != "" {
		return id + " <" + s.URL + ">"
	}
	return id
}
