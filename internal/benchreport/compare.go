package benchreport

import "github.com/gpuscout/gpuscout/internal/catalog"

// Comparison lines reports up side by side: `bench compare -o json` and the
// server's GET /api/v1/reports/compare.
type Comparison struct {
	Reports []ComparedReport `json:"reports"`
	Rows    []ComparedRow    `json:"rows"`
}

// ComparedReport names one compared report and its machine.
type ComparedReport struct {
	File      string     `json:"file"` // the file name, or the report's id on the server
	CreatedAt string     `json:"created_at"`
	Host      Host       `json:"host"`
	Cloud     *Cloud     `json:"cloud"`
	GPUs      []GPUEntry `json:"gpus"`
}

// ComparedRow is one measurement on one device across the reports.
type ComparedRow struct {
	Name   string          `json:"name"`
	Device string          `json:"device"`
	Unit   string          `json:"unit"`
	Values []ComparedValue `json:"values"` // one per report, in order
}

// ComparedValue is one report's figure in a row. Efficiency is computed
// from the value and the catalog's datasheet, never taken from the report
// (an edited value beside its old efficiency read "1e+308 (78%)").
type ComparedValue struct {
	Value      *float64 `json:"value"`
	Efficiency *float64 `json:"efficiency"`
	Status     string   `json:"status"` // "" when the report has no such measurement
	// Settings are the measurement's (Measurement.Settings): two values
	// whose settings differ (NCCL_ALGO=NVLS and Ring, TF32 turned off)
	// measure different things.
	Settings map[string]string `json:"settings,omitempty"`
}

// Compare lines the reports' measurements up by name and device, in the
// order they first appear; names[i] labels docs[i]. Where a report gives
// an efficiency, it is computed again: the value over the datasheet figure
// of the device's GPU in c (Efficiency), null where the catalog has none;
// the number stored is never shown (an edited value kept its old one).
// Where a report gives none (no datasheet figure when it was measured),
// none is shown.
func Compare(names []string, docs []*Document, c *catalog.Catalog) *Comparison {
	cmp := &Comparison{Reports: []ComparedReport{}, Rows: []ComparedRow{}}
	index := map[[2]string]int{}
	for i, d := range docs {
		cmp.Reports = append(cmp.Reports, ComparedReport{File: names[i], CreatedAt: d.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), Host: d.Host, Cloud: d.Cloud, GPUs: d.GPUs})
		for _, m := range d.Measurements {
			key := [2]string{m.Name, m.Device}
			row, ok := index[key]
			if !ok {
				row = len(cmp.Rows)
				index[key] = row
				cmp.Rows = append(cmp.Rows, ComparedRow{Name: m.Name, Device: m.Device, Unit: m.Unit, Values: make([]ComparedValue, len(docs))})
			}
			v := ComparedValue{Value: m.Value, Status: m.Status, Settings: m.Settings}
			if m.Efficiency != nil {
				v.Efficiency = Efficiency(d.SpecOf(c, m.Device), m)
			}
			cmp.Rows[row].Values[i] = v
		}
	}
	return cmp
}

// CompareRows is the number of rows Compare makes of docs (the distinct
// measurement and device pairs), so that a caller can bound a comparison
// before making it.
func CompareRows(docs []*Document) int {
	seen := map[[2]string]bool{}
	for _, d := range docs {
		for _, m := range d.Measurements {
			seen[[2]string{m.Name, m.Device}] = true
		}
	}
	return len(seen)
}
