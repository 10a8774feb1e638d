package azureretail

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
)

const (
	docsFile = "azure-retail-docs-examples.json"
	ndFile   = "azure-retail-nd-eastus.json"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func parseFile(t *testing.T, im *Importer, name string) *feeds.Result {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := im.Parse(Format, f, feeds.ParseOptions{Source: "src", AsOf: "2025-12-01", Origin: name})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestParseND: the three ND sizes' Linux prices (infracost-azure@2025-12-01,
// data/curated/azure.yaml) and their Windows surcharge of 96 vCPU × 0.046 =
// 4.416 per hour (internal/catalog/data/licenses.yaml).
func TestParseND(t *testing.T) {
	res := parseFile(t, New(), ndFile)
	want := map[string]string{"Standard_ND96asr_v4": "27.197", "Standard_ND96amsr_A100_v4": "32.77", "Standard_ND96isr_H100_v5": "98.32"}
	if len(res.Offerings) != 3 {
		t.Fatalf("%d offerings, want 3", len(res.Offerings))
	}
	for _, o := range res.Offerings {
		if o.Region != "eastus" || !o.OnDemand.Known || !o.OnDemand.Amount.Equal(dec(want[o.InstanceType])) || o.OnDemand.Currency != "USD" || o.OnDemand.Source != "src" {
			t.Errorf("%s %s on-demand %+v, want %s USD (the Linux meter, not the Windows one)", o.InstanceType, o.Region, o.OnDemand, want[o.InstanceType])
		}
		if o.Spot.Known {
			t.Errorf("%s: spot known without a Spot meter", o.InstanceType)
		}
	}
	if len(res.Licenses) != 3 {
		t.Fatalf("licences %+v, want 3", res.Licenses)
	}
	for _, l := range res.Licenses {
		if l.License != "windows" || !l.PerHour.Equal(dec("4.416")) || l.BringYourOwn != "Azure Hybrid Benefit" || want[l.InstanceType] == "" {
			t.Errorf("licence %+v, want windows 4.416 per hour waived by Azure Hybrid Benefit", l)
		}
	}
	if len(res.LeftOut) != 0 || len(res.Commitments) != 0 {
		t.Errorf("left out %v, commitments %v: want none", res.LeftOut, res.Commitments)
	}
}

// TestDocsExamples: Microsoft's two sample items. Neither is a GPU size;
// admitted by name, the DevTest item is left out and the reservation of
// 25007 for 1 Year is a total for the term: 25007 upfront, or 25007 / 12 =
// 2083.916667 a month — never 25007 an hour.
func TestDocsExamples(t *testing.T) {
	res := parseFile(t, New(), docsFile)
	if len(res.LeftOut) != 2 || !strings.Contains(res.LeftOut[0].Reason, "not an N-series") {
		t.Errorf("default importer: left out %v, want both as not GPU sizes", res.LeftOut)
	}
	res = parseFile(t, &Importer{Sizes: []string{"Standard_F16s", "Standard_E64_v4"}}, docsFile)
	if len(res.LeftOut) != 1 || !strings.Contains(res.LeftOut[0].Reason, "Dev/Test") {
		t.Errorf("left out %v, want the DevTestConsumption item", res.LeftOut)
	}
	if len(res.Offerings) != 0 {
		t.Errorf("offerings %+v: a reservation price must not become an hourly price", res.Offerings)
	}
	if len(res.Commitments) != 2 {
		t.Fatalf("commitments %+v, want upfront and monthly", res.Commitments)
	}
	up, mo := res.Commitments[0], res.Commitments[1]
	if up.Model != "reserved" || up.Term != "1y" || up.Payment != "all-upfront" || !up.Upfront.Equal(dec("25007")) || !up.Hourly.IsZero() || !up.Monthly.IsZero() ||
		up.InstanceType != "Standard_E64_v4" || up.Region != "southcentralus" {
		t.Errorf("upfront = %+v, want 1y all-upfront 25007", up)
	}
	if mo.Payment != "monthly" || !mo.Monthly.Equal(dec("2083.916667")) || !mo.Upfront.IsZero() {
		t.Errorf("monthly = %+v, want 2083.916667 a month", mo)
	}
}

func TestConformance(t *testing.T) {
	src := &Feed{Files: []string{docsFile, ndFile}, Source: "azure-retail-fixtures@2025-12-01", AsOf: "2025-12-01"}
	in := feeds.Inputs{Shared: os.DirFS("testdata")}
	// Counted by hand: the docs file's 2 items are left out; the ND file's 6
	// items are 3 offerings (Linux) and 3 licences (Windows).
	feedstest.RunWith(t, src, in, feedstest.Want{Rows: map[string]int{docsFile: 2, ndFile: 6}})
}

// ndItem is the fixture's Standard_ND96asr_v4 Linux item with fields
// changed by mod: the tests vary one field at a time.
func ndItem(t testing.TB, mod func(m map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + ndFile)
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ Items []map[string]any }
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	m := env.Items[0]
	if mod != nil {
		mod(m)
	}
	out, _ := json.Marshal(m)
	return string(out)
}

func body(items ...string) string {
	return `{"BillingCurrency":"USD","Items":[` + strings.Join(items, ",") + `],"NextPageLink":null}`
}

func parse(t *testing.T, im *Importer, b string) *feeds.Result {
	t.Helper()
	res, err := im.Parse(Format, strings.NewReader(b), feeds.ParseOptions{Source: "s", AsOf: "2025-12-01", Origin: "p"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSpotAndSavingsPlan(t *testing.T) {
	linux := ndItem(t, func(m map[string]any) {
		m["savingsPlan"] = []map[string]any{{"term": "1 Year", "unitPrice": 20.5}, {"term": "3 Years", "retailPrice": 15.25}, {"term": "5 Years", "unitPrice": 1}}
	})
	spotItem := ndItem(t, func(m map[string]any) {
		m["meterName"], m["skuName"], m["unitPrice"] = "ND96asr v4 Spot", "ND96asr v4 Spot", 5.5
	})
	res := parse(t, New(), body(linux, spotItem))
	if len(res.Offerings) != 1 {
		t.Fatalf("offerings %+v, want one", res.Offerings)
	}
	o := res.Offerings[0]
	if !o.OnDemand.Amount.Equal(dec("27.197")) || !o.Spot.Known || !o.Spot.Amount.Equal(dec("5.5")) {
		t.Errorf("offering %+v, want on-demand 27.197 and spot 5.5", o)
	}
	if len(res.Commitments) != 2 {
		t.Fatalf("commitments %+v, want the 1y and 3y savings plans", res.Commitments)
	}
	for i, want := range []struct{ term, hourly string }{{"1y", "20.5"}, {"3y", "15.25"}} {
		c := res.Commitments[i]
		if c.Model != "savings-plan" || c.Term != want.term || !c.Hourly.Equal(dec(want.hourly)) || c.Payment != "monthly" {
			t.Errorf("savings plan %d = %+v, want %s at %s an hour", i, c, want.term, want.hourly)
		}
	}
	if len(res.LeftOut) != 1 || !strings.Contains(res.LeftOut[0].Reason, `"5 Years"`) {
		t.Errorf("left out %v, want the 5-year savings plan", res.LeftOut)
	}
}

func TestReservation3Years(t *testing.T) {
	res := parse(t, New(), body(ndItem(t, func(m map[string]any) {
		m["type"], m["reservationTerm"], m["unitPrice"] = "Reservation", "3 Years", 360000
	})))
	if len(res.Commitments) != 2 || res.Commitments[0].Term != "3y" || !res.Commitments[0].Upfront.Equal(dec("360000")) || !res.Commitments[1].Monthly.Equal(dec("10000")) {
		t.Errorf("commitments %+v, want 3y 360000 upfront or 10000 a month for 36 months", res.Commitments)
	}
}

func TestLeftOut(t *testing.T) {
	for _, c := range []struct {
		name   string
		mod    func(m map[string]any)
		reason string
	}{
		{"low priority", func(m map[string]any) { m["meterName"] = "ND96asr v4 Low Priority" }, "Low Priority"},
		{"currency", func(m map[string]any) { m["currencyCode"] = "EUR" }, `price in "EUR"`},
		{"negative", func(m map[string]any) { m["unitPrice"] = -1 }, "negative price"},
		{"zero", func(m map[string]any) { m["unitPrice"] = 0 }, "zero price"},
		{"no price", func(m map[string]any) { delete(m, "unitPrice"); delete(m, "retailPrice") }, "no price"},
		{"unit", func(m map[string]any) { m["unitOfMeasure"] = "1/Month" }, `unit of measure "1/Month"`},
		{"tier", func(m map[string]any) { m["tierMinimumUnits"] = 100 }, "volume tier"},
		{"not primary", func(m map[string]any) { m["isPrimaryMeterRegion"] = false }, "primary meter region"},
		{"service", func(m map[string]any) { m["serviceName"] = "Virtual Machines Licenses" }, "not Virtual Machines"},
		{"region", func(m map[string]any) { m["armRegionName"] = "" }, "no armRegionName"},
		{"type", func(m map[string]any) { m["type"] = "Subscription" }, `price type "Subscription"`},
		{"term", func(m map[string]any) { m["type"], m["reservationTerm"] = "Reservation", "5 Years" }, `reservation term "5 Years"`},
		{"windows reservation", func(m map[string]any) {
			m["type"], m["reservationTerm"], m["productName"] = "Reservation", "1 Year", "Virtual Machines X Series Windows"
		}, "Windows reservation"},
		{"windows spot", func(m map[string]any) { m["meterName"], m["productName"] = "ND96asr v4 Spot", "X Windows" }, "Windows Spot"},
		{"windows without linux", func(m map[string]any) { m["productName"], m["armRegionName"] = "X Windows", "westus2" }, "without a Linux"},
		{"windows below linux", func(m map[string]any) { m["productName"], m["unitPrice"] = "X Windows", 20 }, "not above the Linux price"},
		{"duplicate", nil, "a second pay-as-you-go price"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := parse(t, New(), body(ndItem(t, nil), ndItem(t, c.mod)))
			if len(res.LeftOut) != 1 || !strings.Contains(res.LeftOut[0].Reason, c.reason) {
				t.Fatalf("left out %v, want one with %q", res.LeftOut, c.reason)
			}
			if len(res.Offerings) != 1 || !res.Offerings[0].OnDemand.Amount.Equal(dec("27.197")) || res.Offerings[0].Spot.Known || len(res.Commitments) != 0 || len(res.Licenses) != 0 {
				t.Errorf("records %+v / %+v / %+v: the bad item changed a price", res.Offerings, res.Commitments, res.Licenses)
			}
		})
	}
}

func TestWithSpecs(t *testing.T) {
	im := New().WithSpecs([]feeds.Spec{{Provider: "azure", InstanceType: "Standard_ND96isr_H100_v5"}, {Provider: "gcp", InstanceType: "Standard_ND96asr_v4"}}).(*Importer)
	res := parseFile(t, im, ndFile)
	if len(res.Offerings) != 1 || res.Offerings[0].InstanceType != "Standard_ND96isr_H100_v5" || len(res.LeftOut) != 4 {
		t.Errorf("offerings %+v, left out %d: want the H100 size only, 4 items left out", res.Offerings, len(res.LeftOut))
	}
}

func TestParseErrors(t *testing.T) {
	for name, b := range map[string]string{
		"empty":      "",
		"array":      "[]",
		"truncated":  `{"Items":[{"armSkuName":"Standard_N`,
		"items type": `{"Items":{}}`,
		"bad item":   `{"Items":[{"unitPrice":"x"}]}`,
		"bad link":   `{"NextPageLink":5}`,
	} {
		if _, err := New().Parse(Format, strings.NewReader(b), feeds.ParseOptions{Source: "s", AsOf: "2025-12-01"}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A response carries no date (effectiveStartDate is when each price took
	// effect): without one given nothing is imported.
	nd, err := os.ReadFile("testdata/" + ndFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New().Parse(Format, strings.NewReader(string(nd)), feeds.ParseOptions{Source: "s"}); !errors.Is(err, feeds.ErrNoDate) {
		t.Errorf("no as-of date: err %v, want feeds.ErrNoDate", err)
	}
	if _, err := New().Parse("gcp-skus", strings.NewReader("{}"), feeds.ParseOptions{}); err == nil || !strings.Contains(err.Error(), Format) {
		t.Errorf("wrong format: %v, want an error naming %s", err, Format)
	}
}

func FuzzParse(f *testing.F) {
	b, err := os.ReadFile("testdata/" + ndFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{"Items":[{"serviceName":"Virtual Machines","armSkuName":"Standard_NC4as_T4_v3","armRegionName":"eastus","currencyCode":"USD","unitPrice":100,"type":"Reservation","reservationTerm":"1 Year"}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		res, err := New().Parse(Format, strings.NewReader(s), feeds.ParseOptions{Source: "s", AsOf: "2025-12-01"})
		if err != nil {
			return
		}
		for _, o := range res.Offerings {
			for _, p := range []feeds.Price{o.OnDemand, o.Spot} {
				if p.Known && !p.Amount.IsPositive() {
					t.Fatalf("known price %s is not positive", p.Amount)
				}
			}
		}
		for _, c := range res.Commitments {
			if c.Upfront.IsNegative() || c.Hourly.IsNegative() || c.Monthly.IsNegative() || (c.Upfront.IsZero() && c.Hourly.IsZero() && c.Monthly.IsZero()) {
				t.Fatalf("commitment %+v", c)
			}
		}
		for _, l := range res.Licenses {
			if !l.PerHour.IsPositive() {
				t.Fatalf("licence %s", l.PerHour)
			}
		}
	})
}

var _ feeds.SpecTaker = New()
