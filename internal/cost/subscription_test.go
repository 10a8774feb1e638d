package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/pricefile"
)

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func cnyEngine(t *testing.T) *Engine {
	t.Helper()
	e := engine(t)
	e.Currency = money.CNY
	return e
}

// wantPaidAhead checks a schedule against n payments of perMonth at month
// indexes 0..n-1 and nothing at month n: a subscription paid at the start of
// each month, the first upfront.
func wantPaidAhead(t *testing.T, name string, opt *Option, n int, perMonth string) {
	t.Helper()
	ex := opt.Schedule.Expand(n)
	for j, m := range ex {
		want := dec(perMonth)
		if j == n {
			want = decimal.Zero
		}
		if !m.Total.Equal(want) {
			t.Errorf("%s: month %d pays %s, want %s", name, j, m.Total, want)
		}
	}
	if !opt.Upfront.Value.Equal(dec(perMonth)) {
		t.Errorf("%s: upfront %s, want the first month's %s", name, opt.Upfront, perMonth)
	}
	if want := dec(perMonth).Mul(decimal.NewFromInt(int64(n))); !opt.Total.Value.Equal(want) {
		t.Errorf("%s: total %s, want %s", name, opt.Total, want)
	}
}

// TestSubscriptionPaidAhead: Tencent 包年包月 is prepaid. GT4.41XLARGE948 in
// ap-beijing at 114,016 CNY a month (1mo term, the catalog's "monthly"), used
// 730 h a month for a year, pays 12 × 114,016 = 1,368,192 CNY at months
// 0..11, the first upfront. Hand calculation of the NPV at 8%/yr: i =
// 1.08^(1/12) − 1 = 0.643403%, v = 1/(1+i), 1 − v = 0.00639290;
// NPV = 114,016 × Σ_{j=0..11} v^j = 114,016 × (1 − 1/1.08)/(1 − v)
// = 114,016 × 11.586932 = 1,321,095.63 CNY (paid in arrears, months 1..12,
// it would be 1,312,650.00).
func TestSubscriptionPaidAhead(t *testing.T) {
	e := cnyEngine(t)
	o := offering(t, e.Catalog, "tencent", "GT4.41XLARGE948", "ap-beijing")
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12, DiscountRate: dec("0.08")})
	opts, err := e.Price(u, o)
	if err != nil {
		t.Fatal(err)
	}
	sub := find(t, opts, catalog.ModelSubscription, "1mo", catalog.PayMonthly, "")
	if !sub.Known || !sub.Feasible {
		t.Fatalf("1mo subscription known %v feasible %v", sub.Known, sub.Feasible)
	}
	wantPaidAhead(t, "tencent 1mo", sub, 12, "114016")
	if got, want := sub.NPV.Value.InexactFloat64(), 1321095.63; math.Abs(got-want) > 0.01 {
		t.Errorf("NPV at 8%%: %v, want %v", got, want)
	}
	// The break-even compares present values the same way: fees at each
	// month's start against on-demand at each month's end, so above 480 h.
	if sub.BreakevenNPV == nil || sub.Breakeven == nil || *sub.BreakevenNPV <= *sub.Breakeven {
		t.Errorf("NPV break-even not above the plain one with fees paid ahead: %v, %v", deref(sub.BreakevenNPV), deref(sub.Breakeven))
	}
	// The words say when it is paid: not "0.00 CNY upfront", nor "for 1
	// months, each paid…" of a one-month term.
	if ex := strings.Join(sub.Explanation, "\n"); strings.Contains(ex, "0.00 CNY upfront") || !strings.Contains(ex, "114,016.00 CNY a month for 1 month, paid at its start (upfront)") {
		t.Errorf("explanation: %s", ex)
	}
}

// TestOneMonthSubscriptionOneProduct: a one-month term paid ahead is the
// same product whether called monthly or all-upfront: no unpriced
// all-upfront twin beside the priced monthly, one unpriced entry where
// neither is priced, and the same cash flows for the same price.
func TestOneMonthSubscriptionOneProduct(t *testing.T) {
	e := cnyEngine(t)
	o := offering(t, e.Catalog, "tencent", "GT4.41XLARGE948", "ap-beijing")
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12})
	count := func(opts []Option) (priced, unpriced int) {
		for _, x := range opts {
			if x.Model == catalog.ModelSubscription && x.Term == "1mo" {
				if x.Known {
					priced++
				} else {
					unpriced++
				}
			}
		}
		return
	}
	opts, _ := e.Price(u, o)
	if p, n := count(opts); p != 1 || n != 0 {
		t.Errorf("tencent 1mo with the monthly priced: %d priced, %d unpriced; want 1, 0", p, n)
	}
	// Without the catalog's price, Tencent's scheme (all-upfront and
	// monthly) is one unpriced 1mo product.
	e.Catalog.Commitments = nil
	opts, _ = e.Price(u, o)
	if p, n := count(opts); p != 0 || n != 1 {
		t.Errorf("tencent 1mo unpriced: %d priced, %d unpriced; want 0, 1", p, n)
	}
	// The same price under either name: the same schedule, upfront and NPV.
	u.DiscountRate = dec("0.08")
	for _, pay := range []struct{ payment, upfront, monthly string }{{catalog.PayMonthly, "0", "114016"}, {catalog.PayAll, "114016", "0"}} {
		e.Catalog.Commitments = []catalog.Commitment{{Provider: "tencent", InstanceType: o.InstanceType, Region: o.Region, Model: catalog.ModelSubscription,
			Term: "1mo", Payment: pay.payment, Upfront: dec(pay.upfront), Monthly: dec(pay.monthly), Currency: money.CNY, Source: "test", AsOf: "2026-11-01"}}
		opts, _ := e.Price(u, o)
		sub := find(t, opts, catalog.ModelSubscription, "1mo", pay.payment, "")
		wantPaidAhead(t, "1mo "+pay.payment, sub, 12, "114016")
		if got := sub.NPV.Value.InexactFloat64(); math.Abs(got-1321095.63) > 0.01 {
			t.Errorf("1mo %s: NPV %v, want 1321095.63", pay.payment, got)
		}
		if p, n := count(opts); p != 1 || n != 0 {
			t.Errorf("1mo %s priced: %d priced, %d unpriced; want 1, 0", pay.payment, p, n)
		}
	}
}

// TestAlibabaSubscriptionFromPriceFile: the user's Alibaba 1mo subscription
// of examples/prices-china.yaml (4,800 CNY, all-upfront) is paid like
// Tencent's: 12 × 4,800 at months 0..11, 4,800 upfront, total 57,600.
func TestAlibabaSubscriptionFromPriceFile(t *testing.T) {
	e := cnyEngine(t)
	f, err := pricefile.Load("../../examples/prices-china.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pricefile.Apply(e.Catalog, e.FX, f); err != nil {
		t.Fatal(err)
	}
	o := offering(t, e.Catalog, "alibaba", "ecs.gn7i-c8g1.2xlarge", "cn-hangzhou")
	opts, err := e.Price(usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12}), o)
	if err != nil {
		t.Fatal(err)
	}
	wantPaidAhead(t, "alibaba 1mo", find(t, opts, catalog.ModelSubscription, "1mo", catalog.PayAll, ""), 12, "4800")
	y := find(t, opts, catalog.ModelSubscription, "1y", catalog.PayAll, "")
	if len(y.Schedule) != 1 || y.Schedule[0].From != 0 || !y.Upfront.Value.Equal(dec("48000")) {
		t.Errorf("alibaba 1y all-upfront: %+v", y.Schedule)
	}
}

// TestShortJobOnMonthSubscription: a 336 h job can use a one-month
// subscription: it pays the whole month, 114,016 CNY at the start, and is
// told the rest (0.54 months, 394 h) is idle; at 336 h of the month it is
// dearer than on-demand (237.51 × 336 = 79,803.36). The 1-year terms stay
// infeasible for it, as a 7-day job's 1y GCP commitment (TestShortJobOnCommitment).
func TestShortJobOnMonthSubscription(t *testing.T) {
	e := cnyEngine(t)
	o := offering(t, e.Catalog, "tencent", "GT4.41XLARGE948", "ap-beijing")
	opts, err := e.Price(usage(t, Usage{DurationHours: 336}), o)
	if err != nil {
		t.Fatal(err)
	}
	sub := find(t, opts, catalog.ModelSubscription, "1mo", catalog.PayMonthly, "")
	if !sub.Feasible || sub.UnusedTermCost.Valid {
		t.Fatalf("1mo on a 336 h job: feasible %v, unused %v", sub.Feasible, sub.UnusedTermCost)
	}
	wantPaidAhead(t, "336 h on 1mo", sub, 1, "114016")
	if want := dec("114016").Div(dec("336")); !sub.EffectiveHourly.Decimal.Equal(want) {
		t.Errorf("effective %s/h, want %s", sub.EffectiveHourly.Decimal, want)
	}
	ex := strings.Join(sub.Explanation, "\n")
	for _, w := range []string{"a 336 h job takes 0.46 months", "the last 0.54 months of it (394 h) paid for and idle", "you plan 336, so on-demand is cheaper"} {
		if !strings.Contains(ex, w) {
			t.Errorf("explanation lacks %q:\n%s", w, ex)
		}
	}
	if od := find(t, opts, ModelOnDemand, "", "", ""); !od.Total.Value.Equal(dec("79803.36")) || opts[0].Model != ModelOnDemand {
		t.Errorf("on-demand %s first %s", od.Total, opts[0].Model)
	}
	if y := find(t, opts, catalog.ModelSubscription, "1y", catalog.PayAll, ""); y.Feasible {
		t.Error("an unpriced 1y subscription is feasible for a 336 h job")
	}
}

// TestTerms: the one rule of how many terms a usage buys (0: it cannot use
// the term). Whole terms of the horizon, and one where the billing months
// the horizon begins fill it; months after the last whole term run on-demand.
func TestTerms(t *testing.T) {
	for _, c := range []struct {
		horizon float64
		term    int
		want    int
	}{
		{336.0 / 730, 1, 1},  // a 336 h job: one month, the rest idle
		{168.0 / 730, 12, 0}, // a 7-day job cannot use a year
		{12, 1, 12},
		{12, 12, 1},
		{11.5, 12, 1}, // its 12th month begun: the year bought, half a month idle
		{11, 12, 0},
		{12.5, 12, 1}, // the half month after the year runs on-demand
		{1.5, 1, 1},
		{36, 12, 3},
		{36, 36, 1},
		{35, 36, 0},
	} {
		u := Usage{HorizonMonths: c.horizon}
		if got := u.Terms(c.term); got != c.want {
			t.Errorf("horizon %v months, term %d: %d terms, want %d", c.horizon, c.term, got, c.want)
		}
	}
}
