package render

import (
	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/cost"
)

// CashflowLine is one way to pay for the cumulative cash-flow chart: its
// legend name and the cost engine's schedule of its payments.
type CashflowLine struct {
	Name  string
	Flows cost.Schedule
}

// CashflowChart draws the cash paid so far at each month 0..months of each
// line: month 0 is the start (upfront fees, fees billed in advance), month j
// the end of the j-th month, so a line ends at its schedule's total (within
// months). `gpuscout cost --chart` and the plan report (CLI and dashboard)
// draw it with this one function.
func CashflowChart(title, currency string, months int, lines []CashflowLine, caption string) *LineChart {
	chart := &LineChart{Title: title, XLabel: "month", YLabel: "cumulative cost (" + currency + ")", Caption: caption}
	for _, l := range lines {
		s := Series{Name: l.Name}
		for i, c := range CumulativeCash(l.Flows, months) {
			// To the cent: amounts read back from JSON (6 decimals) can leave
			// a month that a credit zeroes at -0.000001, which would pull the
			// axis a whole step below zero.
			s.Points = append(s.Points, [2]float64{float64(i), c.Round(2).InexactFloat64()})
		}
		chart.Series = append(chart.Series, s)
	}
	return chart
}

// CumulativeCash is the cash paid by the end of each month 0..months: the
// running sum of the schedule laid out month by month.
func CumulativeCash(s cost.Schedule, months int) []decimal.Decimal {
	out := make([]decimal.Decimal, 0, months+1)
	cum := decimal.Zero
	for _, m := range s.Expand(max(months, 0)) {
		cum = cum.Add(m.Total)
		out = append(out, cum)
	}
	return out
}
