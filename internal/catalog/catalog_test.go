package catalog

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

func mustDefault(t testing.TB) *Catalog {
	t.Helper()
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDefaultLoads(t *testing.T) {
	c := mustDefault(t)
	if len(c.Offerings) < 500 || len(c.GPUs) < 30 {
		t.Fatalf("%d offerings, %d GPUs: the snapshot looks truncated", len(c.Offerings), len(c.GPUs))
	}
	want := []string{"aws", "azure", "gcp", "alibaba", "tencent", "lambda", "nebius", "vast", "seeweb", "fluidstack"}
	for _, p := range want {
		n := 0
		for i := range c.Offerings {
			if c.Offerings[i].Provider == p {
				n++
			}
		}
		if n == 0 {
			t.Errorf("provider %s has no offerings", p)
		}
	}
	// Every known price carries a source that exists and an as-of date.
	for i := range c.Offerings {
		o := &c.Offerings[i]
		for _, p := range []Price{o.OnDemand, o.Spot} {
			if p.Known && (c.Source(p.Source) == nil || len(p.AsOf) != 10 || p.Currency == "") {
				t.Errorf("%s: price %s without source/date/currency (%q %q %q)", o.Key(), p.Value, p.Source, p.AsOf, p.Currency)
			}
			if !p.Known && !p.Value.IsZero() {
				t.Errorf("%s: unknown price carries an amount", o.Key())
			}
		}
	}
	// Alibaba's and Tencent's prices come from their own published tables
	// only; the types those tables lack (Alibaba gn7s, gn8is, gn8v, ebmgn8v;
	// Tencent PNV4) stay unknown.
	sources := map[string][]string{
		"alibaba": {"karpenter-alibaba@5d2e0774"},
		"tencent": {"tencent-qcloud-gpu-prices@8ec07296", "tencent-intl-cvm-prices@b7e17ea6", "tencent-intl-gpu-prices@b7e17ea6"},
	}
	unpriced := regexp.MustCompile(`^(ecs\.(gn7s|gn8is|gn8v|ebmgn8v)[-.]|PNV4\.)`)
	for i := range c.Offerings {
		o := &c.Offerings[i]
		want, ok := sources[o.Provider]
		switch {
		case !ok:
		case unpriced.MatchString(o.InstanceType) && o.OnDemand.Known:
			t.Errorf("%s has a price, but no public table gives one", o.Key())
		case o.OnDemand.Known && !slices.Contains(want, o.OnDemand.Source):
			t.Errorf("%s is priced by %s, not by %v", o.Key(), o.OnDemand.Source, want)
		}
	}
}

func TestRequiredGPUs(t *testing.T) {
	c := mustDefault(t)
	for _, n := range []string{"V100", "T4", "A10", "A10G", "L4", "L40S", "A100-40GB", "A100-80GB", "A100-SXM4-80GB", "A100-PCIe-80GB",
		"H100-PCIe-80GB", "H100-SXM5-80GB", "H800", "H20", "H200", "GH200", "B200", "MI300X", "Inferentia2", "Trainium"} {
		if gs, err := c.LookupGPU(n); err != nil || len(gs) == 0 {
			t.Errorf("LookupGPU(%q) = %v, %v", n, gs, err)
		}
	}
	// Datasheet figures checked against research-notes/gpu-bench.md section 5.
	h100 := c.GPU("H100-SXM5-80GB")
	if h100.BF16.Value != 989 || h100.MemoryBandwidth.Value != 3350 || h100.FP32.Value != 67 || h100.InterconnectBW.Value != 900 {
		t.Errorf("H100 SXM figures = %+v", h100)
	}
	if t4 := c.GPU("T4"); !t4.BF16.Unsupported || t4.BF16.Known {
		t.Error("T4 BF16 must be 'not supported'")
	}
	if a10g := c.GPU("A10G"); a10g.BF16.Known || a10g.FP32.Known {
		t.Error("A10G compute has no source and must stay unknown")
	}
}

func TestLookupGPU(t *testing.T) {
	c := mustDefault(t)
	names := func(gs []*GPU) string {
		var s []string
		for _, g := range gs {
			s = append(s, g.Name)
		}
		sort.Strings(s)
		return strings.Join(s, ",")
	}
	for _, tc := range []struct{ in, want string }{
		{"NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"},
		{"a100_sxm4_80gb", "A100-SXM4-80GB"},
		{"a100-80gb", "A100-80GB,A100-PCIe-80GB,A100-SXM4-80GB"},
		{"A100-80GB", "A100-80GB,A100-PCIe-80GB,A100-SXM4-80GB"},
		{"Tesla T4", "T4"},
		{"NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"},
		{"nvidia h100 pcie", "H100-PCIe-80GB"},
		{"H800", "H800-PCIe-80GB,H800-SXM5-80GB"},
	} {
		gs, err := c.LookupGPU(tc.in)
		if err != nil || names(gs) != tc.want {
			t.Errorf("LookupGPU(%q) = %s, %v; want %s", tc.in, names(gs), err, tc.want)
		}
	}
	_, err := c.LookupGPU("A1OO")
	if ue, ok := err.(*UnknownGPUError); !ok || len(ue.Suggestions) == 0 || !strings.Contains(err.Error(), "A100") {
		t.Errorf("LookupGPU(A1OO) error = %v, want suggestions including A100", err)
	}
}

func TestResolveFeedGPU(t *testing.T) {
	c := mustDefault(t)
	for _, tc := range []struct {
		name string
		mem  float64
		hint string
		want string
	}{
		{"A100", 40, "gpu_1x_a100_sxm4", "A100-SXM4-40GB"},
		{"A100", 40, "gpu_8x_a100", "A100-40GB"}, // form factor not stated: generic
		{"A100", 80, "1x-A100_SXM4-32-65536", "A100-SXM4-80GB"},
		{"A100", 40, "2x-A100_PCIE-32-65536", "A100-PCIe-40GB"},
		{"A100", 80, "ECS1GPU3", "A100-80GB"},
		{"H100", 80, "gpu_1x_h100_pcie", "H100-PCIe-80GB"},
		{"H100", 93.6, "1x-H100_NVL-32-65536", "H100-NVL-94GB"},
		{"H100-NVLINK", 80, "H100_NVLINK_80GB::8", "H100-SXM5-80GB"},
		{"H100", 0, "gpu-h100-sxm_8gpu-128vcpu-1600gb", "H100-SXM5-80GB"},
		{"L40S", 45, "1x-L40S-32-65536", "L40S"},
		{"RTXA6000", 47.25, "x", "RTX-A6000"},
	} {
		g, err := c.ResolveFeedGPU(tc.name, tc.mem, tc.hint)
		if err != nil || g.Name != tc.want {
			t.Errorf("ResolveFeedGPU(%s, %v, %s) = %v, %v; want %s", tc.name, tc.mem, tc.hint, g, err, tc.want)
		}
	}
	if _, err := c.ResolveFeedGPU("A100", 24, "x"); err == nil {
		t.Error("a 24 GiB A100 resolved")
	}
}

func TestOfferingsCSVRoundTrip(t *testing.T) {
	c := mustDefault(t)
	var buf bytes.Buffer
	if err := WriteOfferingsCSV(&buf, c.Offerings); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), Embedded().Offerings) {
		t.Error("writing the parsed snapshot does not reproduce it byte for byte")
	}
	back, err := c.ReadOfferingsCSV(&buf)
	if err != nil || len(back) != len(c.Offerings) {
		t.Fatalf("read back %d offerings, %v", len(back), err)
	}
	for i := range back {
		a, b := back[i], c.Offerings[i]
		if a.Key() != b.Key() || !a.OnDemand.Value.Equal(b.OnDemand.Value) || a.GPU != b.GPU || a.Spot.Known != b.Spot.Known {
			t.Fatalf("offering %d differs after a round trip: %+v vs %+v", i, a, b)
		}
	}
}

func TestQueryCheapestRegionPerType(t *testing.T) {
	c := mustDefault(t)
	a100, _ := c.LookupGPU("A100")
	rows, err := c.Query(Query{GPUs: a100, GPUCount: 8})
	if err != nil {
		t.Fatal(err)
	}
	// Independent computation: the minimum known on-demand price of each
	// type, in USD (the query's default currency) at the default rates.
	fx := money.DefaultFX()
	minPrice := map[string]decimal.Decimal{}
	unpriced := map[string]bool{}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if o.GPU.Family == "A100" && o.GPUCount == 8 && !o.OnDemand.Known {
			unpriced[o.Provider+"/"+o.InstanceType] = true
		}
		if o.GPU.Family != "A100" || o.GPUCount != 8 || !o.OnDemand.Known {
			continue
		}
		usd, err := fx.Convert(o.OnDemand.Value, o.OnDemand.Currency, money.USD)
		if err != nil {
			t.Fatal(err)
		}
		k := o.Provider + "/" + o.InstanceType
		if m, ok := minPrice[k]; !ok || usd.LessThan(m) {
			minPrice[k] = usd
		}
	}
	seen := map[string]bool{}
	prev := -1.0
	for _, r := range rows {
		k := r.Offering.Provider + "/" + r.Offering.InstanceType
		if seen[k] {
			t.Errorf("%s listed twice", k)
		}
		seen[k] = true
		if r.Offering.GPU.Family != "A100" || r.Offering.GPUCount != 8 {
			t.Errorf("%s is not 8×A100", k)
		}
		if !r.Price.Valid {
			continue
		}
		// Prices equal to the sources' rounding (1e-6 relative) tie; the spot price breaks the tie.
		if d := r.Price.Decimal.Sub(minPrice[k]).Abs().InexactFloat64(); d > 1e-6*minPrice[k].InexactFloat64() {
			t.Errorf("%s: price %s, cheapest region has %s", k, r.Price.Decimal, minPrice[k])
		}
		p := r.Price.Decimal.InexactFloat64()
		if p < prev {
			t.Errorf("rows not sorted by price at %s", k)
		}
		prev = p
	}
	for k := range minPrice {
		delete(unpriced, k) // priced in some region
	}
	if len(seen) != len(minPrice)+len(unpriced) || len(minPrice) < 10 {
		t.Errorf("%d types listed, want %d priced + %d unpriced", len(seen), len(minPrice), len(unpriced))
	}
	// Unknown prices sort last.
	if last := rows[len(rows)-1]; len(unpriced) > 0 && last.Price.Valid {
		t.Errorf("last row %s has a price; unknown prices should sort last", last.Offering.Key())
	}
}

func TestQueryFilters(t *testing.T) {
	c := mustDefault(t)
	yes := true
	rows, _ := c.Query(Query{China: &yes, AllRegions: true})
	if len(rows) == 0 {
		t.Fatal("no mainland-China offerings")
	}
	for _, r := range rows {
		if !r.Offering.China {
			t.Errorf("%s is not in mainland China", r.Offering.Key())
		}
	}
	h100, _ := c.LookupGPU("H100")
	rows, _ = c.Query(Query{GPUs: h100, Spot: true, AllRegions: true})
	prev := 0.0
	for _, r := range rows {
		if !r.Spot.Valid {
			t.Fatalf("%s has no spot price", r.Offering.Key())
		}
		if v := r.Spot.Decimal.InexactFloat64(); v < prev {
			t.Fatalf("not sorted by spot price at %s", r.Offering.Key())
		} else {
			prev = v
		}
	}
	max := decimal.NullDecimal{Decimal: decimal.NewFromInt(2), Valid: true}
	rows, _ = c.Query(Query{MaxPrice: max, Providers: []string{"lambda"}, AllRegions: true})
	for _, r := range rows {
		if !r.Price.Valid || r.Price.Decimal.GreaterThan(max.Decimal) || r.Offering.Provider != "lambda" {
			t.Errorf("%s at %v passed --max-price 2 --provider lambda", r.Offering.Key(), r.Price)
		}
	}
	rows, _ = c.Query(Query{Interconnects: []string{LinkNVSwitch}, MinGPUMemoryGiB: 80})
	for _, r := range rows {
		if r.Offering.Interconnect != LinkNVSwitch || r.Offering.GPUMemoryClassGB() < 80 {
			t.Errorf("%s: link %s mem %v", r.Offering.Key(), r.Offering.Interconnect, r.Offering.GPUMemoryGiB)
		}
	}
}

func TestQueryCurrencyAndSorts(t *testing.T) {
	c := mustDefault(t)
	p5, _ := c.LookupGPU("H100-SXM5-80GB")
	rows, _ := c.Query(Query{GPUs: p5, Providers: []string{"aws"}, Regions: []string{"us-east-1"}, GPUCount: 8, Currency: money.CNY})
	if len(rows) != 1 || rows[0].Offering.InstanceType != "p5.48xlarge" {
		t.Fatalf("rows = %+v", rows)
	}
	// 55.04 USD at the default 7.1843 CNY/USD.
	if want := decimal.RequireFromString("55.04").Mul(decimal.RequireFromString("7.1843")); !rows[0].Price.Decimal.Equal(want) || !rows[0].Converted {
		t.Errorf("CNY price = %s (converted %v), want %s", rows[0].Price.Decimal, rows[0].Converted, want)
	}
	// Zones merge into the region: the lowest spot price of us-east-1's zones (16.9508 in use1-az6).
	if !rows[0].Spot.Decimal.Equal(decimal.RequireFromString("16.9508").Mul(decimal.RequireFromString("7.1843"))) || rows[0].SpotZone != "use1-az6" {
		t.Errorf("spot = %s in %s, want 16.9508 USD in use1-az6", rows[0].Spot.Decimal, rows[0].SpotZone)
	}
	rows, _ = c.Query(Query{GPUs: p5, Providers: []string{"aws"}, Regions: []string{"us-east-1"}, GPUCount: 8, Sort: SortBF16})
	if want := 55.04 / (8 * 0.989); math.Abs(rows[0].SortValue-want) > 1e-9 {
		t.Errorf("USD per BF16 PFLOP-hour = %v, want %v", rows[0].SortValue, want)
	}
	rows, _ = c.Query(Query{Sort: SortGPUHour, AllRegions: true})
	prev := 0.0
	for _, r := range rows {
		if math.IsNaN(r.SortValue) {
			continue
		}
		if r.SortValue < prev*(1-1e-6)-1e-12 {
			t.Fatalf("gpu-hour sort out of order at %s", r.Offering.Key())
		}
		prev = r.SortValue
		if want := r.Price.Decimal.InexactFloat64() / r.Offering.GPUCount; math.Abs(r.SortValue-want) > 1e-9 {
			t.Fatalf("%s: per-GPU-hour %v, want %v", r.Offering.Key(), r.SortValue, want)
		}
	}
	if _, err := c.Query(Query{Currency: "JPY"}); err == nil {
		t.Error("JPY accepted without a rate")
	}
}

func TestResolveRegion(t *testing.T) {
	c := mustDefault(t)
	if got := c.ResolveRegion("华东1"); len(got) != 1 || got[0] != "cn-hangzhou" {
		t.Errorf("华东1 -> %v, want cn-hangzhou", got)
	}
	if got := c.ResolveRegion("US-EAST-1"); len(got) != 1 || got[0] != "us-east-1" {
		t.Errorf("US-EAST-1 -> %v", got)
	}
	if got := c.ResolveRegion("北京"); len(got) != 3 {
		t.Errorf("北京 -> %v, want the AWS, Alibaba and Tencent Beijing regions", got)
	}
}

func TestParseRejectsBrokenTables(t *testing.T) {
	f := Embedded()
	bad := f
	bad.GPUs = []byte("- {name: X, vendor: V, family: X, memory_gib: 8}\n") // a figure without a source
	if _, err := ParseSpecs(bad); err == nil {
		t.Error("figure without a source accepted")
	}
	bad = f
	bad.Offerings = []byte(strings.Replace(string(f.Offerings), "skypilot-v9@2c3d7ea7", "nowhere", 1))
	if _, err := Parse(bad); err == nil {
		t.Error("offering citing an unknown source accepted")
	}
}

func BenchmarkParseEmbedded(b *testing.B) {
	for b.Loop() {
		if _, err := Parse(Embedded()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQueryAll(b *testing.B) {
	c := mustDefault(b)
	a100, _ := c.LookupGPU("A100")
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Query(Query{Sort: SortGPUHour}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Query(Query{GPUs: a100, GPUCount: 8, Currency: money.CNY}); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzReadOfferingsCSV(f *testing.F) {
	c, err := Default()
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitN(string(Embedded().Offerings), "\n", 4)
	f.Add(strings.Join(lines[:3], "\n"))
	f.Fuzz(func(t *testing.T, s string) {
		offs, err := c.ReadOfferingsCSV(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, o := range offs {
			if o.GPU == nil {
				t.Fatal("offering without a GPU accepted")
			}
		}
	})
}
