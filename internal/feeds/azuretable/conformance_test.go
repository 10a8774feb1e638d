package azuretable_test

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/azuretable"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// The table, its source id and data date (shared/data/price-sources/SOURCE.md:
// generated 2026-06-18T03:43:41Z).
const (
	tablePath = "price-sources/azure-karpenter-zz_generated.pricing.go.txt"
	tableID   = "karpenter-azure@2b431da1"
	tableDate = "2026-06-18"
)

func feed() *azuretable.Feed { return azuretable.New(tablePath, tableID) }

// sourceRow is one price entry of the table as a regular expression reads
// it, independently of the feed's parser: the generator writes every entry
// on its own line, two tabs in, inside the map of the region whose header
// came last.
type sourceRow struct {
	line               int
	region, key, price string
}

var (
	rowRegionRE = regexp.MustCompile(`^\tinitialOnDemandPrices\["([a-z0-9]+)"\] = map\[string\]float64\{$`)
	rowEntryRE  = regexp.MustCompile(`^\t\t"([^"]*)":\s+([0-9]+\.[0-9]+),$`)
	gpuSizeRE   = regexp.MustCompile(`^Standard_N[CDGV]`) // Azure's GPU families NC, NCC, ND, NG, NV
)

// readRows reads every entry line of the table, by line number.
func readRows(t *testing.T) map[int]sourceRow {
	t.Helper()
	rows := map[int]sourceRow{}
	sc := bufio.NewScanner(shareddata.Open(t, tablePath))
	region, n := "", 0
	for sc.Scan() {
		n++
		if m := rowRegionRE.FindStringSubmatch(sc.Text()); m != nil {
			region = m[1]
		} else if m := rowEntryRE.FindStringSubmatch(sc.Text()); m != nil {
			rows[n] = sourceRow{line: n, region: region, key: m[1], price: m[2]}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// lineOf is the line of a "file:line" origin.
func lineOf(t *testing.T, origin string) int {
	t.Helper()
	i := strings.LastIndexByte(origin, ':')
	n, err := strconv.Atoi(origin[i+1:])
	if i < 0 || err != nil || origin[:i] != tablePath {
		t.Fatalf("origin %q is not %s:LINE", origin, tablePath)
	}
	return n
}

// A row is one "key": price entry line; every one must be an offering or a
// left-out report.
func TestConformance(t *testing.T) {
	rows := readRows(t)
	if len(rows) != 67672 {
		t.Errorf("the table has %d entry lines, want 67,672 (the file at 2b431da1)", len(rows))
	}
	feedstest.Run(t, feed(), feedstest.Want{Rows: map[string]int{tablePath: len(rows)}})
}

// Every imported price equals its source row as an exact decimal; every GPU
// row is imported once, nothing else is; every other row is left out with
// the reason for its kind.
func TestPricesEqualTheTable(t *testing.T) {
	rows := readRows(t)
	res, err := feed().Read(feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	imported := map[int]bool{}
	sizes, regions := map[string]bool{}, map[string]bool{}
	for _, o := range res.Offerings {
		n := lineOf(t, o.Origin)
		row, ok := rows[n]
		if !ok {
			t.Errorf("%s: no entry on that line of the table", o.Origin)
			continue
		}
		want := decimal.RequireFromString(row.price)
		p := o.OnDemand
		if o.InstanceType != strings.TrimSpace(row.key) || o.Region != row.region || o.Provider != "azure" ||
			!p.Known || !p.Amount.Equal(want) || p.Currency != "USD" || p.Source != tableID || p.AsOf != tableDate {
			t.Errorf("%s: %s %s %+v, want %s %s %s USD from %s as of %s", o.Origin, o.InstanceType, o.Region, p, row.key, row.region, want, tableID, tableDate)
		}
		if o.Spot.Known || o.GPU != "" || o.GPUCount != 0 {
			t.Errorf("%s: spot %+v, GPU %q ×%g: the table gives on-demand prices only", o.Origin, o.Spot, o.GPU, o.GPUCount)
		}
		if imported[n] {
			t.Errorf("%s imported twice", o.Origin)
		}
		imported[n] = true
		sizes[o.InstanceType], regions[o.Region] = true, true
	}
	gpuRows := 0
	for n, row := range rows {
		if gpuSizeRE.MatchString(row.key) {
			gpuRows++
			if !imported[n] {
				t.Errorf("line %d: GPU row %s %s %s not imported", n, row.key, row.region, row.price)
			}
		} else if imported[n] {
			t.Errorf("line %d: %s imported, not a GPU size", n, row.key)
		}
	}
	// SOURCE.md: 1,400 N-series rows of 94 sizes (NC, ND, NG, NM, NV); the
	// NM row (9 regions) is no GPU, so 1,391 GPU rows of 93 sizes in 52 regions.
	if gpuRows != 1391 || len(res.Offerings) != gpuRows || len(sizes) != 93 || len(regions) != 52 {
		t.Errorf("%d GPU rows, %d offerings of %d sizes in %d regions; want 1,391 of 93 sizes in 52 regions", gpuRows, len(res.Offerings), len(sizes), len(regions))
	}

	// SOURCE.md's samples.
	for key, want := range map[string]string{"eastus/Standard_ND96isr_H100_v5": "98.32", "eastus/Standard_NC24ads_A100_v4": "3.673"} {
		found := false
		for _, o := range res.Offerings {
			if o.Region+"/"+o.InstanceType == key {
				found = o.OnDemand.Amount.Equal(decimal.RequireFromString(want))
			}
		}
		if !found {
			t.Errorf("%s: not imported at %s (SOURCE.md sample)", key, want)
		}
	}

	// Every other row is left out, with the reason of its kind.
	left := map[int]string{}
	for _, l := range res.LeftOut {
		left[lineOf(t, l.Origin)] = l.Reason
	}
	counts := map[string]int{}
	for n, row := range rows {
		if imported[n] {
			continue
		}
		key := strings.TrimSpace(row.key)
		var want string
		switch {
		case key == "ARM_SKU_NAME_PLACEHOLDER":
			want = azuretable.ReasonPlaceholder
		case strings.HasPrefix(key, "Basic_"):
			want = azuretable.ReasonNotGPU
		case !strings.HasPrefix(key, "Standard_"):
			want = azuretable.ReasonDedicatedHost
		case strings.HasPrefix(key, "Standard_NP"):
			want = azuretable.ReasonFPGA
		case strings.HasPrefix(key, "Standard_NM"):
			want = azuretable.ReasonMedia
		default:
			want = azuretable.ReasonNotGPU
		}
		if left[n] != want {
			t.Errorf("line %d %q: left out for %q, want %q", n, row.key, left[n], want)
		}
		counts[want]++
	}
	// 2,716 keys without Standard_: 165 Basic_A0-A4, 4 placeholders, 2,547 host SKUs.
	if counts[azuretable.ReasonDedicatedHost] != 2547 || counts[azuretable.ReasonPlaceholder] != 4 ||
		counts[azuretable.ReasonFPGA] != 21 || counts[azuretable.ReasonMedia] != 9 || len(res.LeftOut) != len(rows)-gpuRows {
		t.Errorf("left out %v (%d in all); want 2,547 dedicated-host rows, 4 placeholders, 21 NP and 9 NM rows, %d in all", counts, len(res.LeftOut), len(rows)-gpuRows)
	}
}

// The key with trailing spaces is trimmed, and its report names the key as
// written.
func TestTrailingSpaceKey(t *testing.T) {
	res, err := feed().Read(feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range res.LeftOut {
		if strings.HasPrefix(l.What, "Standard_NM16ads_MA35D ") {
			n++
			if !strings.Contains(l.What, `(key written "Standard_NM16ads_MA35D  " in the table)`) || l.Reason != azuretable.ReasonMedia {
				t.Errorf("%s: %q: %s", l.Origin, l.What, l.Reason)
			}
		}
	}
	if n != 9 {
		t.Errorf("%d MA35D rows reported, want 9 (one per region)", n)
	}
}

// On a small table: a GPU row priced 0 is left out, never free; a malformed
// file is an error naming the file, the line and the value.
func TestReadSmallTable(t *testing.T) {
	const head = "// generated at 2026-06-18T03:43:41Z\nvar initialOnDemandPrices = map[string]map[string]float64{}\nfunc init() {\n\tinitialOnDemandPrices[\"eastus\"] = map[string]float64{\n"
	in := feeds.Inputs{Shared: fstest.MapFS{"t.go.txt": {Data: []byte(head + "\t\t\"Standard_NC6s_v3\": 0.000000,\n\t\t\"Standard_NC4as_T4_v3\": 0.526000,\n\t}\n}\n")}}}
	f := azuretable.New("t.go.txt", "src")
	feedstest.RunWith(t, f, in, feedstest.Want{Rows: map[string]int{"t.go.txt": 2}})
	res, err := f.Read(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 1 || res.Offerings[0].Origin != "t.go.txt:6" || res.Offerings[0].OnDemand.AsOf != "2026-06-18" {
		t.Errorf("offerings %+v", res.Offerings)
	}
	if len(res.LeftOut) != 1 || res.LeftOut[0] != (feeds.LeftOut{Origin: "t.go.txt:5", What: "Standard_NC6s_v3 eastus", Reason: azuretable.ReasonZeroPrice}) {
		t.Errorf("left out %+v", res.LeftOut)
	}
	bad := feeds.Inputs{Shared: fstest.MapFS{"t.go.txt": {Data: []byte(head + "\t\t\"Standard_NC6s_v3\": n/a,\n\t}\n}\n")}}}
	if _, err := f.Read(bad); err == nil || !strings.HasPrefix(err.Error(), "t.go.txt: azuretable: line 5: ") || !strings.Contains(err.Error(), `"n/a"`) {
		t.Errorf("malformed file: err = %v, want one naming t.go.txt, line 5 and the value", err)
	}
	cut := feeds.Inputs{Shared: fstest.MapFS{"t.go.txt": {Data: []byte(head + "\t\t\"Standard_NC6s_v3\": 3.06")}}}
	if _, err := f.Read(cut); err == nil || !strings.Contains(err.Error(), "t.go.txt: azuretable: line 5") {
		t.Errorf("truncated file: err = %v, want one naming t.go.txt and line 5", err)
	}
}
