package benchreport

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

// ComparedValue is one report's figure in a row.
type ComparedValue struct {
	Value      *float64 `json:"value"`
	Efficiency *float64 `json:"efficiency"`
	Status     string   `json:"status"` // "" when the report has no such measurement
}

// Compare lines the reports' measurements up by name and device, in the
// order they first appear; names[i] labels docs[i].
func Compare(names []string, docs []*Document) *Comparison {
	c := &Comparison{Reports: []ComparedReport{}, Rows: []ComparedRow{}}
	index := map[[2]string]int{}
	for i, d := range docs {
		c.Reports = append(c.Reports, ComparedReport{File: names[i], CreatedAt: d.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), Host: d.Host, Cloud: d.Cloud, GPUs: d.GPUs})
		for _, m := range d.Measurements {
			key := [2]string{m.Name, m.Device}
			row, ok := index[key]
			if !ok {
				row = len(c.Rows)
				index[key] = row
				c.Rows = append(c.Rows, ComparedRow{Name: m.Name, Device: m.Device, Unit: m.Unit, Values: make([]ComparedValue, len(docs))})
			}
			c.Rows[row].Values[i] = ComparedValue{Value: m.Value, Efficiency: m.Efficiency, Status: m.Status}
		}
	}
	return c
}
