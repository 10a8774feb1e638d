package cost

import (
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// TestWaysElsewhere: of p5.48xlarge's regions, the one WaysElsewhere names
// for the Capacity Block sells it at the lowest hourly price of all (37.76
// USD against us-west-2's 41.528); nothing is named where the base region
// is already the cheapest; a term the usage cannot use is never named.
func TestWaysElsewhere(t *testing.T) {
	e := engine(t)
	rows, err := e.Catalog.Query(catalog.Query{Providers: []string{"aws"}, InstanceTypes: []string{"p5.48xlarge"}, AllRegions: true, FX: e.FX, Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	var regions []*catalog.Offering // one a region, as advise and Quote price them
	var base *catalog.Offering
	for _, r := range catalog.PerRegion(rows) {
		regions = append(regions, r.Offering)
		if r.Offering.Region == "us-west-2" {
			base = r.Offering
		}
	}
	if base == nil || len(regions) < 3 {
		t.Fatalf("p5.48xlarge in %d regions, us-west-2 among them: %v", len(regions), base != nil)
	}
	lowest := func(o *catalog.Offering) (v float64, ok bool) {
		for _, x := range e.Catalog.CommitmentsFor(o) {
			if x.Model == catalog.ModelCapacityBlock {
				return x.Hourly.InexactFloat64(), true
			}
		}
		return 0, false
	}
	job := usage(t, Usage{DurationHours: 336, Instances: 1, DiscountRate: dec("0")})
	got := WaysElsewhere(e.Catalog, e.FX, job, base, regions)
	named := 0
	for o, ways := range got {
		for _, w := range ways {
			if w.Model == catalog.ModelCapacityBlock {
				named++
				v, _ := lowest(o)
				for _, r := range regions {
					if x, ok := lowest(r); ok && x < v {
						t.Errorf("block named in %s at %v, but %s sells it at %v", o.Region, v, r.Region, x)
					}
				}
				if b, _ := lowest(base); !(v < b) || v != 37.76 {
					t.Errorf("block named in %s at %v; want 37.76, below us-west-2's %v", o.Region, v, b)
				}
			}
			if n := catalog.TermMonths(w.Term); w.Model != catalog.ModelCapacityBlock && n > 0 && job.Terms(n) == 0 {
				t.Errorf("%s %s named for a 336 h job that cannot use it", w.Model, w.Term)
			}
		}
	}
	if named != 1 {
		t.Errorf("the Capacity Block named %d times; want once", named)
	}
	// From the cheapest block region, no other region is named for blocks.
	for o, ways := range got {
		for _, w := range ways {
			if w.Model != catalog.ModelCapacityBlock {
				continue
			}
			for _, ws := range WaysElsewhere(e.Catalog, e.FX, job, o, regions) {
				for _, w2 := range ws {
					if w2.Model == catalog.ModelCapacityBlock {
						t.Errorf("from %s, the block is named elsewhere again", o.Region)
					}
				}
			}
		}
	}
}
