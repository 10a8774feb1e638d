package render

import (
	"math"
	"testing"

	"github.com/gpuscout/gpuscout/internal/spot"
)

// TestSpotStripRows: identical runs share a row ("spot = asg-mix"), an
// unfinished run is not a dot, a policy not simulated has no row, and the
// share meeting the deadline is there only with a deadline.
func TestSpotStripRows(t *testing.T) {
	inf := math.Inf(1)
	sums := []spot.Summary{
		{Policy: "spot", Costs: []float64{10, 20}, Hours: []float64{5, inf}, CostMean: 10, PMeetDeadline: 0.5, Unfinished: 1},
		{Policy: "greedy", Note: "needs --deadline"},
		{Policy: "asg-mix", Costs: []float64{10, 20}, Hours: []float64{5, inf}},
		{Policy: "on-demand", Costs: []float64{30, 30}, Hours: []float64{6, 6}, CostMean: 30, PMeetDeadline: 1},
		{Policy: "never", Costs: []float64{1}, Hours: []float64{inf}},
	}
	rows := SpotStripRows(sums, true)
	if len(rows) != 2 || rows[0].Label != "spot = asg-mix" || len(rows[0].Values) != 1 || rows[0].Values[0] != 10 ||
		rows[0].Unfinished != 1 || *rows[0].PMeet != 0.5 || rows[1].Label != "on-demand" || *rows[1].PMeet != 1 {
		t.Fatalf("rows %+v", rows)
	}
	if rows := SpotStripRows(sums, false); rows[0].PMeet != nil {
		t.Errorf("without a deadline: PMeet %v, want none", *rows[0].PMeet)
	}
}
