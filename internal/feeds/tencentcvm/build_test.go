package tencentcvm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/catalog/build"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentcvm"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// resultSource is an imported Result as a feeds.Source, as the refresh
// wraps one.
type resultSource struct{ res *feeds.Result }

func (r resultSource) ID() string { return "tencentcvm-refresh" }
func (r resultSource) Describe() feeds.Description {
	return feeds.Description{Title: "refreshed", Yields: "offerings", Reads: []feeds.Input{{Root: feeds.Shared, Path: "refresh"}}}
}
func (r resultSource) Read(feeds.Inputs) (*feeds.Result, error) { return r.res, nil }

// specsOnly keeps the curated specs of a feed and drops its offerings: the
// curated ap-guangzhou rows are unpriced and region-wide, and a later price
// row of the same type and region is only cross-checked against them.
type specsOnly struct{ feeds.Source }

func (s specsOnly) Read(in feeds.Inputs) (*feeds.Result, error) {
	r, err := s.Source.Read(in)
	if err != nil {
		return nil, err
	}
	return &feeds.Result{Specs: r.Specs}, nil
}

// TestBuildsIntoCatalog: the imported records build into catalog offerings
// (the machine from data/curated/tencent.yaml, the prices from the answer,
// CNY, cited) and subscriptions, with a source entry for the refresh.
func TestBuildsIntoCatalog(t *testing.T) {
	fh, err := os.Open("testdata/zoneconfig-gpu-synthetic.json")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	const src = "tencent-cvm-api@2026-11-30"
	res, err := tencentcvm.New().Parse(tencentcvm.FormatZoneConfig, fh, feeds.ParseOptions{Source: src, AsOf: "2026-11-30", Origin: "z.json"})
	if err != nil {
		t.Fatal(err)
	}
	// A mainland region beyond the three the curated file lists: its offerings are China ones.
	nanjing := `{"InstanceTypeQuotaSet":[{"Zone":"ap-nanjing-1","InstanceType":"GT4.41XLARGE948","InstanceChargeType":"POSTPAID_BY_HOUR","GpuCount":8,"Price":{"UnitPrice":100,"Discount":80,"ChargeUnit":"HOUR"}}]}`
	nj, err := tencentcvm.New().Parse(tencentcvm.FormatZoneConfig, strings.NewReader(nanjing), feeds.ParseOptions{Source: src, AsOf: "2026-11-30", Origin: "nj.json"})
	if err != nil {
		t.Fatal(err)
	}
	res.Offerings = append(res.Offerings, nj.Offerings...)
	files := catalog.Embedded()
	files.Sources = append(files.Sources, []byte("\n- id: "+src+"\n  title: Tencent Cloud CVM DescribeZoneInstanceConfigInfos (test)\n  url: https://cvm.tencentcloudapi.com\n")...)
	specs, err := catalog.ParseSpecs(files)
	if err != nil {
		t.Fatal(err)
	}
	in := feeds.Inputs{Curated: os.DirFS(filepath.Join(shareddata.ModuleRoot(t), "data", "curated"))}
	snap, _, err := build.BuildFrom(specs, []feeds.Source{specsOnly{curated.New("tencent.yaml")}, resultSource{res}}, in)
	if err != nil {
		t.Fatal(err)
	}
	var gt4 *catalog.Offering
	for i, o := range snap.Offerings {
		if o.Provider == "tencent" && o.InstanceType == "GT4.41XLARGE948" && o.Zone == "ap-guangzhou-3" {
			gt4 = &snap.Offerings[i]
		}
	}
	found := false
	for _, o := range snap.Offerings {
		if o.Provider == "tencent" && o.Region == "ap-nanjing" {
			found = true
			if !o.China || !o.OnDemand.Known {
				t.Errorf("ap-nanjing offering: China %v, on-demand %+v; want a priced China offering", o.China, o.OnDemand)
			}
		}
	}
	if !found {
		t.Error("no ap-nanjing offering")
	}
	if gt4 == nil {
		t.Fatalf("no GT4.41XLARGE948 in ap-guangzhou-3 among %d offerings", len(snap.Offerings))
	}
	if gt4.GPU == nil || gt4.GPU.Name != "A100-SXM4-40GB" || gt4.GPUCount != 8 {
		t.Errorf("GT4 machine %v × %v, want 8 × A100-SXM4-40GB from the curated spec", gt4.GPUCount, gt4.GPU)
	}
	for _, p := range []struct {
		name string
		p    catalog.Price
		want string
	}{{"on-demand", gt4.OnDemand, "80"}, {"spot", gt4.Spot, "20"}} {
		if !p.p.Known || !p.p.Value.Equal(decimal.RequireFromString(p.want)) || p.p.Currency != "CNY" || p.p.Source != src {
			t.Errorf("%s = %+v, want %s CNY cited %s", p.name, p.p, p.want, src)
		}
	}
	terms := map[string]bool{}
	for _, c := range snap.Commitments {
		if c.Provider == "tencent" && c.InstanceType == "GT4.41XLARGE948" && c.Region == "ap-guangzhou" {
			terms[c.Term] = true
		}
	}
	if len(terms) != 3 {
		t.Errorf("subscriptions %v, want 1mo, 1y and 3y", terms)
	}
}

// TestZonesPricedApart: two zones of one region priced differently (Tencent
// prices zones apart) are two offerings, each with its own on-demand and
// spot price; before, the second zone's row was only cross-checked against
// the first and failed the whole build.
func TestZonesPricedApart(t *testing.T) {
	const src = "tencent-cvm-api@2026-11-30"
	body := `{"InstanceTypeQuotaSet":[
{"Zone":"ap-guangzhou-3","InstanceType":"GT4.41XLARGE948","InstanceChargeType":"POSTPAID_BY_HOUR","GpuCount":8,"Price":{"UnitPrice":100,"Discount":80,"ChargeUnit":"HOUR"}},
{"Zone":"ap-guangzhou-4","InstanceType":"GT4.41XLARGE948","InstanceChargeType":"POSTPAID_BY_HOUR","GpuCount":8,"Price":{"UnitPrice":110,"Discount":80,"ChargeUnit":"HOUR"}},
{"Zone":"ap-guangzhou-4","InstanceType":"GT4.41XLARGE948","InstanceChargeType":"SPOTPAID","GpuCount":8,"Price":{"UnitPrice":110,"Discount":20,"ChargeUnit":"HOUR"}}]}`
	res, err := tencentcvm.New().Parse(tencentcvm.FormatZoneConfig, strings.NewReader(body), feeds.ParseOptions{Source: src, AsOf: "2026-11-30", Origin: "z.json"})
	if err != nil {
		t.Fatal(err)
	}
	files := catalog.Embedded()
	files.Sources = append(files.Sources, []byte("\n- id: "+src+"\n  title: Tencent Cloud CVM DescribeZoneInstanceConfigInfos (test)\n  url: https://cvm.tencentcloudapi.com\n")...)
	specs, err := catalog.ParseSpecs(files)
	if err != nil {
		t.Fatal(err)
	}
	in := feeds.Inputs{Curated: os.DirFS(filepath.Join(shareddata.ModuleRoot(t), "data", "curated"))}
	snap, _, err := build.BuildFrom(specs, []feeds.Source{specsOnly{curated.New("tencent.yaml")}, resultSource{res}}, in)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range snap.Offerings {
		if o.InstanceType == "GT4.41XLARGE948" && o.Region == "ap-guangzhou" {
			got[o.Zone] = o.OnDemand.Value.String() + "/" + o.Spot.Value.String()
		}
	}
	want := map[string]string{"ap-guangzhou-3": "80/0", "ap-guangzhou-4": "88/22"}
	if len(got) != 2 || got["ap-guangzhou-3"] != want["ap-guangzhou-3"] || got["ap-guangzhou-4"] != want["ap-guangzhou-4"] {
		t.Errorf("zones %v, want %v", got, want)
	}
}
