package cli

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCostJSONContract(t *testing.T) {
	out, errOut, code := run(t, "cost", "--offering", "gcp/a3-highgpu-8g", "--hours-per-month", "600", "--horizon", "3y", "--discount-rate", "8%", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var opts []map[string]any
	if err := json.Unmarshal([]byte(out), &opts); err != nil {
		t.Fatal(err)
	}
	models := map[string]bool{}
	for _, o := range opts {
		for _, k := range []string{"provider", "instance_type", "region", "pricing_model", "term", "payment", "currency"} {
			if _, ok := o[k].(string); !ok {
				t.Fatalf("%s is not a string in %v", k, o)
			}
		}
		if _, ok := o["feasible"].(bool); !ok {
			t.Fatalf("feasible is not a boolean in %v", o)
		}
		if _, ok := o["explanation"].([]any); !ok {
			t.Fatalf("explanation is not an array in %v", o)
		}
		for _, k := range []string{"total", "upfront", "effective_hourly", "npv", "breakeven_hours_per_month"} {
			v, present := o[k]
			if _, isNum := v.(float64); !present || (v != nil && !isNum) {
				t.Fatalf("%s must be a number or null in %v", k, o)
			}
		}
		models[o["pricing_model"].(string)] = true
	}
	for _, m := range []string{"on-demand", "spot", "commitment"} {
		if !models[m] {
			t.Errorf("no %s option", m)
		}
	}
	out, _, _ = run(t, "cost", "breakeven", "--offering", "gcp/a3-highgpu-8g/us-central1", "-o", "json")
	var be []map[string]any
	if err := json.Unmarshal([]byte(out), &be); err != nil || len(be) != 2 {
		t.Fatalf("breakeven json: %v %s", err, out)
	}
	for _, r := range be {
		for _, k := range []string{"term", "payment", "effective_hourly", "ondemand_hourly", "breakeven_hours_per_month"} {
			if _, ok := r[k]; !ok {
				t.Errorf("breakeven row lacks %s: %v", k, r)
			}
		}
	}
	// 3y: 28370.99821392 / 88.4899999025753 = 320.61 h/month (research notes: 321 h).
	for _, r := range be {
		if r["term"] == "3y" && r["breakeven_hours_per_month"] != 320.61 {
			t.Errorf("a3 3y break-even = %v, want 320.61", r["breakeven_hours_per_month"])
		}
	}
}

// costChartLines reads the polylines of an SVG chart: title → points.
func costChartLines(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName  xml.Name `xml:"svg"`
		Polyline []struct {
			Points string `xml:"points,attr"`
			Title  string `xml:"title"`
		} `xml:"polyline"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: not valid SVG/XML: %v", path, err)
	}
	out := map[string][]string{}
	for _, p := range doc.Polyline {
		out[p.Title] = strings.Fields(p.Points)
	}
	return out
}

func TestCostChart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cost.svg")
	_, errOut, code := run(t, "cost", "--offering", "gcp/a2-highgpu-8g/us-central1", "--hours-per-month", "420", "--horizon", "3y", "--chart", path)
	if code != 0 {
		t.Fatal(errOut)
	}
	// The first chart: one line per pricing model against hours per month
	// (two points each: 0 and 730 h), the break-evens of the table (3y 256,
	// 1y 460 h/month) and the load labelled.
	lines := costChartLines(t, path)
	for _, name := range []string{"on-demand", "spot", "3y commitment monthly", "1y commitment monthly"} {
		if n := len(lines[name]); n != 2 {
			t.Errorf("line %q: %d points, want 2 (0 and 730 h/month); lines %v", name, n, lines)
		}
	}
	texts := strings.Join(chartTexts(t, path), "\n")
	for _, want := range []string{"3y commitment wins above 256 h/month", "1y commitment wins above 460 h/month", "your load: 420 h/month", "cyclenerd-gcp@2026-07-30"} {
		if !strings.Contains(texts, want) {
			t.Errorf("chart lacks %q:\n%s", want, texts)
		}
	}
	// The second, beside it: the cumulative cash flow, month 0 to 36.
	flow := costChartLines(t, filepath.Join(filepath.Dir(path), "cost-cashflow.svg"))
	if len(flow) != 4 {
		t.Fatalf("cash-flow chart: %d lines, want 4 (spot, on-demand, 1y, 3y)", len(flow))
	}
	for name, pts := range flow {
		if len(pts) != 37 {
			t.Errorf("%s: %d points, want months 0..36", name, len(pts))
		}
	}
}

// TestCostLinesBreakEven: the chart's lines are the table's figures: the
// on-demand line at the user's load is the on-demand total, and it crosses
// each commitment's flat line at that commitment's break-even hours.
func TestCostLinesBreakEven(t *testing.T) {
	f := costFlags{catalogFlags: catalogFlags{currency: "USD"}, offering: "gcp/a2-highgpu-8g/us-central1"}
	f.usage.HoursPerMonth, f.horizonHours = 420, 3*8760
	run, opts, err := f.priceAll(func(n string) bool { return n == "hours-per-month" || n == "horizon" })
	if err != nil {
		t.Fatal(err)
	}
	lines := costLines(opts, run)
	var od *costLine
	for i := range lines {
		if lines[i].name == "on-demand" {
			od = &lines[i]
		}
	}
	if od == nil || len(lines) != 4 {
		t.Fatalf("lines %+v, want on-demand, spot and two commitments", lines)
	}
	if got, want := od.perHour*costLoad(run.usage()), od.opt.Total.Value.InexactFloat64(); math.Abs(got-want) > 0.01 {
		t.Errorf("on-demand at 420 h/month = %.2f, want the table's total %.2f", got, want)
	}
	checked := 0
	for _, l := range lines {
		if l.opt.Breakeven == nil {
			continue
		}
		checked++
		if cross := l.fixed / od.perHour; math.Abs(cross-*l.opt.Breakeven) > 0.5 {
			t.Errorf("%s crosses on-demand at %.2f h/month, want its break-even %.2f", l.name, cross, *l.opt.Breakeven)
		}
	}
	if checked != 2 {
		t.Errorf("%d lines with a break-even, want 2 (1y, 3y)", checked)
	}
}

func TestCostBadInput(t *testing.T) {
	dir := t.TempDir()
	badUsage := filepath.Join(dir, "u.yaml")
	os.WriteFile(badUsage, []byte("gpu: A100\ncredits:\n  - {amount: 100, currency: XYZ}\n"), 0o644)
	bothUsage := filepath.Join(dir, "both.yaml")
	os.WriteFile(bothUsage, []byte("gpu: A100\nduration: 7d\nhours_per_month: 100\n"), 0o644)
	bandUsage := filepath.Join(dir, "band.yaml")
	os.WriteFile(bandUsage, []byte("gpu: A100\nspot: {band: 200%}\n"), 0o644)
	outageUsage := filepath.Join(dir, "outage.yaml")
	os.WriteFile(outageUsage, []byte("gpu: A100\nduration: 5d\nspot: {outage: 40d}\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cost", "--gpu", "A100:4", "--hours-per-month", "800"}, `"800" for "--hours-per-month" flag: want a number above 0 and at most 730 hours`},
		{[]string{"cost", "--gpu", "A100:4", "--hours-per-month", "-5"}, `"-5" for "--hours-per-month"`},
		// Defects of issue 8: zero is not "unset", a bare 8 is not 800%, 1e300 is not money.
		{[]string{"cost", "--gpu", "A100:4", "--hours-per-month", "0"}, `"0" for "--hours-per-month" flag: want a number above 0`},
		{[]string{"cost", "--gpu", "A100:4", "--instances", "0"}, `"0" for "--instances" flag: want 1 to 100000`},
		{[]string{"cost", "--gpu", "A100:4", "--discount-rate", "8"}, `"8" for "--discount-rate" flag: a bare number is a fraction (8 would be 800%); write 8% or 0.08`},
		{[]string{"cost", "--gpu", "A100:4", "--discount-rate", "150%"}, `want 0% to 100%`},
		{[]string{"cost", "--gpu", "A100:4", "--credit", "1e300USD@aws"}, `"1e300USD@aws" for "--credit" flag`},
		{[]string{"cost", "--gpu", "A100:4", "--fx", "CNY=1e309"}, `--fx "CNY=1e309": rate is out of range: allowed 0.00000001 to 100 USD per CNY`},
		{[]string{"cost", "--gpu", "A100:4", "--spot-band", "200%"}, `"200%" for "--spot-band" flag: band "200%"`},
		{[]string{"cost", "--gpu", "A100:4", "--spot-outage", "31d"}, `"31d" for "--spot-outage" flag: 31d is too long: at most 30d`},
		{[]string{"cost", "--gpu", "A100:4", "--spot-outage", "-2h"}, `"-2h" for "--spot-outage" flag`},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--spot-outage", "1y"}, `"1y" for "--spot-outage" flag`},
		{[]string{"cost", "--usage", outageUsage}, "spot outage 960 h: want 0 to 720 h"},
		{[]string{"cost", "--gpu", "A100:4", "--for", "0m"}, `"0m" for "--for" flag: must be longer than zero`},
		{[]string{"cost", "--gpu", "A100:4", "--for", "7d", "--hours-per-month", "100"}, "--for and --hours-per-month describe different loads"},
		{[]string{"cost", "--usage", bothUsage}, "both.yaml:2: field duration: and hours_per_month both given"},
		{[]string{"cost", "--usage", bandUsage}, "band.yaml:2: field spot.band"},
		{[]string{"cost", "--gpu", "A100:4", "--for", "7d", "--chart", "x.png"}, `"x.png" for "--chart" flag: want a file ending in .svg`},
		{[]string{"cost", "--gpu", "A100:4", "--for", "7d", "--chart", filepath.Join(dir, "nope", "x.svg")}, `for "--chart" flag: folder`},
		{[]string{"completion", "tcsh"}, `completion "tcsh": no completion for that shell`},
		{[]string{"cost", "--gpu", "A100:4", "--for", "30s"}, "shorter than the billing minimum of 60 s"},
		{[]string{"cost", "--gpu", "A100:4", "--horizon", "10s"}, "shorter than the billing minimum"},
		{[]string{"cost", "--gpu", "A100:4", "--for", "7x"}, `unknown unit "x"`},
		{[]string{"cost", "--gpu", "A100:4", "--currency", "XYZ"}, "--currency XYZ: no exchange rate"},
		{[]string{"cost", "--gpu", "A100:4", "--credit", "100XYZ@aws"}, "credit currency XYZ has no exchange rate (known: CNY, EUR, USD); add one with --fx XYZ=USD_PER_UNIT"},
		{[]string{"cost", "--usage", badUsage}, "u.yaml:3: credit currency XYZ has no exchange rate"},
		{[]string{"cost", "--gpu", "A100:4", "--credit", "lots"}, `"lots" for "--credit" flag: want AMOUNT CUR`},
		{[]string{"cost", "--gpu", "A100:4", "--egress", "moon=5"}, `"moon=5" for "--egress" flag: want PATH=GB`},
		{[]string{"cost", "--gpu", "A100:4", "--egress", "internet=1e20"}, `GB a month "1e20": want a number from 0 to 1e+09`},
		{[]string{"cost", "--gpu", "A100:4", "--discount-rate", "cheap"}, `"cheap" for "--discount-rate" flag`},
		{[]string{"cost", "--for", "7d"}, "say what to price"},
		{[]string{"cost", "--offering", "aws"}, "want provider/instance[/region]"},
		{[]string{"cost", "--offering", "aws/p9.huge"}, `aws has no instance type "p9.huge"`},
		{[]string{"cost", "breakeven", "--offering", "lambda/gpu_8x_a100"}, "has no commitment price"},
		{[]string{"cost", "breakeven"}, "--offering is required"},
		{[]string{"cost", "--gpu", "A100:4", "--license", "beos"}, `license "beos"`},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// NaN and infinities are bad input everywhere, never a silent number.
func TestNaNIsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"cost", "--gpu", "T4", "--hours-per-month", "NaN"},
		{"cost", "--gpu", "T4", "--for", "1d", "--egress", "internet=NaN"},
		{"cost", "--gpu", "T4", "--for", "1d", "--egress", "internet=+Inf"},
		{"advise", "--scenario", "cv-training", "--pattern", "bursty", "--peak", "4", "--base", "NaN"},
		{"spot", "--work", "1h", "--band", "5-10%", "--spot-price", "1", "--od-price", "2", "--od-percent", "NaN"},
		{"spot", "--work", "1h", "--hazard", "NaN", "--spot-price", "1", "--od-price", "2"},
		{"offers", "--gpu", "A100:NaN"},
		{"offers", "--min-gpu-memory", "NaN"},
	} {
		if _, errOut, code := run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
}
