package render

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/cost"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

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
