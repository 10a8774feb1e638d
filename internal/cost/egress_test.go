package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// TestEgressPerRegionGroup: each region is priced from its own group's table,
// and a region without a sourced table is unknown, never another region's price.
func TestEgressPerRegionGroup(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	gib := func(gb float64) float64 { return gb * 1e9 / (1 << 30) }
	tests := []struct {
		provider, region, path string
		gb                     float64
		want                   float64 // NaN: unknown
	}{
		// 100 GB free; 10,140 × 0.09 + 40,960 × 0.085 + 8,800 × 0.07 = 5,010.20.
		{"aws", "us-east-1", catalog.PathInternet, 60000, 5010.20},
		{"aws", "eu-west-2", catalog.PathInternet, 60000, 5010.20},
		// Tokyo: 10,140 × 0.114 + 9,760 × 0.089 = 1,155.96 + 868.64.
		{"aws", "ap-northeast-1", catalog.PathInternet, 20000, 2024.60},
		// Mumbai: 10,140 × 0.1093 = 1,108.302.
		{"aws", "ap-south-1", catalog.PathInternet, 10240, 1108.302},
		// Seoul to another region: 750 × 0.08 (the golden file's 60.00).
		{"aws", "ap-northeast-2", catalog.PathCrossRegion, 750, 60},
		// Sydney over 150 TB: 10,140 × 0.114 + 40,960 × 0.098 + 102,400 × 0.094 + 3,400 × 0.092.
		{"aws", "ap-southeast-2", catalog.PathInternet, 157000, 10140*0.114 + 40960*0.098 + 102400*0.094 + 3400*0.092},
		// China and an Asia Pacific region the source does not list: unknown.
		{"aws", "cn-north-1", catalog.PathInternet, 500, math.NaN()},
		{"aws", "ap-southeast-3", catalog.PathInternet, 500, math.NaN()},
		// GCP above 10 TiB: 0.08 from us-central1, 0.085 from europe-west4 and asia-southeast1.
		{"gcp", "us-central1", catalog.PathInternet, 15000, 1024*0.12 + 9216*0.11 + (gib(15000)-10240)*0.08},
		{"gcp", "europe-west4", catalog.PathInternet, 15000, 1024*0.12 + 9216*0.11 + (gib(15000)-10240)*0.085},
		{"gcp", "asia-southeast1", catalog.PathInternet, 15000, 1024*0.12 + 9216*0.11 + (gib(15000)-10240)*0.085},
		{"gcp", "asia-southeast1", catalog.PathCrossZone, 1000, gib(1000) * 0.01},
		{"gcp", "me-central2", catalog.PathInternet, 1, math.NaN()},
		{"azure", "eastus", catalog.PathInternet, 1100, 1000 * 0.087},
		{"azure", "chinaeast2", catalog.PathInternet, 1100, math.NaN()},
	}
	for _, tt := range tests {
		got, ok, why := EgressCost(c.Egress(tt.provider, tt.region), tt.path, tt.gb)
		if math.IsNaN(tt.want) {
			if ok || why == "" {
				t.Errorf("%s %s %s %g GB = %s, want unknown with a reason", tt.provider, tt.region, tt.path, tt.gb, got)
			}
			continue
		}
		if !ok || math.Abs(got.InexactFloat64()-tt.want) > 1e-6 {
			t.Errorf("%s %s %s %g GB = %s (known %v: %s), want %.6f", tt.provider, tt.region, tt.path, tt.gb, got, ok, why, tt.want)
		}
	}
}

// TestUnsourcedEgressIsUnknownInTotals: internet egress from cn-north-1 has no
// sourced price, so the option's total leaves it out and says so (+?).
func TestUnsourcedEgressIsUnknownInTotals(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "g3.4xlarge", "cn-north-1")
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 1, Egress: map[string]float64{catalog.PathInternet: 500}})
	opts, err := e.Price(u, o)
	if err != nil {
		t.Fatal(err)
	}
	od := find(t, opts, ModelOnDemand, "", "", "")
	if got := od.Schedule.TotalOf(FlowEgress); !got.IsZero() {
		t.Errorf("cn-north-1 egress priced at %s; want it unknown", got)
	}
	if !strings.Contains(strings.Join(od.Excludes, "\n"), "no sourced data-transfer prices") {
		t.Errorf("excludes %v; want the unpriced egress named", od.Excludes)
	}
}
