package cli

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// TestOffersQuery is the table test of offers' flags → catalog.Query.
func TestOffersQuery(t *testing.T) {
	l, err := (&catalogFlags{currency: "USD"}).load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags offersFlags
		check func(q catalog.Query) string
		err   string
	}{
		{"gpu and count", offersFlags{selectFlags: selectFlags{gpu: "A100:8"}, sort: "price"}, func(q catalog.Query) string {
			if q.GPUCount != 8 || len(q.GPUs) < 2 || q.GPUs[0].Family != "A100" {
				return "want every A100 variant, 8 per instance"
			}
			return ""
		}, ""},
		{"aliases resolve", offersFlags{selectFlags: selectFlags{providers: []string{"阿里云"}, regions: []string{"华东1"}}, sort: "price"}, func(q catalog.Query) string {
			if len(q.Providers) != 1 || q.Providers[0] != "alibaba" || len(q.Regions) != 1 || q.Regions[0] != "cn-hangzhou" {
				return "want alibaba in cn-hangzhou"
			}
			return ""
		}, ""},
		{"memory class and price", offersFlags{minGPUMemory: "80GB", maxPrice: "30", spot: true, sort: "gpu-hour"}, func(q catalog.Query) string {
			if q.MinGPUMemoryGiB != 80 || !q.MaxPrice.Valid || q.MaxPrice.Decimal.String() != "30" || !q.Spot || q.Sort != catalog.SortGPUHour {
				return "want 80 GB, ≤ 30/h, spot, by GPU-hour"
			}
			return ""
		}, ""},
		{"both china flags", offersFlags{selectFlags: selectFlags{china: true, noChin: true}, sort: "price"}, nil, "--china and --no-china exclude each other"},
		{"bad interconnect", offersFlags{interconnects: []string{"infinityband"}, sort: "price"}, nil, `--interconnect "infinityband" is not one of`},
		{"bad sort", offersFlags{sort: "cheapest"}, nil, "--sort"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := tc.flags.query(l)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(q); msg != "" {
				t.Errorf("%s; got %+v", msg, q)
			}
		})
	}
}
