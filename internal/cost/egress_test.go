package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// TestEgressPerRegionGroup: each region is priced from its own group's table,
// and a region without a sourced table is unknown, never another region's
// price. One account's month on one path (EgressMonth): AWS takes its free
// 100 GB to the internet first, then the tiers price the rest.
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
		// 100 GB free; 59,900 billed: 10,240 × 0.09 + 40,960 × 0.085 + 8,700 × 0.07 = 921.60 + 3,481.60 + 609.00.
		{"aws", "us-east-1", catalog.PathInternet, 60000, 5012.20},
		{"aws", "eu-west-2", catalog.PathInternet, 60000, 5012.20},
		// Tokyo: 19,900 billed: 10,240 × 0.114 + 9,660 × 0.089 = 1,167.36 + 859.74.
		{"aws", "ap-northeast-1", catalog.PathInternet, 20000, 2027.10},
		// Mumbai: 10,140 × 0.1093 = 1,108.302.
		{"aws", "ap-south-1", catalog.PathInternet, 10240, 1108.302},
		// Seoul to another region: 750 × 0.08 (the golden file's 60.00); no free allowance.
		{"aws", "ap-northeast-2", catalog.PathCrossRegion, 750, 60},
		// Sydney over 150 TB: 156,900 billed: 10,240 × 0.114 + 40,960 × 0.098 + 102,400 × 0.094 + 3,300 × 0.092.
		{"aws", "ap-southeast-2", catalog.PathInternet, 157000, 10240*0.114 + 40960*0.098 + 102400*0.094 + 3300*0.092},
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
		pcs := EgressMonth(c.Egress(tt.provider, tt.region), map[string]float64{tt.path: tt.gb})
		if len(pcs) != 1 {
			t.Fatalf("%s %s %s: %d path costs, want 1", tt.provider, tt.region, tt.path, len(pcs))
		}
		got := pcs[0]
		if math.IsNaN(tt.want) {
			if got.Known || got.Why == "" {
				t.Errorf("%s %s %s %g GB = %s, want unknown with a reason", tt.provider, tt.region, tt.path, tt.gb, got.Cost)
			}
			continue
		}
		if !got.Known || math.Abs(got.Cost.InexactFloat64()-tt.want) > 1e-6 {
			t.Errorf("%s %s %s %g GB = %s (known %v: %s), want %.6f", tt.provider, tt.region, tt.path, tt.gb, got.Cost, got.Known, got.Why, tt.want)
		}
	}
}

// TestAWSFreeEgressOncePerAccount: AWS's 100 GB a month to the internet are
// the account's, taken once across every instance and both internet paths
// (and each month), never once per instance. Hand calculations, us-east-1
// (0.09 USD/GB for the first 10,240 GB billed, then 0.085):
//   - 3 instances × 60 GB to the internet = 180 GB; 100 free; 80 × 0.09 = 7.20 USD a month
//     (per instance, each 60 GB would fall inside its own 100 GB: 0);
//   - 2 instances × (40 GB internet + 30 GB internet-china) = 140 GB; 100 free
//     (80 internet, 20 internet-china); 40 × 0.09 = 3.60 USD;
//   - 2 instances × 6,000 GB = 12,000 GB; 11,900 billed: 10,240 × 0.09 + 1,660 × 0.085 =
//     921.60 + 141.10 = 1,062.70 USD (per instance: 2 × 5,900 × 0.09 = 1,062.00).
func TestAWSFreeEgressOncePerAccount(t *testing.T) {
	e := engine(t)
	o := offering(t, e.Catalog, "aws", "g5.xlarge", "us-east-1")
	for _, tc := range []struct {
		name      string
		instances int
		months    float64
		egress    map[string]float64
		want      string // the egress of the whole horizon, USD
	}{
		{"3 × 60 GB internet, a month", 3, 1, map[string]float64{catalog.PathInternet: 60}, "7.2"},
		{"3 × 60 GB internet, a year", 3, 12, map[string]float64{catalog.PathInternet: 60}, "86.4"},
		{"one instance under the allowance", 1, 1, map[string]float64{catalog.PathInternet: 60}, "0"},
		{"both internet paths share it", 2, 1, map[string]float64{catalog.PathInternet: 40, catalog.PathInternetChina: 30}, "3.6"},
		{"tiers over all instances", 2, 1, map[string]float64{catalog.PathInternet: 6000}, "1062.7"},
		{"not for other paths", 3, 1, map[string]float64{catalog.PathCrossRegion: 60}, "3.6"}, // 180 × 0.02
	} {
		u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: tc.months, Instances: tc.instances, Egress: tc.egress})
		opts, err := e.Price(u, o)
		if err != nil {
			t.Fatal(err)
		}
		od := find(t, opts, ModelOnDemand, "", "", "")
		if got := od.Schedule.TotalOf(FlowEgress); !got.Equal(dec(tc.want)) {
			t.Errorf("%s: egress %s USD, want %s", tc.name, got, tc.want)
		}
	}
	// The explanation says how much was free, and that it is the account's.
	u := usage(t, Usage{HoursPerMonth: 730, HorizonMonths: 1, Instances: 3, Egress: map[string]float64{catalog.PathInternet: 60}})
	opts, _ := e.Price(u, o)
	why := strings.Join(find(t, opts, ModelOnDemand, "", "", "").Explanation, "\n")
	if !strings.Contains(why, "egress internet 60 GB/month × 3 instances = 180 GB: 7.20 USD/month") || !strings.Contains(why, "100 GB of it free") ||
		!strings.Contains(why, "aws-free-tier-transfer") {
		t.Errorf("explanation lacks the billed egress and the free allowance:\n%s", why)
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
