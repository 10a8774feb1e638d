package catalog

import (
	"testing"
	"time"
)

func TestPriceAge(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		kind  PriceKind
		asOf  string
		days  int
		stale bool
		ago   string
	}{
		{ListPrice, "2026-12-03", 0, false, "0 days ago"},
		{ListPrice, "2025-12-04", 364, false, "364 days ago"},
		{ListPrice, "2025-12-03", 365, true, "365 days ago"}, // 365 days and 12 hours: past a year
		{ListPrice, "2024-11-06", 757, true, "757 days ago"}, // AWS cn-north-1's Karpenter map, as the issue found it
		{ListPrice, "2026-07-22T07:14:56Z", 134, false, "134 days ago"},
		{ListPrice, "", 0, false, ""}, {ListPrice, "undated", 0, false, ""}, {ListPrice, "2027-01-01", 0, false, "0 days ago"},
		// A spot snapshot goes stale after 30 days: the p5 price in usw2-az4 of the user trial, 147 days old.
		{SpotPrice, "2026-07-09", 147, true, "147 days ago"},
		{SpotPrice, "2026-11-03", 30, true, "30 days ago"}, // 30 days and 12 hours
		{SpotPrice, "2026-11-04", 29, false, "29 days ago"},
		{ListPrice, "2026-07-09", 147, false, "147 days ago"},
		// Dates known only to the year or month count from the period's first day: the most they can be.
		{ListPrice, "2021", 2162, true, "up to 2162 days ago"},
		{ListPrice, "2026", 336, false, "up to 336 days ago"},
		{ListPrice, "2024-09", 823, true, "up to 823 days ago"},
	} {
		a := PriceAge(tc.kind, ReadDate(tc.asOf), now)
		if a.Days != tc.days || a.Stale != tc.stale || a.Ago() != tc.ago {
			t.Errorf("PriceAge(%d, %q) = %d days, stale %v, %q; want %d, %v, %q", tc.kind, tc.asOf, a.Days, a.Stale, a.Ago(), tc.days, tc.stale, tc.ago)
		}
	}
}

func TestReadDate(t *testing.T) {
	for _, tc := range []struct{ in, iso, text string }{
		{"2024-11-06", "2024-11-06", "2024-11-06"},
		{"2026-07-22T07:14:56Z", "2026-07-22", "2026-07-22"},
		{"2024-09", "2024-09", "2024-09 (day unknown)"},
		{"2021", "2021", "2021 (day unknown)"},
		{"", "", ""},
		{"soon", "soon", "soon"},
	} {
		d := ReadDate(tc.in)
		if d.ISO() != tc.iso || d.String() != tc.text {
			t.Errorf("ReadDate(%q) = %q, %q; want %q, %q", tc.in, d.ISO(), d.String(), tc.iso, tc.text)
		}
	}
}

// TestPriceDatePlaceholder: Tencent's China-site price page states no date
// (sources.yaml: as_of "2021", "2021 or later"), and the feed dates its
// prices 2021-01-01 because its format needs a day. Such a price is dated
// only to the year; a price of the same source with a day of its own, or a
// source dated to the day, keeps its day.
func TestPriceDatePlaceholder(t *testing.T) {
	c := &Catalog{sourceIndex: map[string]*Source{}}
	c.AddSource(Source{ID: "tencent-qcloud-gpu-prices@8ec07296", AsOf: "2021"})
	c.AddSource(Source{ID: "karpenter-aws-cn@2024-11-06", AsOf: "2024-11-06"})
	c.AddSource(Source{ID: "monthly", AsOf: "2024-09"})
	for _, tc := range []struct{ source, asOf, want string }{
		{"tencent-qcloud-gpu-prices@8ec07296", "2021-01-01", "2021 (day unknown)"},
		{"tencent-qcloud-gpu-prices@8ec07296", "", "2021 (day unknown)"},
		{"tencent-qcloud-gpu-prices@8ec07296", "2021-06-15", "2021-06-15"},
		{"monthly", "2024-09-01", "2024-09 (day unknown)"},
		{"monthly", "2024-09-02", "2024-09-02"},
		{"karpenter-aws-cn@2024-11-06", "2024-11-06", "2024-11-06"},
		{"user:prices.yaml", "2026-01-01", "2026-01-01"}, // a source the catalog does not know
	} {
		if got := c.PriceDate(tc.source, tc.asOf).String(); got != tc.want {
			t.Errorf("PriceDate(%s, %q) = %q, want %q", tc.source, tc.asOf, got, tc.want)
		}
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if a := c.PriceAge(ListPrice, "tencent-qcloud-gpu-prices@8ec07296", "2021-01-01", now); !a.Stale || a.Ago() != "up to 2159 days ago" {
		t.Errorf("Tencent's placeholder-dated price: stale %v, %q; want stale, up to 2159 days ago", a.Stale, a.Ago())
	}
	var nilCat *Catalog
	if got := nilCat.PriceDate("x", "2021-01-01").String(); got != "2021-01-01" {
		t.Errorf("nil catalog: %q", got)
	}
}
