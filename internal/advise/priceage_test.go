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
