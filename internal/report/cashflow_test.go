package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/render/rendertest"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// update rewrites the golden files in testdata.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// cashPlans are two 12-month plans worked by hand: a 1y partial-upfront
// reservation (2,000 USD at the start + 182.50 USD a month billed in
// advance, months 0..11: 4,190 USD) and on-demand at 500 USD a month paid
// at the end of months 1..12 (6,000 USD).
func cashPlans() []advise.Plan {
	gpu := &catalog.GPU{Name: "L4"}
	od := catalog.KnownPrice(dec("0.8048"), money.USD, "test-prices", "2026-12-01")
	off := &catalog.Offering{Provider: "aws", InstanceType: "g6.xlarge", Region: "us-east-1", GPU: gpu, GPUCount: 1, OnDemand: od}
	var reserved, ondemand cost.Schedule
	reserved.Add(cost.FlowUpfront, 0, 0, dec("2000"))
	reserved.Add(cost.FlowCommitment, 0, 11, dec("182.5"))
	ondemand.Add(cost.FlowUsage, 1, 12, dec("500"))
	return []advise.Plan{
		{Rank: 1, Offering: off, Instances: 1, Model: catalog.ModelReserved, Term: "1y", Payment: "partial-upfront standard",
			Total: money.New(dec("4190"), money.USD), UpfrontCash: money.New(dec("2182.5"), money.USD), Currency: money.USD, CashFlows: reserved, HorizonMonths: 12},
		{Rank: 2, Offering: off, Instances: 1, Model: cost.ModelOnDemand,
			Total: money.New(dec("6000"), money.USD), UpfrontCash: money.New(decimal.Zero, money.USD), Currency: money.USD, CashFlows: ondemand, HorizonMonths: 12},
	}
}

// The report's cash-flow chart: one line per way to pay, each starting at
// the cash due at the start and ending at its plan's total.
func TestCashflowReportChartEndsAtTotals(t *testing.T) {
	plans := cashPlans()
	req := &advise.Request{Scenario: &advise.Scenario{Name: "inference-online"}, HoursPerMonth: 730, HorizonMonths: 12}
	rc, ok := cashflowReportChart(plans, req, "USD")
	if !ok || rc.Chart == nil {
		t.Fatalf("no chart (%+v), want one: the top plan is a commitment", rc)
	}
	chart := rc.Chart.(*render.LineChart)
	if len(chart.Series) != 2 {
		t.Fatalf("%d lines, want 2", len(chart.Series))
	}
	for i, c := range []struct{ first, last float64 }{{2182.5, 4190}, {0, 6000}} {
		pts := chart.Series[i].Points
		if len(pts) != 13 || pts[0][1] != c.first || pts[12][0] != 12 || math.Abs(pts[12][1]-c.last) > 1e-9 {
			t.Errorf("line %q: %d points, month 0 at %v, last %v; want 13 points, %g at the start, (12, %g)", chart.Series[i].Name, len(pts), pts[0], pts[len(pts)-1], c.first, c.last)
		}
		if !strings.HasSuffix(chart.Series[i].Name, money.Format(plans[i].Total.Value, "")+" USD") {
			t.Errorf("line %q does not name its total %s", chart.Series[i].Name, plans[i].Total.Value)
		}
	}
	if !strings.Contains(chart.Caption, "test-prices (2026-12-01)") {
		t.Errorf("caption lacks the price source: %s", chart.Caption)
	}
	var b bytes.Buffer
	if err := chart.Write(&b); err != nil {
		t.Fatal(err)
	}
	rendertest.CheckReadable(t, "cashflow.svg", b.Bytes())
	path := filepath.Join("testdata", "cashflow.svg")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -run TestCashflowReportChart -update)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("cashflow.svg differs from the golden file; refresh with -update and read the diff")
	}
}

// When the chart is drawn: a commitment among the top plans over two
// months or more; a note, never made-up lines, for plans without flows.
func TestCashflowReportChartWhen(t *testing.T) {
	load := &advise.Request{Scenario: &advise.Scenario{Name: "s"}, HoursPerMonth: 730, HorizonMonths: 12}
	plans := cashPlans()
	payg := plans[1:]
	short := cashPlans()
	for i := range short {
		short[i].HorizonMonths, short[i].CashFlows = 0.25, short[i].CashFlows[:1]
		short[i].CashFlows[0].To = min(short[i].CashFlows[0].To, 1)
	}
	old := cashPlans()
	for i := range old {
		old[i].CashFlows, old[i].HorizonMonths = nil, 0
	}
	for _, c := range []struct {
		name  string
		plans []advise.Plan
		drawn bool
		note  string
	}{
		{"commitment on top", plans, true, ""},
		{"pay as you go only", payg, false, ""},
		{"under two months", short, false, ""},
		{"an upload before cash_flows", old, false, "Not drawn: these plans carry no month-by-month payments"},
	} {
		rc, ok := cashflowReportChart(c.plans, load, "USD")
		if drawn := ok && rc.Chart != nil; drawn != c.drawn || !strings.Contains(rc.Note, c.note) || (c.note != "" && !ok) {
			t.Errorf("%s: shown %v, chart %v, note %q; want chart %v, note %q", c.name, ok, rc.Chart != nil, rc.Note, c.drawn, c.note)
		}
	}
}
