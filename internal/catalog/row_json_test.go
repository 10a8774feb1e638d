package catalog

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// An offering whose GPU memory, vCPUs or memory no source gives (a price
// file's row, say) writes null, never 0; a known one its figure.
func TestRowsJSONUnknownSizesAreNull(t *testing.T) {
	g := &GPU{Name: "X"}
	rows := []Row{{Offering: &Offering{Provider: "aws", InstanceType: "x.large", GPU: g, GPUCount: 1}},
		{Offering: &Offering{Provider: "aws", InstanceType: "y.large", GPU: g, GPUCount: 1, GPUMemoryGiB: 24, VCPUs: 8, MemoryGiB: 32}}}
	var c *Catalog
	b, err := json.Marshal(c.RowsJSON(rows, money.USD, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"gpu_memory_gib":null`, `"vcpus":null`, `"memory_gib":null`, `"gpu_memory_gib":24`, `"vcpus":8`, `"memory_gib":32`} {
		if !strings.Contains(s, want) {
			t.Errorf("no %s in %s", want, s)
		}
	}
}

// The JSON says how far a price's date is known and whether the price is
// stale, by the one age rule: Tencent's China-site prices (a page dated
// only "2021", the feed's placeholder day 2021-01-01) are dated to the year
// and stale; a spot price 147 days old is stale (30 days) while an
// on-demand price of the same day is not (a year).
func TestRowsJSONDates(t *testing.T) {
	c := &Catalog{sourceIndex: map[string]*Source{}}
	c.AddSource(Source{ID: "tencent-qcloud-gpu-prices@8ec07296", AsOf: "2021"})
	c.AddSource(Source{ID: "skypilot-v9@2c3d7ea7", AsOf: "2026-07-09"})
	g := &GPU{Name: "X"}
	tencent := &Offering{Provider: "tencent", InstanceType: "GN10Xp.2XLARGE40", GPU: g, GPUCount: 1,
		OnDemand: KnownPrice(decimal.NewFromInt(12), money.CNY, "tencent-qcloud-gpu-prices@8ec07296", "2021-01-01")}
	p5 := &Offering{Provider: "aws", InstanceType: "p5.48xlarge", GPU: g, GPUCount: 8,
		OnDemand: KnownPrice(decimal.NewFromFloat(55.04), money.USD, "skypilot-v9@2c3d7ea7", "2026-07-09")}
	spot := KnownPrice(decimal.NewFromFloat(9.37), money.USD, "skypilot-v9@2c3d7ea7", "2026-07-09")
	rows := []Row{
		{Offering: tencent, Price: decimal.NewNullDecimal(decimal.NewFromInt(12))},
		{Offering: p5, Price: decimal.NewNullDecimal(decimal.NewFromFloat(55.04)), Spot: decimal.NewNullDecimal(spot.Value), SpotCite: spot},
	}
	out := c.RowsJSON(rows, money.USD, time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
	if j := out[0]; j.PriceAsOf != "2021-01-01" || j.PriceAsOfPrecision != "year" || !j.PriceStale || j.SpotStale != nil {
		t.Errorf("Tencent: as of %q (%q), stale %v, spot stale %v; want 2021-01-01 (year), stale, no spot", j.PriceAsOf, j.PriceAsOfPrecision, j.PriceStale, j.SpotStale)
	}
	if j := out[1]; j.PriceAsOfPrecision != "" || j.PriceStale || j.SpotStale == nil || !*j.SpotStale || j.SpotAsOf != "2026-07-09" {
		t.Errorf("p5: precision %q, stale %v, spot as of %q stale %v; want day, fresh, 2026-07-09 stale", j.PriceAsOfPrecision, j.PriceStale, j.SpotAsOf, j.SpotStale)
	}
}
