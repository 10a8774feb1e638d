package tencentdocs_test

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentdocs"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// TestRegionTableMatchesProviders: every region the headings map to is in
// the tencent block of providers.yaml, mainland exactly where it says china.
func TestRegionTableMatchesProviders(t *testing.T) {
	specs, err := catalog.ParseSpecs(catalog.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	p := specs.Provider("tencent")
	if p == nil {
		t.Fatal("no tencent provider")
	}
	headings, names := map[string]bool{}, map[string]bool{}
	for _, r := range tencentdocs.Regions() {
		if headings[r.Heading] || names[r.Name] {
			t.Errorf("%q -> %s: heading or region listed twice", r.Heading, r.Name)
		}
		headings[r.Heading], names[r.Name] = true, true
		info := p.RegionInfo(r.Name)
		if info == nil {
			t.Errorf("%q -> %s: not a tencent region in providers.yaml", r.Heading, r.Name)
			continue
		}
		if info.China != r.Mainland {
			t.Errorf("%s: mainland %v here, china %v in providers.yaml", r.Name, r.Mainland, info.China)
		}
		if got, ok := tencentdocs.RegionForHeading(r.Heading); !ok || got != r {
			t.Errorf("RegionForHeading(%q) = %+v, %v", r.Heading, got, ok)
		}
	}
	if _, ok := tencentdocs.RegionForHeading("Moscow"); ok {
		t.Error("Moscow (no longer on the page) maps to a region")
	}
}

// TestEveryPageHeadingIsInTheTable: the CVM page's headings are exactly the table's.
func TestEveryPageHeadingIsInTheTable(t *testing.T) {
	var got []string
	for _, l := range fileLines(t, files.CVM.Path) {
		if h, ok := strings.CutPrefix(l, "### "); ok {
			got = append(got, h)
		}
	}
	rs := tencentdocs.Regions()
	if len(got) != len(rs) {
		t.Fatalf("page headings %q; table has %d", got, len(rs))
	}
	for i, h := range got {
		if rs[i].Heading != h {
			t.Errorf("heading %d: page %q, table %q", i, h, rs[i].Heading)
		}
	}
}

func TestZoneForPlace(t *testing.T) {
	r, zone, err := tencentdocs.ZoneForPlace("Guangzhou Zone 3")
	if err != nil || r.Name != "ap-guangzhou" || zone != "ap-guangzhou-3" {
		t.Errorf("Guangzhou Zone 3 -> %s %s %v; want ap-guangzhou ap-guangzhou-3", r.Name, zone, err)
	}
	for _, bad := range []string{"Guangzhou", "Mars Zone 1", "Guangzhou Zone 0", "Guangzhou Zone three", ""} {
		if _, _, err := tencentdocs.ZoneForPlace(bad); err == nil || !strings.Contains(err.Error(), "Zone") {
			t.Errorf("ZoneForPlace(%q): err %v; want one naming the place", bad, err)
		}
	}
}

// TestAvailabilityCoversTheList: every type of the China-site list is
// placed in at least one mainland region, and only in mainland regions.
func TestAvailabilityCoversTheList(t *testing.T) {
	rows, err := tencentdocs.ParseList(shareddata.Open(t, files.List.Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		rs := tencentdocs.MainlandRegions(r.InstanceType)
		if len(rs) == 0 {
			t.Errorf("%s: no mainland region", r.InstanceType)
		}
		for _, name := range rs {
			if !mainland()[name] {
				t.Errorf("%s: %s is not a mainland region of the table", r.InstanceType, name)
			}
		}
	}
	if rs := tencentdocs.MainlandRegions("GN10X.4XLARGE80"); strings.Join(rs, " ") != "ap-chengdu ap-chongqing ap-guangzhou ap-nanjing" {
		t.Errorf("GN10X.4XLARGE80 in %v; the NVIDIA GPU instances page sells it in Guangzhou, Nanjing, Chengdu and Chongqing", rs)
	}
	if rs := tencentdocs.MainlandRegions("PNV4.7XLARGE116"); rs != nil {
		t.Errorf("PNV4 placed in %v; the feed prices no PNV4", rs)
	}
}
