package usercatalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds"
)

var day = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func embedded(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// alibabaResult is what an Alibaba DescribePrice refresh of cn-hangzhou
// yields: a price-only row of a type the catalog lists (price unknown there),
// a subscription price of it, and a type the catalog has no spec for.
func alibabaResult(price string) *feeds.Result {
	src := "alibaba-describeprice@2026-11-30"
	res := &feeds.Result{
		Offerings: []feeds.Offering{
			{Origin: "DescribePrice:1", Provider: "alibaba", InstanceType: "ecs.gn7i-c8g1.2xlarge", Region: "cn-hangzhou",
				OnDemand: feeds.Known(dec(price), "CNY", src, "2026-11-30")},
			{Origin: "DescribePrice:2", Provider: "alibaba", InstanceType: "ecs.gn9-unknown", Region: "cn-hangzhou",
				OnDemand: feeds.Known(dec("99"), "CNY", src, "2026-11-30")},
		},
		Commitments: []feeds.Commitment{{Origin: "DescribePrice:3", Provider: "alibaba", InstanceType: "ecs.gn7i-c8g1.2xlarge", Region: "cn-hangzhou",
			Model: "subscription", Term: "1y", Payment: "all-upfront", Upfront: dec("52000"), Currency: "CNY", Source: src, AsOf: "2026-11-30"}},
	}
	res.Leave("DescribePrice:4", "ecs.gn7i-c8g1.2xlarge cn-shanghai", "price in USD, want CNY")
	return res
}

func meta(provider string, regions []string, at time.Time) Meta {
	return Meta{Provider: provider, Mode: ModeFetch, Regions: regions, FetchedAt: at, Version: "test"}
}

func TestBuildWriteReadOverlay(t *testing.T) {
	base := embedded(t)
	set, rep, err := Build(base, alibabaResult("7.1843"), meta("aliyun", []string{"cn-hangzhou"}, day))
	if err != nil {
		t.Fatal(err)
	}
	if set.Meta.Provider != "alibaba" || set.Key != "cn-hangzhou" {
		t.Errorf("provider %q key %q, want alibaba, cn-hangzhou", set.Meta.Provider, set.Key)
	}
	want := Counts{Offerings: 1, Commitments: 1, SpotBands: 0, LeftOut: 2}
	if set.Meta.Counts != want {
		t.Errorf("counts %+v, want %+v (left out: %v)", set.Meta.Counts, want, rep.LeftOut)
	}
	if set.Meta.LeftOut["price in USD, want CNY"] != 1 || len(set.Meta.LeftOutRows) != 2 {
		t.Errorf("left out %v", set.Meta.LeftOut)
	}
	if len(set.Meta.Sources) != 1 || set.Meta.Sources[0].ID != "alibaba-describeprice@2026-11-30" || set.Meta.Sources[0].AsOf != "2026-11-30" ||
		!strings.Contains(set.Meta.Sources[0].Notes, "fetched 2026-11-30T12:00:00Z") {
		t.Errorf("sources %+v", set.Meta.Sources)
	}
	o := set.Snapshot.Offerings[0]
	// The price row is joined with the catalog's spec of the type.
	if o.GPU.Name != "A10" || o.GPUCount != 1 || o.VCPUs != 8 || o.MemoryGiB != 30 || !o.China || o.OnDemand.Value.String() != "7.1843" {
		t.Errorf("offering %+v", o)
	}

	st := &Store{Dir: t.TempDir()}
	path, err := st.Write(set)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(st.Dir, "alibaba", "cn-hangzhou", "20261130T120000Z"); path != want {
		t.Errorf("written to %s, want %s", path, want)
	}
	for _, f := range []string{"offerings.csv", "commitments.csv", "spot_bands.csv", "left_out.csv", "meta.json"} {
		if _, err := os.Stat(filepath.Join(path, f)); err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(path, "offerings.csv"))
	if !strings.HasPrefix(string(b), strings.Join(catalog.OfferingColumns, ",")+"\n") {
		t.Errorf("offerings.csv is not in the snapshot format:\n%s", b)
	}
	sets, err := st.Current(base, "")
	if err != nil || len(sets) != 1 {
		t.Fatalf("Current: %v, %d sets", err, len(sets))
	}
	got := sets[0]
	if got.Meta.Counts != set.Meta.Counts || !got.Meta.FetchedAt.Equal(day) || len(got.Snapshot.Offerings) != 1 || len(got.Snapshot.Commitments) != 1 {
		t.Errorf("read back %+v", got.Meta)
	}

	over, applied, err := Overlay(base, sets)
	if err != nil {
		t.Fatal(err)
	}
	if len(over.Offerings) != len(base.Offerings) {
		t.Errorf("%d offerings after overlay, want %d (one replaced)", len(over.Offerings), len(base.Offerings))
	}
	if a := applied[0]; a.Replaced != 1 || a.Added != 0 || a.Commitments != 1 {
		t.Errorf("applied %+v", a)
	}
	if note := applied[0].Note(day.Add(3 * 24 * time.Hour)); note != "prices for alibaba cn-hangzhou from your catalog refresh of 2026-11-30 (3 days old)" {
		t.Errorf("note %q", note)
	}
	var found bool
	for i := range over.Offerings {
		o := &over.Offerings[i]
		if o.Provider == "alibaba" && o.InstanceType == "ecs.gn7i-c8g1.2xlarge" && o.Region == "cn-hangzhou" {
			found = true
			if !o.OnDemand.Known || o.OnDemand.Value.String() != "7.1843" || o.OnDemand.Source != "alibaba-describeprice@2026-11-30" {
				t.Errorf("overlaid price %+v", o.OnDemand)
			}
			if cs := over.CommitmentsFor(o); len(cs) != 1 || cs[0].Upfront.String() != "52000" {
				t.Errorf("commitments %v", cs)
			}
		}
	}
	if !found || over.Source("alibaba-describeprice@2026-11-30") == nil {
		t.Error("refreshed offering or its source missing after overlay")
	}
	// The base catalog is untouched.
	for i := range base.Offerings {
		if base.Offerings[i].OnDemand.Source == "alibaba-describeprice@2026-11-30" {
			t.Fatal("Overlay changed its input catalog")
		}
	}
}

// TestBandsAndCommitmentsAttachToCatalogOfferings: a bands-only or
// commitments-only feed (AWS Spot Advisor, Savings Plans) attaches to the
// catalog's own offerings, which the set does not copy.
func TestBandsAndCommitmentsAttachToCatalogOfferings(t *testing.T) {
	base := embedded(t)
	src := "aws-spot-advisor@2026-11-30"
	res := &feeds.Result{SpotBands: []feeds.SpotBand{
		{Origin: "advisor:1", Provider: "aws", InstanceType: "p4d.24xlarge", Region: "us-east-1", Label: "5-10%", Low: 5, High: 10, SavingsPct: 60, Source: src, AsOf: "2026-11-30"},
		{Origin: "advisor:2", Provider: "aws", InstanceType: "p4d.24xlarge", Region: "mars-1", Label: "5-10%", Low: 5, High: 10, Source: src, AsOf: "2026-11-30"},
	}}
	set, _, err := Build(base, res, meta("aws", []string{"us-east-1"}, day))
	if err != nil {
		t.Fatal(err)
	}
	if c := set.Meta.Counts; c.Offerings != 0 || c.SpotBands != 1 || c.LeftOut != 1 {
		t.Errorf("counts %+v, want no offering, one band, one left out", c)
	}
	over, _, err := Overlay(base, []*Set{set})
	if err != nil {
		t.Fatal(err)
	}
	for i := range over.Offerings {
		o := &over.Offerings[i]
		if o.Provider == "aws" && o.InstanceType == "p4d.24xlarge" && o.Region == "us-east-1" {
			if b := over.SpotBandFor(o); b == nil || b.Label != "5-10%" || b.Source != src {
				t.Errorf("band %+v", b)
			}
			return
		}
	}
	t.Error("p4d us-east-1 missing")
}

func TestNewerSetWins(t *testing.T) {
	base := embedded(t)
	older, _, err := Build(base, alibabaResult("7"), meta("alibaba", nil, day.Add(-48*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	newer, _, err := Build(base, alibabaResult("8"), meta("alibaba", []string{"cn-hangzhou"}, day))
	if err != nil {
		t.Fatal(err)
	}
	st := &Store{Dir: t.TempDir()}
	for _, s := range []*Set{newer, older} {
		if _, err := st.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	sets, err := st.Current(base, "alibaba")
	if err != nil || len(sets) != 2 || sets[0].Key != "all" {
		t.Fatalf("Current: %v, %d sets, want the older 'all' first", err, len(sets))
	}
	over, _, err := Overlay(base, sets)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range over.Offerings {
		o := &over.Offerings[i]
		if o.InstanceType == "ecs.gn7i-c8g1.2xlarge" && o.Region == "cn-hangzhou" {
			n++
			if o.OnDemand.Value.String() != "8" {
				t.Errorf("price %s, want the newer refresh's 8", o.OnDemand.Value)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d rows of the type, want 1", n)
	}
}

// TestFailedWriteKeepsPrevious fails the write of the second refresh half-way
// (after its first file): the first stays current and nothing is left behind.
func TestFailedWriteKeepsPrevious(t *testing.T) {
	base := embedded(t)
	st := &Store{Dir: t.TempDir()}
	first, _, _ := Build(base, alibabaResult("7"), meta("alibaba", []string{"cn-hangzhou"}, day))
	if _, err := st.Write(first); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(st.Dir, "alibaba", "cn-hangzhou")
	before := listing(t, dir)
	second, _, _ := Build(base, alibabaResult("8"), meta("alibaba", []string{"cn-hangzhou"}, day.Add(time.Hour)))
	boom := errors.New("disk full")
	n := 0
	writeFile = func(path string, b []byte) error {
		if n++; n == 2 {
			return boom
		}
		return writeSync(path, b)
	}
	defer func() { writeFile = writeSync }()
	if _, err := st.Write(second); !errors.Is(err, boom) {
		t.Fatalf("Write: %v, want the injected failure", err)
	}
	if after := listing(t, dir); after != before {
		t.Errorf("folder changed by a failed write:\nbefore %s\nafter  %s", before, after)
	}
	sets, err := st.Current(base, "")
	if err != nil || len(sets) != 1 || sets[0].Snapshot.Offerings[0].OnDemand.Value.String() != "7" {
		t.Fatalf("after a failed write: %v; want the first refresh current", err)
	}
}

func listing(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		names = append(names, rel)
		return nil
	})
	cur, _ := os.ReadFile(filepath.Join(dir, CurrentFile))
	return strings.Join(names, " ") + " CURRENT=" + strings.TrimSpace(string(cur))
}

func TestHistoryBounded(t *testing.T) {
	base := embedded(t)
	st := &Store{Dir: t.TempDir(), Keep: 3}
	for i := range 5 {
		s, _, err := Build(base, alibabaResult(decimal.NewFromInt(int64(7+i)).String()), meta("alibaba", []string{"cn-hangzhou"}, day.Add(time.Duration(i)*24*time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	hist, err := st.History(base, "alibaba")
	if err != nil {
		t.Fatal(err)
	}
	var prices []string
	for _, h := range hist {
		prices = append(prices, h.Snapshot.Offerings[0].OnDemand.Value.String())
	}
	if strings.Join(prices, ",") != "9,10,11" {
		t.Errorf("kept prices %v, want the newest three 9,10,11", prices)
	}
	cur, _ := st.Current(base, "alibaba")
	if cur[0].Version != "20261204T120000Z" {
		t.Errorf("current %s", cur[0].Version)
	}
	// --since 2 days before the newest: the prices as they were then (day+2, 9→... 11 is current).
	b := Baseline(hist, day.Add(3*24*time.Hour))
	if b == nil || b.Version != "20261203T120000Z" {
		t.Errorf("baseline %+v, want the 2026-12-03 version", b)
	}
	if b := Baseline(hist, day.Add(-time.Hour)); b == nil || b.Version != "20261202T120000Z" {
		t.Errorf("baseline before all kept versions: %+v, want the oldest kept", b)
	}
	if Baseline(hist[:1], day) != nil {
		t.Error("a single version has no baseline")
	}
}

func TestDiff(t *testing.T) {
	usd := func(v string) catalog.Price { return catalog.KnownPrice(dec(v), "USD", "s", "2026-11-30") }
	off := func(typ, zone string, od, spot catalog.Price) catalog.Offering {
		return catalog.Offering{Provider: "aws", InstanceType: typ, Region: "us-east-1", Zone: zone, OnDemand: od, Spot: spot}
	}
	none := catalog.Price{}
	old := []catalog.Offering{
		off("a", "", usd("10"), usd("3")),
		off("b", "", none, none),
		off("c", "", usd("5"), none),
		off("d", "", usd("1"), none),
		{Provider: "gcp", InstanceType: "a", Region: "x", OnDemand: usd("1")},
	}
	new := []catalog.Offering{
		off("a", "", usd("12"), usd("3")),
		off("b", "", usd("2"), none),
		off("d", "", usd("1"), none),
		off("e", "", usd("4"), none),
		{Provider: "gcp", InstanceType: "a", Region: "x", OnDemand: usd("9")},
	}
	var got []string
	for _, c := range Diff(old, new, "aws") {
		got = append(got, c.InstanceType+" "+c.Price+" "+c.Kind+" "+c.Pct.Decimal.String())
	}
	want := "a on-demand changed 20|b on-demand priced 0|c on-demand gone 0|e on-demand new 0"
	if strings.Join(got, "|") != want {
		t.Errorf("Diff =\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if d := Diff(old, new, ""); len(d) != 5 {
		t.Errorf("all providers: %d changes, want 5", len(d))
	}
	// 7 → 6.5: -7.142857…% rounds to -7.1.
	if d := Diff([]catalog.Offering{off("a", "", usd("7"), none)}, []catalog.Offering{off("a", "", usd("6.5"), none)}, ""); d[0].Pct.Decimal.String() != "-7.1" {
		t.Errorf("pct %s, want -7.1", d[0].Pct.Decimal)
	}
}

func TestKey(t *testing.T) {
	for _, tc := range []struct {
		regions []string
		want    string
	}{
		{nil, "all"},
		{[]string{"us-east-1"}, "us-east-1"},
		{[]string{"eu-west-1", "us-east-1"}, "eu-west-1+us-east-1"},
		{[]string{"us-east-1", "eu-west-1"}, "eu-west-1+us-east-1"},
		{[]string{"华东1", "../x"}, "_._x+__1"},
	} {
		if got := Key(tc.regions); got != tc.want {
			t.Errorf("Key(%q) = %q, want %q", tc.regions, got, tc.want)
		}
	}
	long := make([]string, 30)
	for i := range long {
		long[i] = "ap-southeast-" + decimal.NewFromInt(int64(i)).String()
	}
	if k := Key(long); len(k) > 80 || !strings.Contains(k, "and-29-more") {
		t.Errorf("long key %q", k)
	}
}

func TestDirAndIgnored(t *testing.T) {
	env := map[string]string{EnvDir: "/tmp/x"}
	get := func(k string) string { return env[k] }
	if d, _ := Dir(get); d != "/tmp/x" {
		t.Errorf("Dir = %q", d)
	}
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "1": true, "yes": true} {
		env[EnvIgnore] = v
		if Ignored(get) != want {
			t.Errorf("Ignored with %q = %v", v, !want)
		}
	}
}
