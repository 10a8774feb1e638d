package skypilot

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Vast writes regions as "State, CC, Continent" and often leaves the state
// empty; the region must not then start with a comma.
func TestVastRegion(t *testing.T) {
	for _, tc := range []struct{ in, region, country string }{
		{", CN, AS", "CN, AS", "CN"},
		{", US, NA", "US, NA", "US"},
		{"Sichuan, CN, AS", "Sichuan, CN, AS", "CN"},
		{"British Columbia, CA, NA", "British Columbia, CA, NA", "CA"},
		{"  , CA , NA ", "CA, NA", "CA"},
		{"somewhere", "somewhere", ""},
		{"", "", ""},
	} {
		region, country := VastRegion(tc.in)
		if region != tc.region || country != tc.country {
			t.Errorf("VastRegion(%q) = %q, %q; want %q, %q", tc.in, region, country, tc.region, tc.country)
		}
	}
}

// The feed reads Vast rows with an empty state as "CC, Continent", keeps the
// country, and reports CPU-only rows as left out.
func TestFeedVastEmptyState(t *testing.T) {
	csv := "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\r\n" +
		`2x-RTX_3090-32-65536,RTX3090,2,32,64.0,"{'Gpus': [{'Name': 'RTX3090', 'Count': 2, 'MemoryInfo': {'SizeInMiB': 49152}}], 'TotalGpuMemoryInMiB': 49152}",0.33,0.00,", CN, AS"` + "\r\n" +
		`cpu-only,,0,32,64.0,,0.10,0.00,"Sichuan, CN, AS"` + "\r\n"
	f := New(File{Path: "vast/vms.csv", Cloud: "vast", Source: "s", AsOf: "2026-07-09", MemoryIsTotal: true, StateCountryContinent: true})
	res, err := f.Read(feeds.Inputs{Shared: fstest.MapFS{"vast/vms.csv": {Data: []byte(csv)}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 1 {
		t.Fatalf("%d offerings, want 1", len(res.Offerings))
	}
	o := res.Offerings[0]
	if o.Region != "CN, AS" || o.Country != "CN" || o.GPUMemoryMiB != 24576 || o.Spot.Known {
		t.Errorf("got region %q country %q per-GPU %v MiB spot known %v; want \"CN, AS\", CN, 24576, false", o.Region, o.Country, o.GPUMemoryMiB, o.Spot.Known)
	}
	if len(res.LeftOut) != 1 || res.LeftOut[0].Origin != "vast/vms.csv:3" || !strings.Contains(res.LeftOut[0].Reason, "CPU-only") {
		t.Errorf("left out = %v, want vast/vms.csv:3 as CPU-only", res.LeftOut)
	}
}
