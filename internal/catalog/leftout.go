package catalog

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// LeftOutType is an instance type a price feed lists that the catalog build
// left out, with the regions it was priced in, the feed's source id and why
// (today: no curated spec gives its GPUs, vCPUs and memory).
type LeftOutType struct {
	Provider     string   `json:"provider"`
	InstanceType string   `json:"instance_type"`
	Regions      []string `json:"regions"`
	Source       string   `json:"source"`
	Reason       string   `json:"reason"`
}

// LeftOutColumns is the header of the generated left_out.csv.
var LeftOutColumns = []string{"provider", "instance_type", "regions", "source", "reason"}

// WriteLeftOutCSV writes left-out types in the snapshot format; regions are
// separated by " | " (region names may contain commas and semicolons).
func WriteLeftOutCSV(w io.Writer, ls []LeftOutType) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(LeftOutColumns); err != nil {
		return err
	}
	for _, l := range ls {
		if err := cw.Write([]string{l.Provider, l.InstanceType, strings.Join(l.Regions, " | "), l.Source, l.Reason}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadLeftOutCSV reads left_out.csv; an empty input is an empty list.
func ReadLeftOutCSV(r io.Reader) ([]LeftOutType, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("left_out.csv: %w", err)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	if strings.Join(recs[0], ",") != strings.Join(LeftOutColumns, ",") {
		return nil, fmt.Errorf("left_out.csv: header %q, want %q", strings.Join(recs[0], ","), strings.Join(LeftOutColumns, ","))
	}
	var out []LeftOutType
	for i, r := range recs[1:] {
		if len(r) != len(LeftOutColumns) || r[0] == "" || r[1] == "" || r[4] == "" {
			return nil, fmt.Errorf("left_out.csv: line %d: want provider, instance_type, regions, source and a reason", i+2)
		}
		l := LeftOutType{Provider: r[0], InstanceType: r[1], Source: r[3], Reason: r[4], Regions: []string{}}
		if r[2] != "" {
			l.Regions = strings.Split(r[2], " | ")
		}
		out = append(out, l)
	}
	return out, nil
}
