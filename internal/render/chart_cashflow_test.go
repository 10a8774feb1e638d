package render

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

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
	chart := rc.Chart.(*LineChart)
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
	checkReadable(t, "cashflow.svg", b.Bytes())
	path := filepath.Join("testdata", "cashflow.svg")
	if updating() {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/render -run TestCashflowReportChart -update)", err)
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

// A month a credit zeroes stays at zero on the chart: flows read back from
// JSON (6 decimals) sum to -0.000001 there (231.434113 + 215.130966 −
// 446.56508), which must not pull the axis a step below zero.
func TestCashflowChartCentZero(t *testing.T) {
	var s cost.Schedule
	s.Add(cost.FlowCommitment, 1, 36, dec("231.434113"))
	s.Add(cost.FlowEgress, 1, 36, dec("215.130966"))
	s.Add(cost.FlowCredit, 1, 1, dec("-446.56508"))
	c := CashflowChart("t", "USD", 36, []CashflowLine{{Name: "a", Flows: s}}, "")
	if got := c.Series[0].Points[1][1]; got != 0 {
		t.Errorf("month 1 at %g, want 0", got)
	}
	if got, want := c.Series[0].Points[36][1], s.Total().Round(2).InexactFloat64(); got != want {
		t.Errorf("month 36 at %g, want the total %g", got, want)
	}
}

// A tick label at the left end of a breakdown's axis (credits reach below
// zero) moves inside the chart rather than being cut by its edge.
func TestBreakdownNegativeTickNotCut(t *testing.T) {
	c := &BreakdownChart{Title: "t", XLabel: "cost (USD)", Rows: []BreakdownRow{
		{Label: "a", Parts: []Part{{Name: "usage", Value: 779040}, {Name: "credit", Value: -1000}}},
		{Label: "b", Parts: []Part{{Name: "commitment", Value: 8331}, {Name: "credit", Value: -1000}}},
	}}
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, m := range tickTextRe.FindAllStringSubmatch(b.String(), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		if w := textWidth(m[2], fontSmall); x-w/2 < 0 {
			t.Errorf("tick %q centred at x %g is cut by the left edge (%.1f px wide)", m[2], x, w)
		}
	}
}

var tickTextRe = regexp.MustCompile(`<text x="([0-9.-]+)" y="[0-9.]+" text-anchor="middle"[^>]*>(-[0-9.]+[kM]?)</text>`)
