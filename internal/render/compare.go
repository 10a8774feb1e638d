package render

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/benchreport"
)

// ComparisonRows are the rows of a bench comparison (`gpuscout bench
// compare` and the dashboard's compare page): measurement, device, unit,
// then each report's value with its efficiency against the datasheet in
// brackets, its status where it has no value, NotApplied where the
// measurement is not in that report.
func ComparisonRows(c *benchreport.Comparison) [][]string {
	var rows [][]string
	for _, row := range c.Rows {
		cells := []string{row.Name, row.Device, row.Unit}
		for _, v := range row.Values {
			switch {
			case v.Status == "":
				cells = append(cells, NotApplied)
			case v.Value == nil:
				cells = append(cells, v.Status)
			case v.Efficiency != nil:
				cells = append(cells, fmt.Sprintf("%s (%.0f%%)", Figure(*v.Value), 100**v.Efficiency))
			default:
				cells = append(cells, Figure(*v.Value))
			}
		}
		rows = append(rows, cells)
	}
	return rows
}

// ComparisonNote explains the cells of ComparisonRows.
const ComparisonNote = "In brackets: efficiency, the measured value over the GPU's datasheet figure. - = not in that report."
