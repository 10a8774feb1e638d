package catalog

import (
	"testing"
	"time"
)

func TestPriceAge(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		asOf  string
		days  int
		stale bool
	}{
		{"2026-12-03", 0, false},
		{"2025-12-04", 364, false},
		{"2025-12-03", 365, true}, // 365 days and 12 hours: past a year
		{"2024-11-06", 757, true}, // AWS cn-north-1's Karpenter map, as the issue found it
		{"2026-07-22T07:14:56Z", 134, false},
		{"", 0, false}, {"undated", 0, false}, {"2027-01-01", 0, false},
	} {
		days, stale := PriceAge(tc.asOf, now)
		if days != tc.days || stale != tc.stale {
			t.Errorf("PriceAge(%q) = %d, %v; want %d, %v", tc.asOf, days, stale, tc.days, tc.stale)
		}
	}
}
