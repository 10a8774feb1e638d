package advise

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// TestStalePricesFlagged: AWS cn-north-1's prices are dated 2024-11-06
// (karpenter-aws-cn@2024-11-06). On 2026-12-03 they are 757 days old and
// every plan on them says so; on 2025-06-01 they are not yet a year old.
func TestStalePricesFlagged(t *testing.T) {
	for _, tc := range []struct {
		now   time.Time
		days  int
		stale bool
	}{
		{time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), 757, true},
		{time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), 207, false},
	} {
		a := advisor(t, money.CNY)
		a.Now = func() time.Time { return tc.now }
		req := request(t, a, "inference-online", "A100-SXM4-40GB")
		req.HoursPerMonth, req.HorizonMonths = 730, 12
		yes := true
		req.Select = catalog.Query{China: &yes, Providers: []string{"aws"}}
		res := run(t, a, req)
		if len(res.Plans) == 0 {
			t.Fatal("no AWS plan in mainland China")
		}
		for _, p := range res.Plans {
			flagged := strings.Contains(strings.Join(p.Explanation, "\n"), "dated 2024-11-06 (karpenter-aws-cn@2024-11-06), 757 days ago: older than a year")
			if p.PriceAsOf != "2024-11-06" || p.PriceAgeDays != tc.days || p.Stale != tc.stale || flagged != tc.stale {
				t.Errorf("%s on %s: price as of %q, %d days, stale %v, explained %v; want 2024-11-06, %d, %v",
					p.Offering.InstanceType, tc.now.Format("2006-01-02"), p.PriceAsOf, p.PriceAgeDays, p.Stale, flagged, tc.days, tc.stale)
			}
			if out := PlanOutput(&p); out.PriceAsOf != p.PriceAsOf || out.Stale != p.Stale || out.PriceAgeDays != p.PriceAgeDays {
				t.Errorf("JSON %+v lacks the price date", out)
			}
		}
	}
}

// TestStaleSpotPricesFlagged: a spot price is stale after 30 days, not a
// year. AWS's spot prices are dated 2026-07-09 (SkyPilot): on 2026-11-30,
// 144 days on, every AWS spot plan says so; on 2026-07-20 none does.
func TestStaleSpotPricesFlagged(t *testing.T) {
	for _, tc := range []struct {
		now   time.Time
		stale bool
	}{
		{time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 7, 20, 0, 0, 0, 0, time.UTC), false},
	} {
		a := advisor(t, money.USD)
		a.Now = func() time.Time { return tc.now }
		req := request(t, a, "cv-training", "A100-SXM4-40GB")
		req.WorkGPUHours = 672
		req.Select = catalog.Query{Providers: []string{"aws"}}
		spots := 0
		for _, p := range run(t, a, req).Plans {
			if p.Model != "spot" {
				continue
			}
			spots++
			flagged := strings.Contains(strings.Join(p.Explanation, "\n"), "the spot price is dated 2026-07-09 (skypilot-v9@2c3d7ea7)")
			if p.Stale != tc.stale || flagged != tc.stale {
				t.Errorf("%s on %s: stale %v, explained %v; want %v", p.Offering.InstanceType, tc.now.Format("2006-01-02"), p.Stale, flagged, tc.stale)
			}
		}
		if spots == 0 {
			t.Fatal("no AWS spot plan")
		}
	}
}

// TestYearOnlyPriceDate: Tencent's China-site prices come from a page dated
// only "2021" (the feed's placeholder day is 2021-01-01): plans date them
// to the year and say how old they may be, never a day or an exact age.
func TestYearOnlyPriceDate(t *testing.T) {
	a := advisor(t, money.CNY)
	a.Now = func() time.Time { return time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) }
	req := request(t, a, "inference-online", "A100-SXM4-40GB")
	req.HoursPerMonth, req.HorizonMonths = 730, 12
	yes := true
	req.Select = catalog.Query{China: &yes, Providers: []string{"tencent"}}
	res := run(t, a, req)
	if len(res.Plans) == 0 {
		t.Fatal("no Tencent plan in mainland China")
	}
	for _, p := range res.Plans {
		text := strings.Join(p.Explanation, "\n")
		if p.PriceAsOf != "2021" || !p.Stale || !strings.Contains(text, "dated only to the year 2021 (tencent-qcloud-gpu-prices@8ec07296), up to 2159 days ago: it may be older than a year") || strings.Contains(text, "2021-01-01") {
			t.Errorf("%s: price as of %q, stale %v:\n%s", p.Offering.InstanceType, p.PriceAsOf, p.Stale, text)
		}
	}
}
