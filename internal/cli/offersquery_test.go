package cli

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/form"
)

// TestOffersQuery is the table test of offers' flags → catalog.Query.
func TestOffersQuery(t *testing.T) {
	l, err := (&catalogFlags{currency: "USD"}).load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string // NAME=VALUE, as on the command line
		check func(q catalog.Query) string
		err   string
	}{
		{"gpu and count", []string{"gpu=A100:8"}, func(q catalog.Query) string {
			if q.GPUCount != 8 || len(q.GPUs) < 2 || q.GPUs[0].Family != "A100" {
				return "want every A100 variant, 8 per instance"
			}
			return ""
		}, ""},
		{"aliases resolve", []string{"provider=阿里云", "region=华东1"}, func(q catalog.Query) string {
			if len(q.Providers) != 1 || q.Providers[0] != "alibaba" || len(q.Regions) != 1 || q.Regions[0] != "cn-hangzhou" {
				return "want alibaba in cn-hangzhou"
			}
			return ""
		}, ""},
		{"memory class and price", []string{"min-gpu-memory=80GB", "max-price=30", "spot=true", "sort=gpu-hour"}, func(q catalog.Query) string {
			if q.MinGPUMemoryGiB != 80 || !q.MaxPrice.Valid || q.MaxPrice.Decimal.String() != "30" || !q.Spot || q.Sort != catalog.SortGPUHour {
				return "want 80 GB, ≤ 30/h, spot, by GPU-hour"
			}
			return ""
		}, ""},
		{"both china flags", []string{"china=true", "no-china=true"}, nil, "--china and --no-china exclude each other"},
		{"bad interconnect", []string{"interconnect=infinityband"}, nil, `--interconnect "infinityband" is not one of`},
		{"bad sort", []string{"sort=cheapest"}, nil, "--sort"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := offersFlags{form: form.NewOffers()}
			for _, in := range tc.flags {
				name, text, _ := strings.Cut(in, "=")
				if err := f.form.Set(name, text); err != nil {
					t.Fatal(err)
				}
			}
			q, err := f.query(l)
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
