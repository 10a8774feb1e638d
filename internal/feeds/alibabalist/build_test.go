package alibabalist_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/catalog/build"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/alibabalist"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
)

// Table GPU types no Alibaba page at hand gives a spec for (see the comments
// in data/curated/alibaba.yaml); the build leaves their rows out.
var noSpec = []string{"ecs.sgn6i-vws-m2.xlarge", "ecs.sgn6i-vws-m4.2xlarge", "ecs.sgn6i-vws-m8.4xlarge"}

// The feed joined with the curated Alibaba files (alibaba.yaml: specs;
// alibaba-unpriced.yaml: types the table lacks, unpriced) builds a snapshot in which
// every table GPU row is a priced offering with its spec, except the types
// without one; nothing is written to the shared snapshot.
func TestBuildJoinsCuratedSpecs(t *testing.T) {
	specs, err := catalog.ParseSpecs(catalog.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := build.BuildFrom(specs, []feeds.Source{curated.New("ali*.yaml"), feed()}, feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*catalog.Offering{}
	for i := range snap.Offerings {
		o := &snap.Offerings[i]
		if o.Provider != "alibaba" {
			t.Errorf("%s: provider %s", o.Key(), o.Provider)
		}
		byKey[o.InstanceType+" "+o.Region] = o
	}

	// SOURCE.md's sample row, with its spec joined.
	o := byKey["ecs.gn7i-c8g1.2xlarge cn-hangzhou"]
	if o == nil {
		t.Fatal("cn-hangzhou ecs.gn7i-c8g1.2xlarge not built")
	}
	if !o.OnDemand.Known || !o.OnDemand.Value.Equal(decimal.RequireFromString("9.5326")) || o.OnDemand.Currency != "CNY" ||
		o.OnDemand.Source != tableID || o.OnDemand.AsOf != tableDate {
		t.Errorf("gn7i-c8g1.2xlarge cn-hangzhou price = %+v, want 9.5326 CNY from %s as of %s", o.OnDemand, tableID, tableDate)
	}
	if o.GPU == nil || o.GPU.Name != "A10" || o.GPUCount != 1 || o.GPUMemoryGiB != 24 || o.VCPUs != 8 || o.MemoryGiB != 30 ||
		o.NetworkGbps != 16 || !o.China || o.SpecSource != "alibaba-gpu-docs@2026-12-03" || o.Interconnect != catalog.LinkNone {
		t.Errorf("gn7i-c8g1.2xlarge cn-hangzhou spec = %+v", o)
	}

	// Every table GPU row with a price is an offering, with a spec unless
	// the type is one of noSpec; nothing else of the feed is.
	table := readTable(t)
	priced := 0
	for region, types := range table {
		for typ, price := range types {
			if !alibabalist.IsGPUType(typ) || !decimal.RequireFromString(string(price)).IsPositive() {
				continue
			}
			o := byKey[typ+" "+region]
			if slices.Contains(noSpec, typ) {
				if o != nil {
					t.Errorf("%s %s built without a curated spec", typ, region)
				}
				continue
			}
			priced++
			if o == nil {
				t.Errorf("%s %s (price %s): not built", typ, region, price)
				continue
			}
			if !o.OnDemand.Known || !o.OnDemand.Value.Equal(decimal.RequireFromString(string(price))) {
				t.Errorf("%s: price %s, table %s", o.Key(), o.OnDemand.Value, price)
			}
			if o.GPU == nil || o.GPUCount <= 0 || o.VCPUs <= 0 || o.MemoryGiB <= 0 {
				t.Errorf("%s: spec not joined: %+v", o.Key(), o)
			}
		}
	}
	var left []string
	for _, l := range snap.LeftOut {
		if !strings.Contains(l.Reason, "no curated spec") {
			t.Errorf("%s left out: %s", l.InstanceType, l.Reason)
		}
		left = append(left, l.InstanceType)
	}
	slices.Sort(left)
	if !slices.Equal(left, noSpec) {
		t.Errorf("types left out = %v, want %v", left, noSpec)
	}

	// The types the table lacks keep one unpriced (placeholder) offer each;
	// every other Alibaba offering is priced.
	unpriced := 0
	for i := range snap.Offerings {
		o := &snap.Offerings[i]
		if _, inTable := table[o.Region][o.InstanceType]; inTable {
			continue
		}
		unpriced++
		if o.OnDemand.Known || !o.OnDemand.Value.IsZero() || o.OnDemand.Currency != "CNY" || o.Region != "cn-hangzhou" {
			t.Errorf("%s: not in the table, yet priced %+v", o.Key(), o.OnDemand)
		}
	}
	if unpriced != 22 || len(snap.Offerings) != priced+unpriced {
		t.Errorf("%d offerings: %d priced, %d unpriced; want %d priced and 22 unpriced (gn7s ×7, gn8is ×5, gn8v ×8, ebmgn8v, gn6e-c12g1.6xlarge)",
			len(snap.Offerings), len(snap.Offerings)-unpriced, unpriced, priced)
	}

	// Every region is in providers.yaml, China-flagged for the mainland only.
	p := specs.Provider("alibaba")
	for _, o := range snap.Offerings {
		r := p.RegionInfo(o.Region)
		if r == nil {
			t.Errorf("%s: region not in providers.yaml's alibaba block", o.Key())
			continue
		}
		mainland := strings.HasPrefix(o.Region, "cn-") && o.Region != "cn-hongkong"
		if r.China != mainland || o.China != mainland || len(r.Aliases) == 0 {
			t.Errorf("%s: china %v (offering %v), want %v; aliases %v", o.Key(), r.China, o.China, mainland, r.Aliases)
		}
	}

	// Slices, links and Arm hosts as the pages state them.
	for key, want := range map[string]struct {
		gpu        string
		count, mem float64
		link, arch string
	}{
		"ecs.sgn7i-vws-m2.xlarge cn-hangzhou":  {"A10", 0.0833333, 2, catalog.LinkNone, "x86_64"},
		"ecs.vgn6i-m8-vws.2xlarge cn-hangzhou": {"T4", 0.5, 8, catalog.LinkNone, "x86_64"},
		"ecs.gn7i-c32g1.32xlarge cn-hangzhou":  {"A10", 4, 24, catalog.LinkPCIe, "x86_64"},
		"ecs.gn7-c13g1.26xlarge cn-beijing":    {"A100-40GB", 8, 40, catalog.LinkNVSwitch, "x86_64"},
		"ecs.gn6v-c8g1.16xlarge cn-hangzhou":   {"V100-SXM2-16GB", 8, 16, catalog.LinkNVLink, "x86_64"},
		"ecs.gn7e-c16g1.32xlarge cn-beijing":   {"A100-80GB", 8, 80, catalog.LinkNVLink, "x86_64"},
	} {
		o := byKey[key]
		if o == nil {
			t.Errorf("%s not built", key)
			continue
		}
		if o.GPU.Name != want.gpu || o.GPUCount != want.count || o.GPUMemoryGiB != want.mem || o.Interconnect != want.link || o.Arch != want.arch {
			t.Errorf("%s = %s ×%g, %g GiB, link %s, %s; want %s ×%g, %g GiB, %s, %s", key, o.GPU.Name, o.GPUCount, o.GPUMemoryGiB, o.Interconnect, o.Arch,
				want.gpu, want.count, want.mem, want.link, want.arch)
		}
	}
}
