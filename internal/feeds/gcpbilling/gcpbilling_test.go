package gcpbilling

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

const recorded = "price-feeds/gcp-catalog-skus.json"

// curatedSpecs are the catalog's curated GCP machine shapes (data/curated/gcp.yaml).
func curatedSpecs(t testing.TB) []feeds.Spec {
	t.Helper()
	res, err := curated.New("gcp.yaml").Read(feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Specs) == 0 {
		t.Fatal("no curated GCP specs")
	}
	return res.Specs
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func parseRecorded(t *testing.T, specs []feeds.Spec) *feeds.Result {
	t.Helper()
	res, err := New(specs).Parse(Format, shareddata.Open(t, "price-feeds", "gcp-catalog-skus.json"),
		feeds.ParseOptions{Source: "test-src", AsOf: "2023-08-14", Origin: "skus.json"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestParseDatedByEffectiveTime: a skus.list response is dated by the
// latest effectiveTime of its SKUs' pricing (the recorded page's A2 SKUs say
// 2023-03-24T10:52:50.681Z, its E2 and T2D SKUs 2023-08-10T22:49:22.905126Z:
// the page answered on 2023-08-10, when the A2 prices were still in effect),
// never by the day it is read; a given as-of date wins.
func TestParseDatedByEffectiveTime(t *testing.T) {
	for _, tc := range []struct{ given, want string }{{"", "2023-08-10"}, {"2023-08-14", "2023-08-14"}} {
		res, err := New(curatedSpecs(t)).Parse(Format, shareddata.Open(t, "price-feeds", "gcp-catalog-skus.json"),
			feeds.ParseOptions{Source: "test-src", AsOf: tc.given, Origin: "skus.json"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Offerings) == 0 {
			t.Fatal("no offering priced")
		}
		for _, o := range res.Offerings {
			if o.OnDemand.AsOf != tc.want {
				t.Errorf("as-of %q given: %s %s dated %s, want %s", tc.given, o.InstanceType, o.Region, o.OnDemand.AsOf, tc.want)
			}
		}
	}
	page := `{"skus":[{"skuId":"A","description":"Nvidia Tesla A100 GPU running in Americas","category":{"resourceFamily":"Compute","resourceGroup":"GPU","usageType":"OnDemand"},"serviceRegions":["us-central1"],"pricingInfo":[{"pricingExpression":{"usageUnit":"h","tieredRates":[{"unitPrice":{"currencyCode":"USD","units":"2","nanos":0}}]}}]}]}`
	if _, err := New(curatedSpecs(t)).Parse(Format, strings.NewReader(page), feeds.ParseOptions{Source: "s"}); !errors.Is(err, feeds.ErrNoDate) {
		t.Errorf("SKUs without effectiveTime and no as-of: err %v, want feeds.ErrNoDate", err)
	}
}

// TestParseRecordedHandSum: a2-highgpu-8g is 8 A100 GPUs, 96 vCPUs and 680 GiB
// (data/curated/gcp.yaml); the recorded SKUs price them at 2.933908 (Nvidia
// Tesla A100 GPU running in Americas, units 2 + nanos 933908000), 0.031611
// (A2 Instance Core, nanos 31611000) and 0.004237 (A2 Instance Ram, nanos
// 4237000) per hour in us-central1, us-east1 and us-west1.
func TestParseRecordedHandSum(t *testing.T) {
	res := parseRecorded(t, curatedSpecs(t))
	hand := dec("2.933908").Mul(dec("8")).Add(dec("0.031611").Mul(dec("96"))).Add(dec("0.004237").Mul(dec("680")))
	if !hand.Equal(dec("29.38708")) {
		t.Fatalf("hand sum = %s, want 29.38708", hand)
	}
	var regions []string
	for _, o := range res.Offerings {
		if o.InstanceType != "a2-highgpu-8g" {
			t.Errorf("offering %s: only a2-highgpu-8g has all its SKUs in the file", o.InstanceType)
			continue
		}
		regions = append(regions, o.Region)
		if !o.OnDemand.Known || !o.OnDemand.Amount.Equal(hand) || o.OnDemand.Currency != "USD" || o.OnDemand.Source != "test-src" || o.OnDemand.AsOf != "2023-08-14" {
			t.Errorf("%s on-demand = %+v, want %s USD cited test-src 2023-08-14", o.Region, o.OnDemand, hand)
		}
		if o.Spot.Known {
			t.Errorf("%s: spot %s known, but the file has no Preemptible SKU", o.Region, o.Spot.Amount)
		}
		if o.GPU != "A100-SXM4-40GB" || o.GPUCount != 8 || o.VCPUs != 96 || o.MemoryGiB != 680 {
			t.Errorf("%s machine = %+v, want the curated shape", o.Region, o.Machine)
		}
	}
	if got, want := strings.Join(regions, ","), "us-central1,us-east1,us-west1"; got != want {
		t.Errorf("regions = %s, want %s", got, want)
	}
	if len(res.Commitments) != 0 {
		t.Errorf("%d commitments from a file without Commit SKUs", len(res.Commitments))
	}
	// The four T2D/E2 SKUs are priced in IDR: left out for their currency.
	idr := 0
	for _, l := range res.LeftOut {
		if strings.Contains(l.Reason, `price in "IDR", expected USD`) {
			idr++
		}
	}
	noGPU := map[string]bool{}
	for _, l := range res.LeftOut {
		if strings.Contains(l.Reason, "GPU in the regions read") {
			noGPU[l.What] = true
		}
	}
	if idr != 4 || len(noGPU) != 3 || len(res.LeftOut) != 7 {
		t.Errorf("left out %v, want the 4 IDR SKUs and the 3 curated shapes without a GPU SKU", res.LeftOut)
	}
}

// TestAgreesWithCatalog: the SKU sum equals the catalog's current
// a2-highgpu-8g us-central1 price (Cyclenerd's pricing.yml, 2026-07-30).
func TestAgreesWithCatalog(t *testing.T) {
	res := parseRecorded(t, curatedSpecs(t))
	f, err := os.Open(filepath.Join(shareddata.ModuleRoot(t), "internal", "catalog", "data", "offerings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var cat string
	for _, r := range rows[1:] {
		if r[col["provider"]] == "gcp" && r[col["instance_type"]] == "a2-highgpu-8g" && r[col["region"]] == "us-central1" {
			cat = r[col["price"]]
		}
	}
	for _, o := range res.Offerings {
		if o.Region == "us-central1" && !o.OnDemand.Amount.Equal(dec(cat)) {
			t.Errorf("SKU sum %s, catalog %s (cyclenerd): they disagree", o.OnDemand.Amount, cat)
		}
	}
}

func TestConformance(t *testing.T) {
	src := NewFeed(recorded, "gcp-billing-skus@2023-08-14", "2023-08-14", curatedSpecs(t))
	// Counted by hand from the file: the A100/A2 SKUs serve 3 regions (3
	// offerings), 4 SKUs are priced in IDR (left out), and the other 3
	// curated shapes (a2-ultragpu-8g, a3-highgpu-8g, a3-megagpu-8g) have no
	// GPU SKU in it (left out).
	feedstest.Run(t, src, feedstest.Want{Rows: map[string]int{recorded: 3 + 4 + 3}})
}

func TestMoneyAmount(t *testing.T) {
	for _, c := range []struct {
		units string
		nanos int64
		want  string // "" = error
	}{
		{"2", 933908000, "2.933908"},
		{"0", 4237000, "0.004237"},
		{"", 500000000, "0.5"},
		{"-1", -500000000, "-1.5"},
		{"1", -1, ""},
		{"0", 1000000000, ""},
		{"x", 0, ""},
		{"1.5", 0, ""},
	} {
		got, err := Money{Units: jsonNumber(c.units), Nanos: c.nanos}.Amount()
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s/%d: %s, want an error", c.units, c.nanos, got)
		case c.want != "" && (err != nil || !got.Equal(dec(c.want))):
			t.Errorf("%s/%d: %s %v, want %s", c.units, c.nanos, got, err, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct{ group, desc, part, name, why string }{
		{"GPU", "Nvidia Tesla A100 GPU running in Americas", partGPU, "a100", ""},
		{"GPU", "Spot Preemptible Nvidia Tesla A100 80GB GPU running in EMEA", partGPU, "a100 80gb", ""},
		{"GPU", "Commitment v1: Nvidia L4 GPU running in APAC for 3 Years", partGPU, "l4", ""},
		{"GPU", "Nvidia H100 80GB GPU attached to A3 VMs running in Americas", partGPU, "h100 80gb", ""},
		{"CPU", "A2 Instance Core running in Americas", partCore, "a2", ""},
		{"CPU", "Commitment v1: A2 Cpu in APAC for 1 Year", partCore, "a2", ""},
		{"RAM", "Preemptible A2 Instance Ram running in Americas", partRAM, "a2", ""},
		{"CPU", "G2 Custom Instance Core running in Americas", "", "", "custom"},
		{"N1Standard", "N1 Predefined Instance Core running in Americas", "", "", "resource group"},
		{"GPU", "Nvidia H100 80GB GPU running in Americas (DWS)", "", "", "variant"},
		{"LocalSSD", "SSD backed Local Storage running in Paris", partSSD, "local", ""},
		{"LocalSSD", "Commitment v1: Local SSD in Americas for 1 Year", partSSD, "local", ""},
		{"LocalSSD", "VM state: preserved local SSD in Bangkok", "", "", "not the generic"},
	} {
		s := &SKU{Description: c.desc}
		s.Category.ResourceFamily, s.Category.ResourceGroup = "Compute", c.group
		part, name, why := classify(s)
		if part != c.part || name != c.name || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("%q: %q %q %q, want %q %q %q", c.desc, part, name, why, c.part, c.name, c.why)
		}
	}
}
