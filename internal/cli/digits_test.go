package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// TestMachineFormatsKeepEveryDigit: the prices offers and cost write as CSV
// and JSON are the catalog's decimals, every digit, read back and compared
// exactly; the text table may round them for display.
func TestMachineFormatsKeepEveryDigit(t *testing.T) {
	hermetic(t)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var p4d *catalog.Offering
	for i := range cat.Offerings {
		if o := &cat.Offerings[i]; o.Provider == "aws" && o.InstanceType == "p4d.24xlarge" && o.Region == "us-east-1" {
			p4d = o
		}
	}
	if p4d == nil || !p4d.OnDemand.Known {
		t.Fatal("the catalog has no priced aws p4d.24xlarge in us-east-1")
	}
	if want := decimal.RequireFromString("21.957642"); !p4d.OnDemand.Value.Equal(want) {
		t.Fatalf("catalog p4d.24xlarge us-east-1 = %s, want %s (DESIGN.md's checked fact)", p4d.OnDemand.Value, want)
	}
	// A price file adds offerings whose prices have more decimals than any table shows.
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(prices, []byte(`currency: USD
as_of: 2026-11-01
prices:
  - {provider: aws, instance_type: g5.xlarge, region: us-east-1, price: 0.000123}
  - {provider: aws, instance_type: g5.2xlarge, region: us-east-1, price: 9.5326}
  - {provider: aws, instance_type: g5.4xlarge, region: us-east-1, price: 1.2345678901}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"p4d.24xlarge": "21.957642", // the catalog's own decimal, checked above
		"g5.xlarge":    "0.000123",
		"g5.2xlarge":   "9.5326",
		"g5.4xlarge":   "1.2345678901",
	}
	args := []string{"offers", "--provider", "aws", "--region", "us-east-1", "--prices", prices, "--all-regions"}

	out, errOut, code := run(t, append(args, "-o", "csv")...)
	if code != 0 {
		t.Fatalf("offers -o csv: exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	got := map[string]string{}
	for _, r := range recs[1:] {
		if _, ok := want[r[col["INSTANCE"]]]; ok {
			got[r[col["INSTANCE"]]] = r[col["USD/h"]]
		}
	}
	for typ, w := range want {
		if !sameDecimal(got[typ], w) {
			t.Errorf("offers -o csv: %s USD/h = %q, want %s exactly", typ, got[typ], w)
		}
	}

	out, errOut, code = run(t, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("offers -o json: exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	dec := json.NewDecoder(bytes.NewReader([]byte(out)))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range rows {
		w, ok := want[r["instance_type"].(string)]
		if !ok {
			continue
		}
		seen++
		if n, _ := r["price_per_hour"].(json.Number); !sameDecimal(string(n), w) {
			t.Errorf("offers -o json: %s price_per_hour = %v, want %s exactly", r["instance_type"], r["price_per_hour"], w)
		}
	}
	if seen < len(want) {
		t.Errorf("offers -o json lists %d of the %d offerings", seen, len(want))
	}

	// Every priced offering of the catalog in its own currency, read back
	// from -o json, is the catalog's decimal (GCP's derived hourly prices
	// have 15 significant digits: 88.4899999025753).
	out, errOut, code = run(t, "offers", "--provider", "aws,gcp,azure,lambda", "--all-regions", "-o", "json")
	if code != 0 {
		t.Fatalf("offers -o json: exit %d: %s", code, errOut)
	}
	rows = nil
	dec = json.NewDecoder(bytes.NewReader([]byte(out)))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*catalog.Offering{}
	for i := range cat.Offerings {
		byKey[cat.Offerings[i].Key()] = &cat.Offerings[i]
	}
	compared := 0
	for _, r := range rows {
		key := fmt.Sprint(r["provider"], "/", r["instance_type"], "/", r["region"], "/", r["zone"])
		o := byKey[key]
		n, ok := r["price_per_hour"].(json.Number)
		if o == nil || !ok || r["converted_from"] != nil {
			continue
		}
		compared++
		if got := decimal.RequireFromString(string(n)); !got.Equal(o.OnDemand.Value) {
			t.Errorf("offers -o json: %s price_per_hour %s, the catalog's decimal is %s", key, n, o.OnDemand.Value)
		}
	}
	if compared < 100 {
		t.Errorf("compared %d offerings with the catalog, want every priced one (hundreds)", compared)
	}

	// The text table rounds for display, and says the machine formats do not.
	out, _, _ = run(t, args...)
	if !strings.Contains(out, "1.2346") || strings.Contains(out, "1.2345678901") || !strings.Contains(out, "-o csv and -o json keep every digit") {
		t.Errorf("offers table: want 1.2345678901 shown as 1.2346 with the rounding note:\n%s", out)
	}

	// cost: the list price it bills at (JSON), and on-demand's effective price
	// per hour (CSV: 7 days, no extras, so the list price) and total (× 168 h).
	costArgs := []string{"cost", "--offering", "aws/p4d.24xlarge/us-east-1", "--for", "7d"}
	out, errOut, code = run(t, append(costArgs, "-o", "json")...)
	if code != 0 {
		t.Fatalf("cost -o json: exit %d: %s", code, errOut)
	}
	var opts []map[string]any
	dec = json.NewDecoder(bytes.NewReader([]byte(out)))
	dec.UseNumber()
	if err := dec.Decode(&opts); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range opts {
		if o["pricing_model"] != "on-demand" {
			continue
		}
		found = true
		if n, _ := o["list_hourly"].(json.Number); !sameDecimal(string(n), "21.957642") {
			t.Errorf("cost -o json: list_hourly = %v, want 21.957642", o["list_hourly"])
		}
		// 21.957642 × 168 h = 3,688.883856 (no rounding to the cent).
		if n, _ := o["total"].(json.Number); !sameDecimal(string(n), "3688.883856") {
			t.Errorf("cost -o json: total = %v, want 3688.883856", o["total"])
		}
	}
	if !found {
		t.Fatalf("cost -o json has no on-demand option:\n%s", out)
	}
	out, errOut, code = run(t, append(costArgs, "-o", "csv")...)
	if code != 0 {
		t.Fatalf("cost -o csv: exit %d: %s", code, errOut)
	}
	recs, err = csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col = map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	found = false
	for _, r := range recs[1:] {
		if r[col["MODEL"]] != "on-demand" {
			continue
		}
		found = true
		if !sameDecimal(r[col["EFF USD/h"]], "21.957642") || !sameDecimal(r[col["TOTAL USD"]], "3688.883856") {
			t.Errorf("cost -o csv on-demand: EFF USD/h %q, TOTAL USD %q; want 21.957642 and 3688.883856", r[col["EFF USD/h"]], r[col["TOTAL USD"]])
		}
	}
	if !found {
		t.Fatalf("cost -o csv has no on-demand row:\n%s", out)
	}
	if out, _, _ := run(t, costArgs...); !strings.Contains(out, "3,688.88") {
		t.Errorf("cost table: want the total shown to the cent, 3,688.88:\n%s", out)
	}
}

// sameDecimal reports whether got is the decimal want, digit for digit
// (trailing zeros aside).
func sameDecimal(got, want string) bool {
	g, err := decimal.NewFromString(got)
	return err == nil && g.Equal(decimal.RequireFromString(want)) && strings.TrimRight(strings.TrimRight(got, "0"), ".") == want
}
