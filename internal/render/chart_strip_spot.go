package render

import (
	"math"
	"slices"

	"github.com/gpuscout/gpuscout/internal/spot"
)

// SpotStripRows are the rows of a spot chart from the simulator's summaries
// (`gpuscout spot --chart` and the dashboard's spot page): one row per
// distinct result, policies with identical runs merged ("spot = asg-mix"),
// each with its finished runs' costs and, with a deadline, the share of runs
// that met it. Summaries with a note (not simulated) and policies with no
// finished run have no row.
func SpotStripRows(sums []spot.Summary, deadline bool) []StripRow {
	var rows []StripRow
	var rowOf []int // the summary each row stands for
	for i := range sums {
		s := &sums[i]
		if s.Note != "" {
			continue
		}
		merged := false
		for r, k := range rowOf {
			if slices.Equal(sums[k].Costs, s.Costs) && slices.Equal(sums[k].Hours, s.Hours) {
				rows[r].Label += " = " + s.Policy
				merged = true
				break
			}
		}
		if merged {
			continue
		}
		row := StripRow{Label: s.Policy, Unfinished: s.Unfinished, Mean: s.CostMean, P95: s.CostP95}
		for k, c := range s.Costs {
			if !math.IsInf(s.Hours[k], 1) {
				row.Values = append(row.Values, c)
			}
		}
		if len(row.Values) == 0 {
			continue
		}
		if deadline {
			p := s.PMeetDeadline
			row.PMeet = &p
		}
		rows = append(rows, row)
		rowOf = append(rowOf, i)
	}
	return rows
}
