package usercatalog

import (
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// TestBuildSkyPilotNaming: a SkyPilot-catalog refresh (records in SkyPilot's
// cloud names) keeps SkyPilot's accelerator and region names for exports,
// and a row it gives no price (only the machine, cited by the feed's
// source) still applies: its spec source is among the set's sources.
func TestBuildSkyPilotNaming(t *testing.T) {
	base := embedded(t)
	const src = "skypilot-v9-lambda@2026-11-30"
	res := &feeds.Result{Naming: feeds.SkyPilotClouds, Offerings: []feeds.Offering{{
		Origin: "vms.csv:2", Provider: "lambda", InstanceType: "gpu_8x_h100_sxm5", Region: "us-east-1", Accelerator: "H100", GPUMemoryMiB: 81920,
		Machine:  feeds.Machine{GPUCount: 8, VCPUs: 208, MemoryGiB: 1800, Arch: "x86_64", SpecSource: src},
		OnDemand: feeds.Unknown("USD"),
	}}}
	set, _, err := Build(base, res, meta("lambda", []string{"us-east-1"}, day))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Snapshot.Offerings); n != 1 {
		t.Fatalf("%d offerings, want 1", n)
	}
	o := set.Snapshot.Offerings[0]
	if o.SkyPilotAccelerator != "H100" || o.SkyPilotRegion != "us-east-1" || o.OnDemand.Known || o.SpecSource != src {
		t.Errorf("offering: SkyPilot names %q %q, price known %v, spec source %q; want H100, us-east-1, unknown, %s",
			o.SkyPilotAccelerator, o.SkyPilotRegion, o.OnDemand.Known, o.SpecSource, src)
	}
	if !set.Cites(src) {
		t.Errorf("set sources %v lack %s", set.Meta.Sources, src)
	}
	if _, _, err := Overlay(base, []*Set{set}); err != nil {
		t.Errorf("overlay: %v", err)
	}
}
