package cost

import (
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// TestStaleLine: the warning for a stale price, the same words cost and
// advise write: a list price's exact age, a spot price's shorter rule, and
// for a date known only to its year how old the price may be at most.
func TestStaleLine(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		what, asOf, source, provider, want string
	}{
		{"on-demand", "2024-11-06", "karpenter-aws-cn@2024-11-06", "aws",
			"the on-demand price is dated 2024-11-06 (karpenter-aws-cn@2024-11-06), 757 days ago: older than a year, so check it against aws's console before you buy (catalog refresh --provider aws updates it)"},
		{"spot", "2026-07-09", "skypilot-v9@2c3d7ea7", "aws",
			"the spot price is dated 2026-07-09 (skypilot-v9@2c3d7ea7), 147 days ago: older than 30 days (spot prices move far faster than list prices), so check it against aws's console before you buy (catalog refresh --provider aws updates it)"},
		{"commitment", "2021", "tencent-qcloud-gpu-prices@8ec07296", "tencent",
			"the commitment price is dated only to the year 2021 (tencent-qcloud-gpu-prices@8ec07296), up to 2162 days ago: it may be older than a year, so check it against tencent's console before you buy (catalog refresh --provider tencent updates it)"},
	} {
		a := catalog.PriceAge(catalog.KindOf(tc.what), catalog.ReadDate(tc.asOf), now)
		if got := StaleLine(tc.what, a, tc.source, tc.provider); got != tc.want || !a.Stale {
			t.Errorf("StaleLine(%s, %s) = %q (stale %v)\nwant %q", tc.what, tc.asOf, got, a.Stale, tc.want)
		}
	}
}
