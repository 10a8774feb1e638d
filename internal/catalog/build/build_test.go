package build

import (
	"bytes"
	"encoding/csv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds/awsondemand"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/feeds/skypilot"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func build(t *testing.T) ([]catalog.Offering, *Report, *catalog.Catalog) {
	snap, rep, specs := buildSnapshot(t)
	return snap.Offerings, rep, specs
}

var built struct {
	once  sync.Once
	snap  *catalog.Snapshot
	rep   *Report
	specs *catalog.Catalog
	err   error
}

// buildSnapshot builds from the real inputs once per test run (the tests only read the result).
func buildSnapshot(t *testing.T) (*catalog.Snapshot, *Report, *catalog.Catalog) {
	t.Helper()
	in := Inputs{Shared: shareddata.Dir(t), Curated: filepath.Join(shareddata.ModuleRoot(t), "data", "curated")}
	built.once.Do(func() {
		if built.specs, built.err = catalog.ParseSpecs(catalog.Embedded()); built.err == nil {
			built.snap, built.rep, built.err = Build(built.specs, in)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.snap, built.rep, built.specs
}

// TestSnapshotUpToDate fails when someone changed a feed parser, a curated
// file, a YAML table or shared/data without regenerating the embedded
// snapshot: the CSV files and the binary catalog built from them and the
// YAML tables (catalog.bin, what gpuscout decodes at start-up) must be
// byte for byte what the generator writes now.
func TestSnapshotUpToDate(t *testing.T) {
	snap, _, _ := buildSnapshot(t)
	files, err := snap.EncodeEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files[catalog.BinaryFile]; !ok {
		t.Fatalf("the generated files %v lack %s", slices.Sorted(maps.Keys(files)), catalog.BinaryFile)
	}
	if stale := catalog.Stale(files); len(stale) > 0 {
		t.Fatalf("embedded %v stale: run 'go generate ./internal/catalog'", stale)
	}
}

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func priceEq(p catalog.Price, src string) bool {
	if src == "" || decimal.RequireFromString(src).IsZero() {
		return !p.Known
	}
	return p.Known && p.Value.Equal(decimal.RequireFromString(src))
}

// TestOfferingsMatchSourceRows re-reads every source row independently (plain
// encoding/csv) and checks that the catalog holds it with the same prices,
// to the digit, and that the counts agree.
func TestOfferingsMatchSourceRows(t *testing.T) {
	offs, rep, _ := build(t)
	byKey := map[string]*catalog.Offering{}
	perSource := map[string]int{}
	for i := range offs {
		byKey[offs[i].Key()] = &offs[i]
		perSource[offs[i].Provider+" "+offs[i].OnDemand.Source]++
	}
	dir := shareddata.Dir(t)
	for _, f := range registry.Lookup("skypilot").(*skypilot.Feed).Files {
		n := 0
		for _, r := range readCSV(t, filepath.Join(dir, f.Path)) {
			if r["AcceleratorName"] == "" {
				continue
			}
			n++
			region := r["Region"]
			if f.Cloud == "vast" {
				region, _ = skypilot.VastRegion(region)
			}
			key := f.Cloud + "/" + r["InstanceType"] + "/" + region + "/" + r["AvailabilityZone"]
			o := byKey[key]
			if o == nil {
				t.Errorf("%s: source row %s missing from the catalog", f.Path, key)
				continue
			}
			if !priceEq(o.OnDemand, r["Price"]) || !priceEq(o.Spot, r["SpotPrice"]) {
				t.Errorf("%s: %s prices %v/%v, source %q/%q", f.Path, key, o.OnDemand.Value, o.Spot.Value, r["Price"], r["SpotPrice"])
			}
		}
		if n == 0 {
			t.Errorf("%s: no GPU rows", f.Path)
		}
	}
	// Karpenter rows: every row with a curated spec is in the catalog at the
	// same price, in USD (us-east-1) or CNY (cn-north-1).
	var skipped strings.Builder
	for _, l := range rep.LeftOut {
		skipped.WriteString(l.String() + "\n")
	}
	for _, r := range readCSV(t, filepath.Join(dir, registry.Lookup("awsondemand").(*awsondemand.Feed).Path)) {
		key := "aws/" + r["instance_type"] + "/" + r["region"] + "/"
		o := byKey[key]
		if o == nil {
			// Either the per-zone rows carry it, or the type has no curated spec and the report says so.
			if !strings.Contains(skipped.String(), r["instance_type"]+" "+r["region"]) && byKey[key+"use1-az1"] == nil && !hasZone(byKey, key) {
				t.Errorf("%s %s: neither in the catalog nor reported as left out", r["instance_type"], r["region"])
			}
			continue
		}
		if !priceEq(o.OnDemand, r["ondemand_price_per_hour"]) || string(o.OnDemand.Currency) != r["currency"] {
			t.Errorf("%s: %s %s, source %s %s", key, o.OnDemand.Value, o.OnDemand.Currency, r["ondemand_price_per_hour"], r["currency"])
		}
	}
	if len(rep.Checks) < 4 {
		t.Errorf("expected the SkyPilot and Karpenter us-east-1 p4d/p4de/p5 prices to be cross-checked, got %v", rep.Checks)
	}
}

func hasZone(m map[string]*catalog.Offering, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func TestInterconnectRules(t *testing.T) {
	offs, _, specs := build(t)
	get := func(key string) *catalog.Offering {
		for i := range offs {
			if offs[i].Key() == key {
				return &offs[i]
			}
		}
		t.Fatalf("%s not built", key)
		return nil
	}
	for key, want := range map[string]string{
		"aws/p4d.24xlarge/us-east-1/use1-az1":         catalog.LinkNVSwitch, // curated
		"aws/g5.12xlarge/us-east-1/":                  catalog.LinkPCIe,     // 4 PCIe cards
		"aws/g5.xlarge/us-east-1/":                    catalog.LinkNone,     // one GPU
		"gcp/a3-highgpu-8g/us-central1/":              catalog.LinkNVSwitch, // 8 SXM on HGX
		"lambda/gpu_8x_a100/us-east-1/":               catalog.LinkUnknown,  // form factor not stated
		"alibaba/ecs.gn6v-c8g1.16xlarge/cn-hangzhou/": catalog.LinkNVLink,
	} {
		if o := get(key); o.Interconnect != want {
			t.Errorf("%s interconnect = %s, want %s", key, o.Interconnect, want)
		}
	}
	if g6f := get("aws/g6f.large/us-east-1/"); g6f.GPUCount != 0.125 || g6f.GPUMemoryGiB != 3 || g6f.GPU != specs.GPU("L4") {
		t.Errorf("g6f.large = %v × %s with %v GiB, want 0.125 × L4 with 3 GiB", g6f.GPUCount, g6f.GPU.Name, g6f.GPUMemoryGiB)
	}
	if cn := get("aws/p3.16xlarge/cn-north-1/"); !cn.China || cn.OnDemand.Currency != "CNY" {
		t.Errorf("cn-north-1 p3.16xlarge: china=%v currency=%s", cn.China, cn.OnDemand.Currency)
	}
}

// Vast rows with an empty state read "CN, AS", not ", CN, AS", and stay in China.
func TestVastRegionsHaveNoEmptyState(t *testing.T) {
	offs, _, _ := build(t)
	cn := 0
	for _, o := range offs {
		if strings.HasPrefix(o.Region, ",") || strings.HasPrefix(o.Region, " ") {
			t.Errorf("%s: region %q starts with a separator", o.Key(), o.Region)
		}
		if o.Provider == "vast" && o.Region == "CN, AS" {
			cn++
			if !o.China {
				t.Errorf("%s: China = false, want true", o.Key())
			}
		}
	}
	if cn != 4 { // the four ", CN, AS" rows of vast/vms.csv
		t.Errorf("%d vast offerings in \"CN, AS\", want 4", cn)
	}
}

// The types the build leaves out are kept in the snapshot with the reason.
// Every GPU type of the AWS on-demand table has a curated spec (the twelve
// g7/g7e sizes since December 2026), so none of AWS's is left out.
func TestLeftOutTypesInSnapshot(t *testing.T) {
	snap, rep, _ := buildSnapshot(t)
	listed := map[string]bool{}
	for _, o := range snap.Offerings {
		listed[o.Provider+"/"+o.InstanceType] = true
	}
	for _, l := range snap.LeftOut {
		if listed[l.Provider+"/"+l.InstanceType] {
			t.Errorf("%s/%s is both listed and left out", l.Provider, l.InstanceType)
		}
		if l.Reason == "" || l.Source == "" || len(l.Regions) == 0 {
			t.Errorf("%+v: want a reason, a source and regions", l)
		}
		if l.Provider == "aws" {
			t.Errorf("aws/%s left out (%s): every type of the AWS on-demand table has a curated spec", l.InstanceType, l.Reason)
		}
	}
	g7 := 0
	for k := range listed {
		if strings.HasPrefix(k, "aws/g7.") || strings.HasPrefix(k, "aws/g7e.") {
			g7++
		}
	}
	if g7 != 12 {
		t.Errorf("%d g7/g7e types listed, want 12 (6 sizes each)", g7)
	}
	// Every left-out type also appears, row by row, in the build report.
	var report strings.Builder
	for _, l := range rep.LeftOut {
		report.WriteString(l.String() + "\n")
	}
	for _, l := range snap.LeftOut {
		if !strings.Contains(report.String(), l.Provider+" "+l.InstanceType+" ") {
			t.Errorf("%s %s: not in the build report", l.Provider, l.InstanceType)
		}
	}
}
