package cost

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds/awsprices"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func engine(t testing.TB) *Engine {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return &Engine{Catalog: c, FX: money.DefaultFX(), Currency: money.USD}
}

func offering(t testing.TB, c *catalog.Catalog, provider, typ, region string) *catalog.Offering {
	t.Helper()
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if o.Provider == provider && o.InstanceType == typ && o.Region == region {
			return o
		}
	}
	t.Fatalf("%s/%s/%s not in the catalog", provider, typ, region)
	return nil
}

func find(t testing.TB, opts []Option, model, term, payment, class string) *Option {
	t.Helper()
	for i := range opts {
		o := &opts[i]
		if o.Model == model && o.Term == term && o.Payment == payment && o.Class == class {
			return o
		}
	}
	t.Fatalf("no option %s %s %s %s", model, term, payment, class)
	return nil
}

func usage(t testing.TB, u Usage) *Usage {
	t.Helper()
	r, err := u.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	return &r
}

// m5LargeEngine prices the m5.large record of shared/data with all twelve
// Reserved Instance offerings as the catalog's commitments.
func m5LargeEngine(t *testing.T) (*Engine, *catalog.Offering) {
	f := shareddata.Open(t, "price-feeds", "aws-pricing-getproducts-m5large-us-east-1.json")
	pl, _, err := awsprices.ParsePriceList(f, awsprices.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ps := pl.Products
	e := engine(t)
	e.Catalog.Commitments = nil
	o := catalog.Offering{Provider: "aws", InstanceType: "m5.large", Region: "us-east-1", GPU: e.Catalog.GPU("T4"), GPUCount: 1,
		OnDemand: catalog.Price{Known: true, Amount: money.New(ps[0].OnDemand.Decimal, money.USD), Source: "test", AsOf: "2021-02-05"}}
	for _, r := range ps[0].Reserved {
		e.Catalog.Commitments = append(e.Catalog.Commitments, catalog.Commitment{Provider: "aws", InstanceType: "m5.large", Region: "us-east-1",
			Model: catalog.ModelReserved, Term: r.Term(), Payment: r.Payment(), Class: r.OfferingClass, Upfront: r.Upfront, Hourly: r.Hourly,
			Currency: money.USD, Source: "aws-pricing-getproducts-m5large", AsOf: "2021-02-05"})
	}
	return e, &o
}

// TestReservedInstanceEffectiveRates: the six standard options of the m5.large
// record. Hand calculation (research-notes/pricing.md §4): E = U/(730·n) + R
// gives 0.0600/0.0578/0.0564 (1y) and 0.0410/0.0382/0.0361 (3y) $/h.
func TestReservedInstanceEffectiveRates(t *testing.T) {
	e, o := m5LargeEngine(t)
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 36})
	opts, err := e.Price(u, o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"1y/no-upfront": "0.0600", "1y/partial-upfront": "0.0578", "1y/all-upfront": "0.0564",
		"3y/no-upfront": "0.0410", "3y/partial-upfront": "0.0382", "3y/all-upfront": "0.0361"}
	for k, w := range want {
		term, pay, _ := strings.Cut(k, "/")
		opt := find(t, opts, catalog.ModelReserved, term, pay, "standard")
		if got := opt.EffectiveTermHourly().Decimal.Round(4).StringFixed(4); got != w {
			t.Errorf("%s: effective %s, want %s", k, got, w)
		}
		// Break-even h* = 730·E/P with P = 0.096.
		wantBE := 730 * opt.EffectiveTermHourly().Decimal.InexactFloat64() / 0.096
		if math.Abs(*opt.Breakeven-wantBE) > 1e-9 || !opt.Feasible {
			t.Errorf("%s: break-even %v, want %v", k, *opt.Breakeven, wantBE)
		}
	}
	// All-upfront is never cheaper than the sum of its cash: total = upfront for a 3y term, no on-demand left.
	all3 := find(t, opts, catalog.ModelReserved, "3y", "all-upfront", "standard")
	if !all3.Total.Value.Equal(all3.Upfront.Value) || len(all3.Schedule) != 1 || !all3.Upfront.Value.Equal(dec("949")) {
		t.Errorf("3y all-upfront total %s, upfront %s, %d flows", all3.Total, all3.Upfront, len(all3.Schedule))
	}
	// 1y terms renew three times over a 3y horizon: three upfront payments at months 0, 12, 24.
	all1 := find(t, opts, catalog.ModelReserved, "1y", "all-upfront", "standard")
	if n := len(all1.Schedule); n != 3 || all1.Schedule[2].From != 24 {
		t.Errorf("1y all-upfront over 3y: %+v", all1.Schedule)
	}
	// AWS charges the monthly RI fee at the start of each month: month 1's fee is paid at index 0.
	none1 := find(t, opts, catalog.ModelReserved, "1y", "no-upfront", "standard")
	if f := none1.Schedule[0]; f.Kind != FlowCommitment || f.From != 0 || f.To != 11 || !f.PerMonth.Equal(dec("43.8")) {
		t.Errorf("1y no-upfront flows: %+v", none1.Schedule)
	}
}

// TestImpliedInterest: paying upfront instead of monthly earns about 14.7%/yr
// on the 1y term and 9.3%/yr on the 3y term (research-notes/pricing.md §4,
// with AWS's monthly RI fees paid at the start of each month).
func TestImpliedInterest(t *testing.T) {
	e, o := m5LargeEngine(t)
	opts, _ := e.Price(usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 36}), o)
	for term, want := range map[string]float64{"1y": 0.147, "3y": 0.093} {
		opt := find(t, opts, catalog.ModelReserved, term, "all-upfront", "standard")
		if opt.ImpliedRate == nil || math.Abs(*opt.ImpliedRate-want) > 0.0015 {
			t.Errorf("%s all-upfront implied rate %v, want ≈ %v", term, *opt.ImpliedRate, want)
		}
		// Check the root: the upfront fee equals the discounted no-upfront fees at that rate.
		none := find(t, opts, catalog.ModelReserved, term, "no-upfront", "standard")
		i := math.Pow(1+*opt.ImpliedRate, 1.0/12) - 1
		n := catalog.TermMonths(term)
		diff := (none.commitment.Hourly.InexactFloat64() - opt.commitment.Hourly.InexactFloat64()) * 730
		pv := diff * (1 - math.Pow(1+i, -float64(n))) / i * (1 + i) // annuity-due: fees at each month's start
		if math.Abs(pv-opt.commitment.Upfront.InexactFloat64()) > 0.01 {
			t.Errorf("%s: PV of the saved fees %.4f != upfront %s", term, pv, opt.commitment.Upfront)
		}
	}
}

// TestGCPCommitment: a2-highgpu-8g us-central1, 1y and 3y CUDs billed monthly.
// Hand calculation: E1y = 13514.9691136/730 = 18.5136563..., P = 29.38708,
// h* = 730·E/P = 13514.9691136/29.38708 = 459.89 h/month; 3y: 7508.53662384/29.38708 = 255.50 h/month.
func TestGCPCommitment(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "gcp", "a2-highgpu-8g", "us-central1")
	u := usage(t, Usage{HoursPerMonth: 420, HorizonMonths: 36, DiscountRate: dec("0.08")})
	opts, err := e.Price(u, o)
	if err != nil {
		t.Fatal(err)
	}
	for term, want := range map[string]float64{"1y": 13514.9691136 / 29.38708, "3y": 7508.53662384 / 29.38708} {
		opt := find(t, opts, catalog.ModelCommitment, term, catalog.PayMonthly, "")
		if math.Abs(*opt.Breakeven-want) > 1e-6 {
			t.Errorf("%s break-even %v, want %v", term, *opt.Breakeven, want)
		}
		// No upfront: the NPV break-even equals the plain one.
		if math.Abs(*opt.BreakevenNPV-*opt.Breakeven) > 1e-6 {
			t.Errorf("%s NPV break-even %v differs from %v without any upfront", term, *opt.BreakevenNPV, *opt.Breakeven)
		}
	}
	// 3y total = 36 × 7508.53662384; on-demand = 36 × 420 × 29.38708.
	c3 := find(t, opts, catalog.ModelCommitment, "3y", catalog.PayMonthly, "")
	if want := dec("7508.53662384").Mul(decimal.NewFromInt(36)); !c3.Total.Value.Equal(want) {
		t.Errorf("3y total %s, want %s", c3.Total, want)
	}
	od := find(t, opts, ModelOnDemand, "", "", "")
	if want := dec("29.38708").Mul(decimal.NewFromInt(420 * 36)); !od.Total.Value.Sub(want).Abs().LessThan(dec("0.000001")) {
		t.Errorf("on-demand total %s, want %s", od.Total, want)
	}
	// At 420 h/month the 3y commitment (break-even 255.5 h) beats on-demand, the 1y (459.9 h) does not.
	c1 := find(t, opts, catalog.ModelCommitment, "1y", catalog.PayMonthly, "")
	if !c3.Total.Value.LessThan(od.Total.Value) || !c1.Total.Value.GreaterThan(od.Total.Value) {
		t.Errorf("at 420 h/month: 3y %s, 1y %s, on-demand %s", c3.Total, c1.Total, od.Total)
	}
	if !strings.Contains(strings.Join(c3.Explanation, "\n"), "wins above 256 h/month") {
		t.Errorf("explanation lacks the break-even: %v", c3.Explanation)
	}
}

func TestNPVAtZeroIsTheSum(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "gcp", "a3-highgpu-8g", "us-central1")
	u := usage(t, Usage{HoursPerMonth: 500, HorizonMonths: 30, Egress: map[string]float64{"internet": 3000}})
	opts, _ := e.Price(u, o)
	for _, opt := range opts {
		if opt.Known && !opt.NPV.Value.Equal(opt.Total.Value) {
			t.Errorf("%s %s: NPV at 0%% %s != total %s", opt.Model, opt.Term, opt.NPV, opt.Total)
		}
	}
	u.DiscountRate = dec("0.1")
	opts, _ = e.Price(u, o)
	for _, opt := range opts {
		if opt.Known && !opt.NPV.Value.LessThan(opt.Total.Value) {
			t.Errorf("%s %s: NPV at 10%% %s not below total %s", opt.Model, opt.Term, opt.NPV, opt.Total)
		}
	}
}

// TestEgressTiers: 60,000 GB to the internet from AWS crosses two tier
// boundaries. Hand calculation, the tiers alone (EgressCost): 10,240 × 0.09 =
// 921.60; 40,960 × 0.085 = 3,481.60; 8,800 × 0.07 = 616.00; total 5,019.20 USD
// a month. With the account's free 100 GB (EgressMonth): 59,900 billed, the
// last tier 8,700 × 0.07 = 609.00; total 5,012.20.
func TestEgressTiers(t *testing.T) {
	c, _ := catalog.Default()
	got, ok, _ := EgressCost(c.Egress("aws", "us-east-1"), catalog.PathInternet, 60000)
	if !ok || !got.Equal(dec("5019.2")) {
		t.Errorf("AWS 60,000 GB internet, tiers alone = %s (%v), want 5019.20", got, ok)
	}
	if pcs := EgressMonth(c.Egress("aws", "us-east-1"), map[string]float64{catalog.PathInternet: 60000}); len(pcs) != 1 || !pcs[0].Cost.Equal(dec("5012.2")) || pcs[0].FreeGB != 100 {
		t.Errorf("AWS 60,000 GB internet in a month = %+v, want 5012.20 with 100 GB free", pcs)
	}
	// Cross-AZ is billed both ways: 1,000 GB × 0.01 × 2 = 20.
	if got, _, _ := EgressCost(c.Egress("aws", "us-east-1"), catalog.PathCrossZone, 1000); !got.Equal(dec("20")) {
		t.Errorf("AWS cross-zone 1000 GB = %s, want 20", got)
	}
	// GCP prices per GiB: 2,000 GB = 1862.645 GiB: 1024 × 0.12 + 838.645 × 0.11.
	gib := 2000 * 1e9 / (1 << 30)
	want := 1024*0.12 + (gib-1024)*0.11
	if got, _, _ := EgressCost(c.Egress("gcp", "us-central1"), catalog.PathInternet, 2000); math.Abs(got.InexactFloat64()-want) > 1e-6 {
		t.Errorf("GCP 2000 GB = %s, want %v", got, want)
	}
	// Azure has no sourced price above 10 TB, nor across regions: unknown, not zero.
	if _, ok, why := EgressCost(c.Egress("azure", "eastus"), catalog.PathInternet, 20000); ok || why == "" {
		t.Error("Azure 20 TB priced")
	}
	if _, ok, _ := EgressCost(c.Egress("alibaba", "cn-hangzhou"), catalog.PathInternet, 1); ok {
		t.Error("Alibaba egress priced without a source")
	}
}

// TestCrossRegionTrap: the article's forgotten cross-region sync is visible.
func TestCrossRegionTrap(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "g5.xlarge", "us-east-1")
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12, Egress: map[string]float64{"cross-region": 115000}})
	opts, _ := e.Price(u, o)
	od := find(t, opts, ModelOnDemand, "", "", "")
	// 115,000 GB × 0.02 = 2,300 USD a month: the article's figure.
	if got := od.Schedule.TotalOf(FlowEgress); !got.Equal(dec("27600")) {
		t.Errorf("12 months of cross-region sync = %s, want 27600", got)
	}
	if !strings.Contains(strings.Join(od.Explanation, "\n"), "2,300.00 USD/month") || !strings.Contains(strings.Join(od.Explanation, "\n"), "one zone would cost 0") {
		t.Errorf("explanation: %v", od.Explanation)
	}
}

// TestCreditExpiresMidHorizon: g5.xlarge on-demand 1.006/h × 730 h = 734.38 a
// month; a 2,000 USD credit expiring after 2 months pays 1,468.76 and loses 531.24.
func TestCreditExpiresMidHorizon(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "g5.xlarge", "us-east-1")
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12, Credits: []Credit{
		{Name: "credit", Amount: dec("2000"), Currency: money.USD, ExpiresMonths: 2, Providers: []string{"aws"}}}})
	opts, _ := e.Price(u, o)
	od := find(t, opts, ModelOnDemand, "", "", "")
	if got := od.Schedule.TotalOf(FlowCredit); !got.Equal(dec("-1468.76")) {
		t.Errorf("credit used %s, want -1468.76", got)
	}
	if want := dec("734.38").Mul(decimal.NewFromInt(12)).Sub(dec("1468.76")); !od.Total.Value.Equal(want) {
		t.Errorf("total %s, want %s", od.Total, want)
	}
	if !strings.Contains(strings.Join(od.Explanation, "\n"), "531.24 USD goes unused") {
		t.Errorf("explanation: %v", od.Explanation)
	}
	// A credit for another provider changes nothing.
	u.Credits[0].Providers = []string{"gcp"}
	opts, _ = e.Price(u, o)
	if od := find(t, opts, ModelOnDemand, "", "", ""); !od.Schedule.TotalOf(FlowCredit).IsZero() {
		t.Error("a GCP credit paid an AWS bill")
	}
	// A credit larger than the bill stops at the bill.
	u.Credits = []Credit{{Name: "big", Amount: dec("100000"), Currency: money.USD}}
	opts, _ = e.Price(u, o)
	if od := find(t, opts, ModelOnDemand, "", "", ""); !od.Total.IsZero() {
		t.Errorf("total with a huge credit %s, want 0", od.Total)
	}
}

// TestFirstMonthDiscount: 90% off month 1 of a 3-month g5.xlarge run.
func TestFirstMonthDiscount(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "g5.xlarge", "us-east-1")
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 3, Promotions: []Promotion{{Kind: PromoFirstMonth, Percent: dec("0.9"), Providers: []string{"aws"}}}})
	opts, _ := e.Price(u, o)
	od := find(t, opts, ModelOnDemand, "", "", "")
	// 734.38 × 3 − 0.9 × 734.38 = 1542.198
	if !od.Total.Value.Equal(dec("1542.198")) {
		t.Errorf("total %s, want 1542.198", od.Total)
	}
}

// TestStudentPrice: 0.5/h for 4 h a day on a 7-day 24/7 job: 28 h at the student price.
func TestStudentPrice(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "g5.xlarge", "us-east-1")
	u := usage(t, Usage{DurationHours: 168, Promotions: []Promotion{{Kind: PromoStudent, PricePerHour: dec("0.5"), Currency: money.USD, DailyHours: 4}}})
	opts, _ := e.Price(u, o)
	od := find(t, opts, ModelOnDemand, "", "", "")
	// 168 × 1.006 − 28 × (1.006 − 0.5) = 169.008 − 14.168 = 154.84
	if !od.Total.Value.Sub(dec("154.84")).Abs().LessThan(dec("0.000001")) {
		t.Errorf("total %s, want 154.84", od.Total)
	}
}

// TestShortJobOnCommitment: a 7-day job cannot use a 1-year commitment; buying it anyway costs the whole term.
func TestShortJobOnCommitment(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "gcp", "a2-highgpu-8g", "us-central1")
	u := usage(t, Usage{DurationHours: 168})
	opts, _ := e.Price(u, o)
	c1 := find(t, opts, catalog.ModelCommitment, "1y", catalog.PayMonthly, "")
	if c1.Feasible || !c1.UnusedTermCost.Valid || !c1.UnusedTermCost.Decimal.Equal(dec("13514.9691136").Mul(decimal.NewFromInt(12))) {
		t.Errorf("1y on a 7-day job: feasible %v, unused %v", c1.Feasible, c1.UnusedTermCost)
	}
	if opts[0].Model != ModelSpot && opts[0].Model != ModelOnDemand {
		t.Errorf("best option for a 7-day job is %s", opts[0].Model)
	}
	od := find(t, opts, ModelOnDemand, "", "", "")
	if !od.Total.Value.Equal(dec("29.38708").Mul(decimal.NewFromInt(168))) {
		t.Errorf("7-day on-demand %s", od.Total)
	}
}

// TestSpotOverhead: the spot option bills the simulator's expected hours.
// Closed form for spot-only under Poisson interruptions (M = 1/λ), checkpoints
// every τ = 1 h at no cost and restarts R = 10 min: each 1 h segment takes
// (M+R)(e^{τ/M}−1) on average, so 100 h of work bill 100·(M+R)(e^{1/M}−1) hours.
func TestSpotOverhead(t *testing.T) {
	e := engine(t)
	e.Spot = &SimModel{Runs: 20000}
	o := offering(t, e.Catalog, "aws", "p4d.24xlarge", "us-east-1")
	u := usage(t, Usage{DurationHours: 100, Spot: SpotAssumptions{Band: ">20%"}})
	opts, err := e.Price(u, o)
	if err != nil {
		t.Fatal(err)
	}
	s := find(t, opts, ModelSpot, "", "", "")
	m := 730 / -math.Log(1-0.2) // ">20%": the band's lower bound
	// The spot price is the region's cheapest zone's, as offers and spot quote it.
	want := e.Catalog.SpotQuoteFor(o).Price.Value.InexactFloat64() * 100 * (m + 10.0/60) * math.Expm1(1/m)
	if math.Abs(s.Total.Value.InexactFloat64()-want) > 0.01*want {
		t.Errorf("spot total %s, closed form %v", s.Total, want)
	}
	od := find(t, opts, ModelOnDemand, "", "", "")
	if !s.Total.Value.LessThan(od.Total.Value) {
		t.Error("spot dearer than on-demand for p4d")
	}
	// The same shape is simulated once and then served from the cache.
	if _, err := e.Price(u, o); err != nil || len(e.Spot.(*SimModel).cache) != 1 {
		t.Errorf("cache holds %d shapes after two identical pricings", len(e.Spot.(*SimModel).cache))
	}
}

func TestWindowsAndHybridBenefit(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "azure", "Standard_ND96isr_H100_v5", "eastus")
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 1, License: "windows"})
	opts, _ := e.Price(u, o)
	od := find(t, opts, ModelOnDemand, "", "", "")
	ahb := find(t, opts, ModelHybridBenefit, "", "", "")
	// (98.32 + 4.416) × 730 vs 98.32 × 730: AHB saves 4.416 × 730 = 3223.68.
	if !od.Total.Value.Sub(ahb.Total.Value).Equal(dec("3223.68")) {
		t.Errorf("Windows %s, AHB %s: difference should be 3223.68", od.Total, ahb.Total)
	}
	// No sourced Windows price on AWS: unknown.
	o = offering(t, e.Catalog, "aws", "g5.xlarge", "us-east-1")
	opts, _ = e.Price(u, o)
	if od := find(t, opts, ModelOnDemand, "", "", ""); od.Known {
		t.Error("AWS Windows priced without a source")
	}
}

func TestUnpricedSchemesListed(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "alibaba", "ecs.gn7i-c8g1.2xlarge", "cn-hangzhou")
	opts, _ := e.Price(usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 36}), o)
	sub := find(t, opts, catalog.ModelSubscription, "1y", catalog.PayAll, "")
	if sub.Known || len(sub.UnknownLines()) == 0 || !sub.Feasible {
		t.Errorf("Alibaba 包年包月 1y: %+v", sub)
	}
}

func TestValidate(t *testing.T) {
	for name, u := range map[string]Usage{
		"too many hours":   {HoursPerMonth: 800},
		"short horizon":    {DurationHours: 0.001},
		"job over horizon": {DurationHours: 1000, HorizonMonths: 1},
		"license":          {License: "macos"},
		"rate":             {DiscountRate: dec("-2")},
		"rate 800%":        {DiscountRate: dec("8")},
		"negative egress":  {Egress: map[string]float64{"internet": -1}},
		"huge credit":      {Credits: []Credit{{Name: "c", Amount: dec("1e300"), Currency: "USD"}}},
		"spot band 200%":   {Spot: SpotAssumptions{Band: "200%"}},
		"10000 instances":  {Instances: MaxInstances + 1},
	} {
		if _, err := u.Resolved(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Validation never changes what it checks; defaults come from WithDefaults.
func TestValidateDoesNotMutate(t *testing.T) {
	u := Usage{DurationHours: 168, Egress: map[string]float64{"internet": 5}}
	before := fmt.Sprintf("%+v", u)
	_ = u.Validate()
	if got := fmt.Sprintf("%+v", u); got != before {
		t.Fatalf("Validate changed the usage:\n%s\n%s", before, got)
	}
	r, err := u.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%+v", u); got != before {
		t.Fatalf("Resolved changed its receiver:\n%s\n%s", before, got)
	}
	if r.Instances != 1 || r.HoursPerMonth != catalog.HoursPerMonth || r.License != "linux" || math.Abs(r.HorizonMonths-168.0/730) > 1e-12 {
		t.Fatalf("defaults: %+v", r)
	}
	r.Egress["internet"] = 9
	if u.Egress["internet"] != 5 {
		t.Fatal("WithDefaults shares the egress map with its receiver")
	}
}

func TestMerge(t *testing.T) {
	file := Usage{Instances: 3, HoursPerMonth: 420, DiscountRate: dec("0.08"), Egress: map[string]float64{"internet": 100, "cross-zone": 50},
		Credits: []Credit{{Name: "file", Amount: dec("10"), Currency: "USD"}}}
	flags := Usage{Instances: 0, DurationHours: 168, DiscountRate: dec("0"), Egress: map[string]float64{"internet": 7},
		Credits: []Credit{{Name: "flag", Amount: dec("5"), Currency: "USD"}}}
	// A flag set to its zero value still wins: --discount-rate 0% over the file's 8%.
	got := file.Merge(flags, FieldDuration, FieldDiscountRate, FieldEgress, FieldCredits)
	if got.Instances != 3 {
		t.Errorf("instances = %d, want the file's 3 (flag not set)", got.Instances)
	}
	if got.DurationHours != 168 || got.HoursPerMonth != 0 {
		t.Errorf("duration/hours = %v/%v, want 168/0 (--for replaces the file's steady load)", got.DurationHours, got.HoursPerMonth)
	}
	if !got.DiscountRate.IsZero() {
		t.Errorf("discount rate = %s, want 0 (the flag was set)", got.DiscountRate)
	}
	if got.Egress["internet"] != 7 || got.Egress["cross-zone"] != 50 {
		t.Errorf("egress = %v, want internet from the flag, cross-zone from the file", got.Egress)
	}
	if len(got.Credits) != 1 || got.Credits[0].Name != "flag" {
		t.Errorf("credits = %v, want the flag's only", got.Credits)
	}
	if file.Egress["internet"] != 100 || file.HoursPerMonth != 420 {
		t.Error("Merge changed its receiver")
	}
	if got := file.Merge(flags, FieldInstances); got.Instances != 0 {
		t.Errorf("instances = %d: a set flag wins even at zero (validation then rejects it)", got.Instances)
	}
}

func TestParseDurationZero(t *testing.T) {
	for _, in := range []string{"0", "0m", "0s", "0h", "0d"} {
		if h, err := ParseNonNegativeDuration(in); err != nil || h != 0 {
			t.Errorf("ParseNonNegativeDuration(%q) = %v, %v; want 0", in, h, err)
		}
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted zero", in)
		}
	}
	if _, err := ParseDuration("200y"); err == nil || !strings.Contains(err.Error(), "too long: at most 100y") {
		t.Errorf("ParseDuration(200y) = %v; want too long", err)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]float64{"7d": 168, "168h": 168, "3mo": 2190, "1y": 8760, "1y6mo": 8760 + 6*730, "90m": 1.5, "2w": 336, "60s": 1.0 / 60} {
		got, err := ParseDuration(in)
		if err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "7", "d", "-1d", "7x", "1.2.3h"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}

// BenchmarkPriceWholeCatalog prices one usage on every offering under every model.
func BenchmarkPriceWholeCatalog(b *testing.B) {
	e := engine(b)
	u := usage(b, Usage{HoursPerMonth: 420, HorizonMonths: 36, DiscountRate: dec("0.08"), Egress: map[string]float64{"internet": 2000, "cross-region": 500}})
	b.ResetTimer()
	for b.Loop() {
		for i := range e.Catalog.Offerings {
			if _, err := e.Price(u, &e.Catalog.Offerings[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestCreditPaysAdvanceFees: AWS RI fees are billed at each month's start
// (month 0 holds the first); a 100 USD credit pays 43.80 + 43.80 + 12.40 of them.
func TestCreditPaysAdvanceFees(t *testing.T) {
	e, o := m5LargeEngine(t)
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12, Credits: []Credit{{Name: "c", Amount: dec("100"), Currency: money.USD}}})
	opts, err := e.Price(u, o)
	if err != nil {
		t.Fatal(err)
	}
	none := find(t, opts, catalog.ModelReserved, "1y", "no-upfront", "standard")
	ex := none.Schedule.Expand(12)
	want := map[int]string{0: "-43.8", 1: "-43.8", 2: "-12.4"}
	for m, w := range want {
		if got := ex[m].ByKind[FlowCredit]; !got.Equal(dec(w)) {
			t.Errorf("month %d credit %s, want %s", m, got, w)
		}
	}
	if !none.Total.Value.Equal(dec("43.8").Mul(decimal.NewFromInt(12)).Sub(dec("100"))) {
		t.Errorf("total %s", none.Total)
	}
}

// TestSteppedOnDemand: Tencent-style steps by cumulative hours of use. Hand
// calculation for a 500 h job: 96 × 16.09 + 264 × 12 + 140 × 10 = 6,112.64.
func TestSteppedOnDemand(t *testing.T) {
	e := engine(t)
	o := *offering(t, e.Catalog, "tencent", "GN7.2XLARGE32", "ap-guangzhou")
	o.OnDemand = catalog.Price{Known: true, Amount: money.New(dec("16.09"), money.USD), Source: "test", AsOf: "2026-11-01"}
	o.Steps = []catalog.PriceStep{{FromHours: 0, Amount: dec("16.09")}, {FromHours: 96, Amount: dec("12")}, {FromHours: 360, Amount: dec("10")}}
	opts, err := e.Price(usage(t, Usage{DurationHours: 500}), &o)
	if err != nil {
		t.Fatal(err)
	}
	od := find(t, opts, ModelOnDemand, "", "", "")
	if !od.Total.Value.Equal(dec("6112.64")) {
		t.Errorf("stepped total %s, want 6112.64", od.Total)
	}
	// Steady use: 200 h a month for 3 months = months of 200, 200, 200 cumulative 600 h:
	// month 1: 96×16.09 + 104×12 = 2792.64; month 2 (200..400 h): 160×12 + 40×10 = 2320; month 3: 200×10 = 2000.
	opts, _ = e.Price(usage(t, Usage{HoursPerMonth: 200, HorizonMonths: 3}), &o)
	ex := find(t, opts, ModelOnDemand, "", "", "").Schedule.Expand(3)
	for m, w := range map[int]string{1: "2792.64", 2: "2320", 3: "2000"} {
		if !ex[m].Total.Equal(dec(w)) {
			t.Errorf("month %d: %s, want %s", m, ex[m].Total, w)
		}
	}
}

// A voucher is a promotion: its months show it under promotion, not credit.
func TestVoucherIsPromotion(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "g5.xlarge", "us-east-1")
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 2, Promotions: []Promotion{{Kind: PromoVoucher, Amount: dec("100"), Currency: money.USD}}})
	opts, _ := e.Price(u, o)
	od := find(t, opts, ModelOnDemand, "", "", "")
	if got := od.Schedule.TotalOf(FlowPromotion); !got.Equal(dec("-100")) {
		t.Errorf("promotion flows %s, want -100", got)
	}
	if got := od.Schedule.TotalOf(FlowCredit); !got.IsZero() {
		t.Errorf("credit flows %s, want 0", got)
	}
}
