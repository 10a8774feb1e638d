package cli

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

// The clock of these tests is 2026-11-30 (TestMain). Tencent's China-site
// prices (tencent-qcloud-gpu-prices@8ec07296) come from a page dated only
// "2021", which the feed dates 2021-01-01; its international prices are
// dated 2020-05-22; AWS's spot prices 2026-07-09 (SkyPilot), 144 days old.

// TestOffersPriced: offers shows each on-demand price's date in a PRICED
// column, † where it is past a year, "2021 (day unknown)" where only the
// year is known, and explains both under the table only when a row shows
// them.
func TestOffersPriced(t *testing.T) {
	out, errOut, code := run(t, "offers", "--provider", "tencent", "--gpu", "V100", "--wide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"PRICED", "2021 (day unknown)†", "2020-05-22†", "† = more than a year old (8 rows shown)", `PRICED "(day unknown)": the price page gives only the year`} {
		if !strings.Contains(out, want) {
			t.Errorf("offers --provider tencent lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "2021-01-01") {
		t.Errorf("offers shows the placeholder day 2021-01-01 as a date:\n%s", out)
	}
	// Fresh prices: a date, no mark and no footnote.
	out, _, _ = run(t, "offers", "--provider", "lambda", "--gpu", "H100:8", "--wide")
	if !strings.Contains(out, "2026-07-09") || strings.Contains(out, "†") || strings.Contains(out, "PRICED:") || strings.Contains(out, "day unknown") {
		t.Errorf("offers of fresh prices: want dates without † or footnotes:\n%s", out)
	}
}

// TestOffersPricedNarrow: on a narrow terminal PRICED and REGION are never
// left out (render's fitting rule keeps where and how old); other columns
// go, and below what they need the table says it cannot fit.
func TestOffersPricedNarrow(t *testing.T) {
	for _, cols := range []string{"90", "60"} {
		t.Setenv(testColumns, cols)
		out, _, _ := run(t, "offers", "--provider", "tencent", "--gpu", "V100")
		header := out[:strings.Index(out, "\n")]
		fit := out[strings.LastIndex(out, "Left out"):]
		if !strings.Contains(out, "2021 (day unknown)†") || !strings.Contains(header, "PRICED") || !strings.Contains(header, "REGION") ||
			strings.Contains(fit, "PRICED") || strings.Contains(fit, "REGION") {
			t.Errorf("at %s columns: want PRICED and REGION shown, never left out:\n%s", cols, out)
		}
	}
	if out, _, _ := run(t, "offers", "--provider", "tencent", "--gpu", "V100"); !strings.Contains(out, "columns wide, more than 60") {
		t.Errorf("at 60 columns: want the table to say it cannot fit:\n%s", out)
	}
}

// TestOffersCSVDates: -o csv has the on-demand and spot prices' dates and
// whether each is stale in columns of their own: a spot price 144 days old
// is stale (30 days), an on-demand price of the same day is not (a year).
func TestOffersCSVDates(t *testing.T) {
	out, errOut, code := run(t, "offers", "--gpu", "H100:8", "--provider", "aws", "-o", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	r := recs[1]
	for h, want := range map[string]string{"INSTANCE": "p5.48xlarge", "PRICED": "2026-07-09", "STALE": "false", "SPOT PRICED": "2026-07-09", "SPOT STALE": "true"} {
		if i, ok := col[h]; !ok || r[i] != want {
			t.Errorf("column %s: want %q in\n%s", h, want, out)
		}
	}
	out, _, _ = run(t, "offers", "--provider", "tencent", "--gpu", "V100", "-o", "csv")
	if !strings.Contains(out, ",2021,true,,,") || strings.Contains(out, "†") {
		t.Errorf("Tencent's CSV: want the year 2021, stale, no spot date, no † mark:\n%s", out)
	}
}

// TestOffersJSONDates: -o json says the day of a year-only price is a
// placeholder and whether each price is stale.
func TestOffersJSONDates(t *testing.T) {
	out, _, _ := run(t, "offers", "--provider", "tencent", "--gpu", "V100", "-o", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) == 0 {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, r := range rows {
		want := map[string]any{"tencent-qcloud-gpu-prices@8ec07296": "year", "tencent-intl-cvm-prices@b7e17ea6": nil}[r["price_source"].(string)]
		if r["price_as_of_precision"] != want || r["price_stale"] != true {
			t.Errorf("%s (%s): precision %v, stale %v; want %v, stale", r["instance_type"], r["price_source"], r["price_as_of_precision"], r["price_stale"], want)
		}
	}
}

// TestCostPriceDates: cost cites the on-demand price's source and date as
// it cites a commitment's, dates each option in PRICED, and warns for each
// stale price an option bills at in advise's words: the spot price 144
// days old, Tencent's prices dated only to 2021.
func TestCostPriceDates(t *testing.T) {
	out, errOut, code := run(t, "cost", "--offering", "aws/p5.48xlarge/us-west-2", "--for", "7d", "--wide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"on-demand 55.04 USD/h × 168 h = 9,246.72 USD (skypilot-v9@2c3d7ea7, 2026-07-09)",
		"2026-07-09†",
		"the spot price is dated 2026-07-09 (skypilot-v9@2c3d7ea7), 144 days ago: older than 30 days (spot prices move far faster than list prices), so check it against aws's console before you buy",
		"† = one of its prices is older than a year, or its spot price older than 30 days (#1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cost of p5 in us-west-2 lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "the on-demand price is dated") {
		t.Errorf("a fresh on-demand price is flagged:\n%s", out)
	}
	out, _, _ = run(t, "cost", "--offering", "tencent/GN10Xp.2XLARGE40", "--hours-per-month", "730", "--horizon", "1y", "--wide")
	for _, want := range []string{
		"on-demand 1.67 USD/h × 8760 h = 14,607.52 USD (tencent-qcloud-gpu-prices@8ec07296, 2021 (day unknown))",
		"2021 (day unknown)†",
		"the on-demand price is dated only to the year 2021 (tencent-qcloud-gpu-prices@8ec07296), up to 2159 days ago: it may be older than a year",
		"the commitment price is dated only to the year 2021",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cost of Tencent GN10Xp lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "2021-01-01") {
		t.Errorf("cost shows the placeholder day 2021-01-01:\n%s", out)
	}
	out, _, _ = run(t, "cost", "--offering", "aws/p5.48xlarge/us-west-2", "--for", "7d", "-o", "json")
	var opts []struct {
		Known     bool   `json:"known"`
		Model     string `json:"pricing_model"`
		PriceAsOf string `json:"price_as_of"`
		Stale     bool   `json:"stale"`
	}
	if err := json.Unmarshal([]byte(out), &opts); err != nil {
		t.Fatal(err)
	}
	for _, o := range opts {
		if o.Known && (o.PriceAsOf == "" || o.Stale != (o.Model == "spot")) {
			t.Errorf("cost -o json: %+v; want a date, stale only for spot", o)
		}
	}
}

// TestCatalogInfoPartialAndSpotDates: catalog info warns for a source dated
// only by year, saying how old its prices may be, and for spot prices past
// 30 days.
func TestCatalogInfoPartialAndSpotDates(t *testing.T) {
	out, _, _ := run(t, "catalog", "info", "--wide")
	for _, want := range []string{
		"come from tencent-qcloud-gpu-prices@8ec07296, dated only by year (2021): up to 2159 days old, so possibly older than a year",
		"spot prices come from skypilot-v9@2c3d7ea7, dated 2026-07-09 (144 days ago), older than 30 days",
		"2021 (day unknown)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog info lacks %q:\n%s", want, out)
		}
	}
}
