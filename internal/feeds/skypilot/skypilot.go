// Package skypilot reads the per-cloud vms.csv files of the SkyPilot catalog
// (skypilot-org/skypilot-catalog). Columns are found by header name, since
// their order differs per cloud; GpuInfo is a Python-dict string.
package skypilot

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Record is one row of a vms.csv, faithful to the source. Prices are
// decimal values with Known == false where the cell is empty or zero (Vast
// writes 0.00 for "no spot").
type Record struct {
	Line             int
	InstanceType     string
	AcceleratorName  string
	AcceleratorCount float64
	VCPUs            float64
	MemoryGiB        float64
	GPU              GPUInfo
	Price            OptPrice
	SpotPrice        OptPrice
	Region           string
	Zone             string
	Arch             string
	LocalDiskGB      float64 // LocalDiskSize × LocalDiskCount, where the cloud gives them
}

// OptPrice is a price that may be missing.
type OptPrice struct {
	Known  bool
	Amount decimal.Decimal
}

// GPUInfo is the part of the GpuInfo column gpuscout uses.
type GPUInfo struct {
	Name         string
	Manufacturer string
	Count        float64
	MemoryMiB    float64 // as written; see PerGPUMemoryMiB
	TotalMiB     float64
}

// required columns; the rest are optional.
var required = []string{"InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "Region"}

// Parse reads a vms.csv. GPU-less rows are returned too (AcceleratorName empty).
func Parse(r io.Reader) ([]Record, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("skypilot: empty file, want a header line")
		}
		return nil, fmt.Errorf("skypilot: header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, name := range required {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("skypilot: header lacks column %q (have %s)", name, strings.Join(head, ","))
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []Record
	line := 1
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("skypilot: line %d: %w", line, err)
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("skypilot: line %d: %d fields, header has %d", line, len(rec), len(head))
		}
		r := Record{
			Line:            line,
			InstanceType:    get(rec, "InstanceType"),
			AcceleratorName: get(rec, "AcceleratorName"),
			Region:          get(rec, "Region"),
			Zone:            get(rec, "AvailabilityZone"),
			Arch:            get(rec, "Arch"),
		}
		fields := []struct {
			name string
			dst  *float64
		}{{"AcceleratorCount", &r.AcceleratorCount}, {"vCPUs", &r.VCPUs}, {"MemoryGiB", &r.MemoryGiB}}
		for _, f := range fields {
			if *f.dst, err = optNumber(get(rec, f.name)); err != nil {
				return nil, fmt.Errorf("skypilot: line %d: column %s: %w", line, f.name, err)
			}
		}
		if r.Price, err = optPrice(get(rec, "Price")); err != nil {
			return nil, fmt.Errorf("skypilot: line %d: column Price: %w", line, err)
		}
		if r.SpotPrice, err = optPrice(get(rec, "SpotPrice")); err != nil {
			return nil, fmt.Errorf("skypilot: line %d: column SpotPrice: %w", line, err)
		}
		size, err1 := optNumber(get(rec, "LocalDiskSize"))
		count, err2 := optNumber(get(rec, "LocalDiskCount"))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("skypilot: line %d: local disk columns: %v", line, errors.Join(err1, err2))
		}
		r.LocalDiskGB = size * count
		if gi := get(rec, "GpuInfo"); gi != "" {
			if r.GPU, err = parseGPUInfo(gi); err != nil {
				return nil, fmt.Errorf("skypilot: line %d: column GpuInfo: %w", line, err)
			}
		}
		out = append(out, r)
	}
}

func optNumber(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, fmt.Errorf("%q is not a non-negative number", s)
	}
	return f, nil
}

func optPrice(s string) (OptPrice, error) {
	if s == "" {
		return OptPrice{}, nil
	}
	d, err := money.ParseDecimal(s)
	if err != nil {
		return OptPrice{}, fmt.Errorf("%q is not a number", s)
	}
	if d.IsNegative() {
		return OptPrice{}, fmt.Errorf("%q is negative", s)
	}
	if d.IsZero() {
		return OptPrice{}, nil // Vast: 0.00 means no spot offer
	}
	return OptPrice{Known: true, Amount: d}, nil
}

func parseGPUInfo(s string) (GPUInfo, error) {
	v, err := parsePyLiteral(s)
	if err != nil {
		return GPUInfo{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return GPUInfo{}, errors.New("not a dict")
	}
	var gi GPUInfo
	gi.TotalMiB, _ = m["TotalGpuMemoryInMiB"].(float64)
	gpus, _ := m["Gpus"].([]any)
	if len(gpus) == 0 {
		return gi, nil
	}
	g, ok := gpus[0].(map[string]any)
	if !ok {
		return GPUInfo{}, errors.New("Gpus[0] is not a dict")
	}
	gi.Name, _ = g["Name"].(string)
	gi.Manufacturer, _ = g["Manufacturer"].(string)
	gi.Count, _ = g["Count"].(float64)
	if mi, ok := g["MemoryInfo"].(map[string]any); ok {
		gi.MemoryMiB, _ = mi["SizeInMiB"].(float64)
	}
	return gi, nil
}

// PerGPUMemoryMiB returns the memory of one GPU. SkyPilot's MemoryInfo.SizeInMiB
// is per GPU for most clouds, but the Vast fetcher writes the instance total
// there (2x-A100 rows carry 163840 or 81920): with sizeIsTotal it is divided
// by the count. Zero means unknown (Nebius and some Seeweb rows write 0).
func (r Record) PerGPUMemoryMiB(sizeIsTotal bool) float64 {
	if r.GPU.MemoryMiB <= 0 {
		return 0
	}
	if sizeIsTotal && r.AcceleratorCount > 0 {
		return r.GPU.MemoryMiB / r.AcceleratorCount
	}
	return r.GPU.MemoryMiB
}
