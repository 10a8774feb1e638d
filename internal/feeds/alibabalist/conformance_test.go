package alibabalist_test

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/alibabalist"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// The table, its source id and data date (shared/data/price-sources/SOURCE.md).
const (
	tablePath = "price-sources/alibaba-karpenter-initial-on-demand-prices.json"
	tableID   = "karpenter-alibaba@5d2e0774"
	tableDate = "2024-12-30"
)

func feed() *alibabalist.Feed { return alibabalist.New(tablePath, tableID, tableDate) }

// readTable reads the table independently of the feed's parser: every
// price as the JSON number it is written as.
func readTable(t *testing.T) map[string]map[string]json.Number {
	t.Helper()
	raw, err := io.ReadAll(shareddata.Open(t, tablePath))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var table map[string]map[string]json.Number
	if err := dec.Decode(&table); err != nil {
		t.Fatal(err)
	}
	return table
}

// A row is one (region, instance type) price entry; every one must be an
// offering or a left-out report.
func TestConformance(t *testing.T) {
	rows := 0
	for _, types := range readTable(t) {
		rows += len(types)
	}
	feedstest.Run(t, feed(), feedstest.Want{Rows: map[string]int{tablePath: rows}})
}

// Every imported price equals its source row exactly, every positive GPU
// row is imported, and nothing else is.
func TestPricesEqualTheTable(t *testing.T) {
	table := readTable(t)
	res, err := feed().Read(feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, o := range res.Offerings {
		src, ok := table[o.Region][o.InstanceType]
		if !ok {
			t.Errorf("%s: %s %s is not in the table", o.Origin, o.InstanceType, o.Region)
			continue
		}
		want, err := decimal.NewFromString(string(src))
		if err != nil {
			t.Fatalf("%s %s: table value %q: %v", o.InstanceType, o.Region, src, err)
		}
		p := o.OnDemand
		if !p.Known || !p.Amount.Equal(want) || p.Currency != "CNY" || p.Source != tableID || p.AsOf != tableDate || o.Provider != "alibaba" {
			t.Errorf("%s: %s %s = %+v, want %s CNY from %s as of %s", o.Origin, o.InstanceType, o.Region, p, want, tableID, tableDate)
		}
		seen[o.Region+"/"+o.InstanceType] = true
	}
	gpuRows, zero := 0, 0
	for region, types := range table {
		for typ, price := range types {
			if !alibabalist.IsGPUType(typ) {
				continue
			}
			if d := decimal.RequireFromString(string(price)); !d.IsPositive() {
				zero++
				if seen[region+"/"+typ] {
					t.Errorf("%s %s: price %s imported", typ, region, price)
				}
				continue
			}
			gpuRows++
			if !seen[region+"/"+typ] {
				t.Errorf("%s %s: GPU row with price %s not imported", typ, region, price)
			}
		}
	}
	// SOURCE.md: 693 GPU rows; two of them (vgn6i-m16-vws in cn-shanghai,
	// ebmgn7ix in us-east-1) have price 0.
	if gpuRows+zero != 693 || zero != 2 || len(res.Offerings) != gpuRows {
		t.Errorf("%d GPU rows (%d with price 0), %d offerings; want 693 rows, 2 with price 0, one offering per other row", gpuRows+zero, zero, len(res.Offerings))
	}
	for key, want := range map[string]string{
		"cn-hangzhou/ecs.gn7i-c8g1.2xlarge":  "9.5326",
		"cn-hangzhou/ecs.gn7e-c16g1.4xlarge": "34.742",
	} {
		region, typ, _ := strings.Cut(key, "/")
		if got := table[region][typ]; string(got) != want || !seen[key] {
			t.Errorf("%s = %s (imported %v), want %s (SOURCE.md sample)", key, got, seen[key], want)
		}
	}
}

// On a small in-memory table: GPU rows become offerings, the rest is left
// out with one reason per kind; a malformed file is an error naming it.
func TestReadExcerpt(t *testing.T) {
	in := feeds.Inputs{Shared: fstest.MapFS{"t.json": {Data: []byte("{\n\"cn-hangzhou\": {\n\"ecs.c6.large\": 0.39,\n\"ecs.gn7i-c8g1.2xlarge\": 9.5326,\n\"ecs.vgn6i-m16-vws.5xlarge\": 0\n}\n}\n")}}}
	f := alibabalist.New("t.json", "src", "2024-12-30")
	feedstest.RunWith(t, f, in, feedstest.Want{Rows: map[string]int{"t.json": 3}})
	res, err := f.Read(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 1 || res.Offerings[0].Origin != "t.json:4" || !res.Offerings[0].OnDemand.Amount.Equal(decimal.RequireFromString("9.5326")) {
		t.Errorf("offerings = %+v", res.Offerings)
	}
	want := []feeds.LeftOut{
		{Origin: "t.json:3", What: "ecs.c6.large cn-hangzhou", Reason: alibabalist.ReasonNotGPU},
		{Origin: "t.json:5", What: "ecs.vgn6i-m16-vws.5xlarge cn-hangzhou", Reason: alibabalist.ReasonZeroPrice},
	}
	if len(res.LeftOut) != len(want) || res.LeftOut[0] != want[0] || res.LeftOut[1] != want[1] {
		t.Errorf("left out = %+v, want %+v", res.LeftOut, want)
	}
	bad := feeds.Inputs{Shared: fstest.MapFS{"t.json": {Data: []byte("{\"cn-hangzhou\": {\"ecs.gn7i-c8g1.2xlarge\": \"n/a\"}}")}}}
	if _, err := f.Read(bad); err == nil || !strings.Contains(err.Error(), "t.json: ") || !strings.Contains(err.Error(), `"n/a"`) {
		t.Errorf("malformed file: err = %v, want one naming t.json and the value", err)
	}
}
