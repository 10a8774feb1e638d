package azuretable_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/catalog/build"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
)

// Table GPU sizes without a curated spec, and why (data/curated/azure.yaml's
// header): the build leaves their rows out. The RTX PRO 6000 BSE v6 sizes
// other than the six preview sizes the stored page lists with their GPUs
// are added by noSpecSizes.
var noSpec = noSpecSizes(map[string]string{
	"Standard_NC8ads_A10_v4":  "no size page stored",
	"Standard_NC16ads_A10_v4": "no size page stored",
	"Standard_NC32ads_A10_v4": "no size page stored",
	// variants the series pages do not list
	"Standard_ND96ams_A100_v4":        "not on the NDm_A100_v4 page",
	"Standard_ND96is_H100_v5":         "not on the ND-H100-v5 page",
	"Standard_ND96is_flex_H100_v5":    "not on the ND-H100-v5 page",
	"Standard_ND96is_noIB_H100_v5":    "not on the ND-H100-v5 page",
	"Standard_ND96isf_H100_v5":        "not on the ND-H100-v5 page",
	"Standard_ND96isrf_H100_v5":       "not on the ND-H100-v5 page",
	"Standard_ND96is_MI300X_v5":       "not on the ND-MI300X-v5 page",
	"Standard_ND128isrf_NDR_GB200_v6": "not on the ND GB200-v6 page",
})

func noSpecSizes(m map[string]string) map[string]string {
	for _, s := range []string{"8lds", "16lds", "24lds", "32ds", "32lds", "36ds", "36lds", "64ds", "64lds", "72ds", "72lds",
		"132ds", "132lds", "144ds", "144lds", "264ds", "264lds", "288ds", "288lds", "324ds", "324lds"} {
		m["Standard_NC"+s+"_xl_RTXPRO6000BSE_v6"] = "no stored page lists its GPU fraction"
	}
	return m
}

// The table joined with the curated Azure specs (data/curated/azure*.yaml,
// which list no offers) builds a snapshot in which every table GPU row is a
// priced offering with its spec, except the sizes without one, which the
// build reports; nothing is written to the shared snapshot.
func TestBuildJoinsCuratedSpecs(t *testing.T) {
	specs, err := catalog.ParseSpecs(catalog.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	snap, rep, err := build.BuildFrom(specs, []feeds.Source{curated.New("azure*.yaml"), feed()}, feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*catalog.Offering{}
	for i := range snap.Offerings {
		o := &snap.Offerings[i]
		if o.Provider != "azure" {
			t.Errorf("%s: provider %s", o.Key(), o.Provider)
		}
		byKey[o.InstanceType+" "+o.Region] = o
	}

	// SOURCE.md's samples, with their specs joined.
	o := byKey["Standard_ND96isr_H100_v5 eastus"]
	if o == nil {
		t.Fatal("eastus Standard_ND96isr_H100_v5 not built")
	}
	if !o.OnDemand.Known || !o.OnDemand.Value.Equal(decimal.RequireFromString("98.32")) || o.OnDemand.Currency != "USD" ||
		o.OnDemand.Source != tableID || o.OnDemand.AsOf != tableDate || o.Spot.Known {
		t.Errorf("ND96isr_H100_v5 eastus price = %+v, spot %+v; want 98.32 USD from %s as of %s, spot unknown", o.OnDemand, o.Spot, tableID, tableDate)
	}
	if o.GPU == nil || o.GPU.Name != "H100-SXM5-80GB" || o.GPUCount != 8 || o.VCPUs != 96 || o.MemoryGiB != 1900 || o.Interconnect != catalog.LinkNVSwitch ||
		o.NetworkKind != catalog.NetInfiniBand || o.NetworkGbps != 3200 || o.SpecSource != "azure-size-ndh100v5" || o.Retired != "" || o.China {
		t.Errorf("ND96isr_H100_v5 eastus spec = %+v", o)
	}
	if o := byKey["Standard_NC24ads_A100_v4 eastus"]; o == nil || !o.OnDemand.Value.Equal(decimal.RequireFromString("3.673")) ||
		o.GPU.Name != "A100-PCIe-80GB" || o.GPUCount != 1 || o.GPUMemoryGiB != 80 {
		t.Errorf("NC24ads_A100_v4 eastus = %+v, want 3.673 USD, 1 × A100-PCIe-80GB", o)
	}

	// Every table GPU row is an offering with its spec, unless its size has none.
	rows := readRows(t)
	priced := 0
	tableSizes := map[string]bool{}
	for _, row := range rows {
		size := strings.TrimSpace(row.key)
		if !gpuSizeRE.MatchString(size) {
			continue
		}
		tableSizes[size] = true
		o := byKey[size+" "+row.region]
		if _, ok := noSpec[size]; ok {
			if o != nil {
				t.Errorf("%s %s built, yet it has no curated spec", size, row.region)
			}
			continue
		}
		priced++
		if o == nil {
			t.Errorf("%s %s (price %s): not built", size, row.region, row.price)
			continue
		}
		if !o.OnDemand.Known || !o.OnDemand.Value.Equal(decimal.RequireFromString(row.price)) {
			t.Errorf("%s: price %s, table %s", o.Key(), o.OnDemand.Value, row.price)
		}
		if o.GPU == nil || o.GPUCount <= 0 || o.VCPUs <= 0 || o.MemoryGiB <= 0 || o.SpecSource == "" {
			t.Errorf("%s: spec not joined: %+v", o.Key(), o)
		}
	}
	if len(snap.Offerings) != priced {
		t.Errorf("%d Azure offerings, want one per priced table row with a spec (%d): the curated files list no offers", len(snap.Offerings), priced)
	}

	// Every table size got a spec or is reported left out with its reason.
	var left []string
	for _, l := range snap.LeftOut {
		left = append(left, l.InstanceType)
		if !strings.Contains(l.Reason, "no curated spec") || l.Source != tableID {
			t.Errorf("%s left out: %s (source %s)", l.InstanceType, l.Reason, l.Source)
		}
	}
	slices.Sort(left)
	if want := slices.Sorted(maps.Keys(noSpec)); !slices.Equal(left, want) {
		t.Errorf("sizes left out = %v, want %v", left, want)
	}
	withSpec := map[string]bool{}
	for _, o := range snap.Offerings {
		withSpec[o.InstanceType] = true
	}
	if len(tableSizes) != 93 || len(withSpec)+len(noSpec) != 93 {
		t.Errorf("%d table GPU sizes: %d with a spec, %d without; want 93 in all", len(tableSizes), len(withSpec), len(noSpec))
	}
	if n := len(rep.LeftOut); n != len(rows)-priced {
		t.Errorf("the report leaves out %d rows, want every other row of the table (%d)", n, len(rows)-priced)
	}

	// Every region is in providers.yaml's azure block, with its display
	// name; every source a record cites is in sources.yaml.
	p := specs.Provider("azure")
	for _, o := range snap.Offerings {
		if r := p.RegionInfo(o.Region); r == nil || len(r.Aliases) == 0 || r.China {
			t.Errorf("%s: region not in providers.yaml's azure block with an alias (%+v)", o.Key(), r)
		}
		if o.SpecSource == "azure-gpu-size-pages@2026-12-03" {
			t.Errorf("%s: spec cites the list of pages, not the page it was read from", o.Key())
		}
		for _, s := range []string{o.OnDemand.Source, o.SpecSource, o.NetworkSource, o.RetiredSource} {
			if s != "" && specs.Source(s) == nil {
				t.Errorf("%s cites %q, not in sources.yaml", o.Key(), s)
			}
		}
	}
	if r := p.RegionInfo("eastus"); r == nil || !slices.Contains(r.Aliases, "East US") {
		t.Errorf("eastus = %+v, want the alias East US", r)
	}

	// Slices, links, Arm hosts and retirements as the size pages state them.
	for key, want := range map[string]struct {
		gpu           string
		count, mem    float64
		link, arch    string
		retired, from string
	}{
		"Standard_NV6ads_A10_v5 eastus":                {"A10", 0.1666667, 4, catalog.LinkNone, "x86_64", "", ""},
		"Standard_NV4as_v4 eastus":                     {"MI25", 0.125, 2, catalog.LinkNone, "x86_64", "2026-09-30", "azure-size-nvv4"},
		"Standard_NV12s_v3 eastus":                     {"M60", 1, 8, catalog.LinkNone, "x86_64", "2026-09-30", "azure-size-nvv3"},
		"Standard_NG8ads_V620_v1 eastus2":              {"RadeonProV620", 0.25, 8, catalog.LinkNone, "x86_64", "", ""},
		"Standard_NV4ads_V710_v5 eastus":               {"RadeonProV710", 0.1666667, 4, catalog.LinkNone, "x86_64", "", ""},
		"Standard_ND128isr_NDR_GB200_v6 eastus":        {"GB200", 4, 192, catalog.LinkNVLink, "arm64", "", ""},
		"Standard_ND40rs_v2 eastus":                    {"V100-SXM2-32GB", 8, 32, catalog.LinkNVLink, "x86_64", "", ""},
		"Standard_NC6s_v3 eastus":                      {"V100-16GB", 1, 16, catalog.LinkNone, "x86_64", "2025-09-30", "azure-ncv3-retirement"},
		"Standard_NC6_Promo eastus":                    {"K80", 1, 12, catalog.LinkNone, "x86_64", "2023-09-06", "azure-nc-retirement"},
		"Standard_NV6_Promo eastus":                    {"M60", 1, 8, catalog.LinkNone, "x86_64", "2023-09-06", "azure-nv-retirement"},
		"Standard_ND40s_v2 eastus":                     {"V100-SXM2-16GB", 8, 16, catalog.LinkNVLink, "x86_64", "2020-02-03", "azure-ndv2-preview-2020"},
		"Standard_NC256lds_xl_RTXPRO6000BSE_v6 eastus": {"RTXPRO6000-Server", 2, 96, catalog.LinkPCIe, "x86_64", "2026-06-03", "azure-size-nc-rtxpro6000-bse-v6-overview"},
	} {
		o := byKey[key]
		if o == nil {
			t.Errorf("%s not built", key)
			continue
		}
		if o.GPU.Name != want.gpu || o.GPUCount != want.count || o.GPUMemoryGiB != want.mem || o.Interconnect != want.link || o.Arch != want.arch ||
			o.Retired != want.retired || o.RetiredSource != want.from {
			t.Errorf("%s = %s ×%g, %g GiB, link %s, %s, retired %q (%s); want %s ×%g, %g GiB, %s, %s, retired %q (%s)", key,
				o.GPU.Name, o.GPUCount, o.GPUMemoryGiB, o.Interconnect, o.Arch, o.Retired, o.RetiredSource,
				want.gpu, want.count, want.mem, want.link, want.arch, want.retired, want.from)
		}
	}
}
