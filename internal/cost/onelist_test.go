package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// TestTencentSubscriptionBreakevenOnOneList: GN10X.2XLARGE40 in ap-beijing,
// both prices from the China-site list's row (tencent-qcloud-gpu-prices@
// 8ec07296: 4671 - 5190 CNY a month, 16.21 - 18.04 CNY an hour), each at
// the upper end. By hand: break-even = 5190 / 18.04 = 287.69 h a month
// (the user trial saw 270 h: 5190 CNY against the international site's
// 2.68 USD/h), and the subscription is 1 - 5190 / (730 × 18.04) = 60.6%
// below on-demand. The comparison cites one list, so no mixed-list note.
func TestTencentSubscriptionBreakevenOnOneList(t *testing.T) {
	e := engine(t)
	e.Currency = money.CNY
	o := offering(t, e.Catalog, "tencent", "GN10X.2XLARGE40", "ap-beijing")
	opts, err := e.Price(usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12}), o)
	if err != nil {
		t.Fatal(err)
	}
	od := find(t, opts, ModelOnDemand, "", "", "")
	if got := od.ListHourly.Decimal.String(); got != "18.04" || od.QuotedIn != money.CNY {
		t.Errorf("on-demand %s (in the answer's currency, quoted in %s); want 18.04 CNY (hourly_cny_high)", got, od.QuotedIn)
	}
	sub := find(t, opts, catalog.ModelSubscription, "1mo", catalog.PayMonthly, "")
	want := 5190.0 / 18.04
	if sub.Breakeven == nil {
		t.Fatalf("no break-even; want 5190 / 18.04 = %v h/month", want)
	}
	if math.Abs(*sub.Breakeven-want) > 1e-9 {
		t.Fatalf("break-even %v; want 5190 / 18.04 = %v h/month", *sub.Breakeven, want)
	}
	if math.Round(*sub.Breakeven) != 288 {
		t.Errorf("break-even rounds to %.0f; want 288", *sub.Breakeven)
	}
	ex := strings.Join(sub.Explanation, "\n")
	for _, w := range []string{"60.6% below on-demand 18.04 CNY/h", "wins above 288 h/month"} {
		if !strings.Contains(ex, w) {
			t.Errorf("explanation lacks %q:\n%s", w, ex)
		}
	}
	if strings.Contains(ex, "another price list") {
		t.Errorf("one list, yet the explanation says two:\n%s", ex)
	}
	// The break-even is the same in every region the row prices (one list price, one monthly price).
	for _, r := range []string{"ap-guangzhou", "ap-shanghai", "ap-nanjing", "ap-chengdu", "ap-chongqing"} {
		opts, err := e.Price(usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12}), offering(t, e.Catalog, "tencent", "GN10X.2XLARGE40", r))
		if err != nil {
			t.Fatal(err)
		}
		if s := find(t, opts, catalog.ModelSubscription, "1mo", catalog.PayMonthly, ""); math.Abs(*s.Breakeven-want) > 1e-9 {
			t.Errorf("%s: break-even %v; want %v", r, *s.Breakeven, want)
		}
	}
}

// TestMixedListsSaySo: where an on-demand price and a commitment come from
// different sources (a --prices file or a refresh overriding one of them),
// the comparison says it mixes two lists, naming the on-demand's.
func TestMixedListsSaySo(t *testing.T) {
	e := engine(t)
	e.Currency = money.CNY
	o := *offering(t, e.Catalog, "tencent", "GN10X.2XLARGE40", "ap-beijing")
	o.OnDemand.Source, o.OnDemand.AsOf = "tencent-intl-cvm-prices@b7e17ea6", "2020-05-22"
	opts, err := e.Price(usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 12}), &o)
	if err != nil {
		t.Fatal(err)
	}
	sub := find(t, opts, catalog.ModelSubscription, "1mo", catalog.PayMonthly, "")
	if w := "(tencent-intl-cvm-prices@b7e17ea6, 2020-05-22: another price list than this subscription's, so the comparison and its break-even mix two lists)"; !strings.Contains(sub.Explanation[0], w) {
		t.Errorf("explanation %q; want %q", sub.Explanation[0], w)
	}
}
