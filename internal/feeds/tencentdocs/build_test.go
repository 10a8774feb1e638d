package tencentdocs_test

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/catalog/build"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
)

// buildTencent builds a snapshot of the curated Tencent files and this
// feed only, from the real inputs, without touching the embedded snapshot.
func buildTencent(t *testing.T) (*catalog.Catalog, *catalog.Snapshot, *build.Report) {
	t.Helper()
	specs, err := catalog.ParseSpecs(catalog.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	snap, rep, err := build.BuildFrom(specs, []feeds.Source{curated.New("tencent*.yaml"), feed()}, feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	return specs, snap, rep
}

// TestBuildJoinsPricesWithCuratedSpecs: every priced row joins its curated
// spec; in mainland China the China-site list prices a type it lists,
// elsewhere the region's own price; a GT4 carries its 包年包月.
func TestBuildJoinsPricesWithCuratedSpecs(t *testing.T) {
	specs, snap, rep := buildTencent(t)
	for _, l := range rep.LeftOut {
		if strings.Contains(l.Reason, "curated spec") || strings.Contains(l.Reason, "does not list") {
			t.Errorf("left out by the build: %s", l)
		}
	}
	offs := map[string]*catalog.Offering{}
	for i := range snap.Offerings {
		o := &snap.Offerings[i]
		offs[o.Key()] = o
	}
	for _, tc := range []struct {
		key, price, cur, source, gpu string
		gpus, vcpus                  float64
		china                        bool
		link                         string
	}{
		// Guangzhou: the China-site list (11.98 CNY), region-wide, beside its 包年包月; the
		// international GPU overview's Zone 3 price (1.72 USD) is set aside.
		{"tencent/GN10Xp.2XLARGE40/ap-guangzhou/", "11.98", "CNY", "tencent-qcloud-gpu-prices@8ec07296", "V100-SXM2-32GB", 1, 10, true, catalog.LinkNone},
		{"tencent/GN10Xp.2XLARGE40/ap-guangzhou/ap-guangzhou-3", "", "", "", "", 0, 0, false, ""},
		{"tencent/GN10Xp.20XLARGE320/ap-chengdu/", "95.84", "CNY", "tencent-qcloud-gpu-prices@8ec07296", "V100-SXM2-32GB", 8, 80, true, catalog.LinkNVLink},
		{"tencent/GT4.41XLARGE948/ap-beijing/", "237.51", "CNY", "tencent-qcloud-gpu-prices@8ec07296", "A100-SXM4-40GB", 8, 164, true, catalog.LinkNVLink},
		// The list gives 16.21 - 18.04 CNY for mainland China: the upper end, as its 包年包月
		// (the CVM page's Nanjing 2.56 USD is set aside).
		{"tencent/GN10X.2XLARGE40/ap-nanjing/", "18.04", "CNY", "tencent-qcloud-gpu-prices@8ec07296", "V100-SXM2-32GB", 1, 8, true, catalog.LinkNone},
		// Outside mainland China: the CVM page's own region price.
		{"tencent/GN8.14XLARGE448/na-siliconvalley/", "20.07", "USD", "tencent-intl-cvm-prices@b7e17ea6", "P40", 8, 56, false, catalog.LinkPCIe},
		{"tencent/GI3X.45XLARGE452/ap-chongqing/", "38.33", "CNY", "tencent-qcloud-gpu-prices@8ec07296", "T4", 4, 180, true, catalog.LinkPCIe},
		{"tencent/GN7.LARGE20/ap-hongkong/", "", "", "", "", 0, 0, false, ""}, // not on the CVM page's Hong Kong section
	} {
		o := offs[tc.key]
		if tc.price == "" {
			if o != nil {
				t.Errorf("%s: offered, but no page prices it there (or another prices it)", tc.key)
			}
			continue
		}
		if o == nil {
			t.Errorf("%s: not in the snapshot", tc.key)
			continue
		}
		if !o.OnDemand.Known || o.OnDemand.Value.String() != tc.price || string(o.OnDemand.Currency) != tc.cur || o.OnDemand.Source != tc.source {
			t.Errorf("%s: on-demand %s %s (%s); want %s %s (%s)", tc.key, o.OnDemand.Value, o.OnDemand.Currency, o.OnDemand.Source, tc.price, tc.cur, tc.source)
		}
		if o.GPU != specs.GPU(tc.gpu) || o.GPUCount != tc.gpus || o.VCPUs != tc.vcpus || o.China != tc.china || o.Interconnect != tc.link ||
			o.SpecSource != "tencent-gpu-instance-types@b7e17ea6" {
			t.Errorf("%s: %v x%v, %v vCPUs, china %v, link %s, spec %s; want %s x%v, %v vCPUs, china %v, link %s from tencent-gpu-instance-types@b7e17ea6",
				tc.key, o.GPU, o.GPUCount, o.VCPUs, o.China, o.Interconnect, o.SpecSource, tc.gpu, tc.gpus, tc.vcpus, tc.china, tc.link)
		}
	}
	// 包年包月: the GT4 8-GPU type in each of its 4 regions at 114,016 CNY a month;
	// GN8.LARGE56 at the upper end of 3520 - 4400.
	subs := map[string][]catalog.Commitment{}
	for _, c := range snap.Commitments {
		subs[c.InstanceType] = append(subs[c.InstanceType], c)
	}
	for typ, want := range map[string]struct {
		monthly string
		regions int
	}{"GT4.41XLARGE948": {"114016", 4}, "GN8.LARGE56": {"4400", 5}, "GN10Xp.2XLARGE40": {"5750", 6}} {
		cs := subs[typ]
		if len(cs) != want.regions {
			t.Errorf("%s: %d subscriptions, want %d (one per mainland region)", typ, len(cs), want.regions)
		}
		for _, c := range cs {
			if c.Model != catalog.ModelSubscription || c.Term != "1mo" || c.Payment != catalog.PayMonthly || c.TermMonths() != 1 ||
				c.Monthly.String() != want.monthly || c.Currency != "CNY" || !c.Upfront.IsZero() {
				t.Errorf("%s %s: %+v; want subscription 1mo monthly %s CNY", typ, c.Region, c, want.monthly)
			}
		}
	}
	// PNV4: no public price; its curated offer stays, unknown.
	if o := offs["tencent/PNV4.56XLARGE932/ap-guangzhou/"]; o == nil || o.OnDemand.Known {
		t.Errorf("PNV4.56XLARGE932 ap-guangzhou: %+v; want the curated offer with an unknown price", o)
	}
	priced, tencent := 0, 0
	for _, o := range snap.Offerings {
		if o.Provider == "tencent" {
			tencent++
			if o.OnDemand.Known {
				priced++
			}
		}
	}
	if tencent != 175 || priced != 171 || len(snap.Commitments) != 150 {
		t.Errorf("%d Tencent offerings, %d priced, %d subscriptions; want 175 (171 priced, 4 PNV4), 150", tencent, priced, len(snap.Commitments))
	}
}
