package main

// The comparison step of scripts/gpu-check.sh: it reads the sizes gpuscout
// measured at from its report (so that PyTorch measures the same GEMM n³
// and the same copy sizes), summarises the telemetry nvidia-smi sampled
// during each sustained run, and prints gpuscout's figures beside
// PyTorch's with their ratio. It runs anywhere; only the script's measuring
// steps need a GPU.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/benchreport"
)

// Sizes are what a gpuscout run measured at, for PyTorch to measure at too.
type Sizes struct {
	GemmN     int   // n of the n×n×n products (every type)
	CopyBytes int64 // one device-copy buffer
	HostBytes int64 // one host↔device transfer
}

var (
	gemmSize = regexp.MustCompile(`^(\d+)³`)
	copySize = regexp.MustCompile(`^(\d+) (MiB|GiB) buffers`)
	hostSize = regexp.MustCompile(`^(\d+) (MiB|GiB), pinned`)
)

func sizeOf(num, unit string) (int64, error) {
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 || v > 1<<20 {
		return 0, fmt.Errorf("size %s %s", num, unit)
	}
	if unit == "GiB" {
		return v << 30, nil
	}
	return v << 20, nil
}

// SizesFrom reads the sizes of device's measurements (gpu0) from a report:
// the n of its first measured GEMM, the buffer of hbm_copy, the transfer of
// h2d (or d2h). A size the report does not have is 0, and the error names
// what is missing; sizes of GEMMs that disagree are an error.
func SizesFrom(doc *benchreport.Document, device string) (Sizes, error) {
	var s Sizes
	var missing []string
	for _, m := range doc.Measurements {
		if m.Device != device || !m.OK() {
			continue
		}
		switch {
		case strings.HasPrefix(m.Name, "gemm_"):
			g := gemmSize.FindStringSubmatch(m.Detail)
			if g == nil {
				continue
			}
			n, err := strconv.Atoi(g[1])
			if err != nil || n <= 0 {
				return s, fmt.Errorf("%s: GEMM size %q", m.Name, g[1])
			}
			if s.GemmN != 0 && s.GemmN != n {
				return s, fmt.Errorf("%s is %d³ where an earlier GEMM is %d³", m.Name, n, s.GemmN)
			}
			s.GemmN = n
		case m.Name == "hbm_copy":
			if c := copySize.FindStringSubmatch(m.Detail); c != nil {
				v, err := sizeOf(c[1], c[2])
				if err != nil {
					return s, fmt.Errorf("hbm_copy: %v", err)
				}
				s.CopyBytes = v
			}
		case m.Name == "h2d" || m.Name == "d2h":
			if c := hostSize.FindStringSubmatch(m.Detail); c != nil && s.HostBytes == 0 {
				v, err := sizeOf(c[1], c[2])
				if err != nil {
					return s, fmt.Errorf("%s: %v", m.Name, err)
				}
				s.HostBytes = v
			}
		}
	}
	if s.GemmN == 0 {
		missing = append(missing, "a measured GEMM")
	}
	if s.CopyBytes == 0 {
		missing = append(missing, "hbm_copy")
	}
	if s.HostBytes == 0 {
		missing = append(missing, "h2d or d2h")
	}
	if len(missing) > 0 {
		return s, fmt.Errorf("the report has no size for %s on %s", strings.Join(missing, ", "), device)
	}
	return s, nil
}

// Telemetry is a summary of nvidia-smi's samples during a sustained run:
// the means of the second half of the samples (the GPU at its limits, not
// warming up) and the hottest sample. A field no sample has is NaN.
type Telemetry struct {
	Samples      int
	SMClockMHz   float64
	PowerW       float64
	TempC        float64
	TempMaxC     float64
	UtilPct      float64
	FirstSkipped int // samples of the first half, left out
}

// SummarizeSMI reads the output of
//
//	nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,utilization.gpu --format=csv,noheader,nounits -lms 250
//
// (a timestamp first is allowed and ignored when a line has five fields);
// "[N/A]" and unreadable fields are left out.
func SummarizeSMI(r io.Reader) (Telemetry, error) {
	var rows [][4]float64
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) == 5 {
			f = f[1:]
		}
		if len(f) != 4 {
			continue
		}
		var row [4]float64
		for i, v := range f {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || math.IsInf(x, 0) {
				x = math.NaN()
			}
			row[i] = x
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return Telemetry{}, err
	}
	if len(rows) == 0 {
		return Telemetry{}, errors.New("no nvidia-smi samples")
	}
	skip := len(rows) / 2
	t := Telemetry{Samples: len(rows) - skip, FirstSkipped: skip, TempMaxC: math.NaN()}
	mean := func(col int) float64 {
		var s float64
		n := 0
		for _, r := range rows[skip:] {
			if !math.IsNaN(r[col]) {
				s += r[col]
				n++
			}
		}
		if n == 0 {
			return math.NaN()
		}
		return s / float64(n)
	}
	t.SMClockMHz, t.PowerW, t.TempC, t.UtilPct = mean(0), mean(1), mean(2), mean(3)
	for _, r := range rows {
		if !math.IsNaN(r[2]) && (math.IsNaN(t.TempMaxC) || r[2] > t.TempMaxC) {
			t.TempMaxC = r[2]
		}
	}
	return t, nil
}

// Torch is what internal/bench/gpucheck/torch_check.py prints.
type Torch struct {
	Torch        string         `json:"torch"`
	Device       string         `json:"device"`
	Sizes        map[string]int `json:"sizes"`
	Measurements []struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
		Unit  string  `json:"unit"`
	} `json:"measurements"`
}

// ReadTorch decodes the reference's output.
func ReadTorch(r io.Reader) (*Torch, error) {
	var t Torch
	if err := json.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("the PyTorch reference's output: %w", err)
	}
	return &t, nil
}

func (t *Torch) value(name string) *float64 {
	if t == nil {
		return nil
	}
	for _, m := range t.Measurements {
		if m.Name == name && m.Value > 0 && !math.IsNaN(m.Value) {
			v := m.Value
			return &v
		}
	}
	return nil
}

// Row is one line of the comparison.
type Row struct {
	Name, Unit    string
	GPUScout, Ref *float64 // nil: not measured
}

// Ratio is gpuscout ÷ PyTorch; nil unless both are known.
func (r Row) Ratio() *float64 {
	if r.GPUScout == nil || r.Ref == nil || *r.Ref == 0 {
		return nil
	}
	v := *r.GPUScout / *r.Ref
	return &v
}

// Input is everything the table compares: gpuscout's burst report and
// sustained report, PyTorch's (burst and sustained), and nvidia-smi's
// telemetry during each sustained run.
type Input struct {
	Bench, Sustain        *benchreport.Document
	Torch, TorchSustain   *Torch
	SMIGPUScout, SMITorch *Telemetry
	Device                string // "gpu0"
	SustainDType          string // "bf16"
}

// Rows lines the figures up: the GEMM types, the copies, then burst and
// sustained GEMM and the telemetry of the two sustained runs (both sampled
// by nvidia-smi the same way; gpuscout's own NVML means beside its name).
func Rows(in Input) []Row {
	ours := func(doc *benchreport.Document, name string) *float64 {
		if doc == nil {
			return nil
		}
		if m := doc.Find(name, in.Device); m != nil && m.OK() {
			v := *m.Value
			return &v
		}
		return nil
	}
	var rows []Row
	for _, name := range []string{"gemm_fp32", "gemm_tf32", "gemm_bf16", "gemm_fp16"} {
		rows = append(rows, Row{name, "TFLOP/s", ours(in.Bench, name), in.Torch.value(name)})
	}
	for _, name := range []string{"hbm_copy", "h2d", "d2h"} {
		rows = append(rows, Row{name, "GB/s", ours(in.Bench, name), in.Torch.value(name)})
	}
	dt := in.SustainDType
	for _, kind := range []string{"burst", "sustained"} {
		name := "gemm_" + dt + "_" + kind
		rows = append(rows, Row{name, "TFLOP/s", ours(in.Sustain, name), in.TorchSustain.value(name)})
	}
	smi := func(t *Telemetry, f func(Telemetry) float64) *float64 {
		if t == nil || math.IsNaN(f(*t)) {
			return nil
		}
		v := f(*t)
		return &v
	}
	for _, tc := range []struct {
		name, unit string
		f          func(Telemetry) float64
	}{
		{"sustained SM clock (nvidia-smi)", "MHz", func(t Telemetry) float64 { return t.SMClockMHz }},
		{"sustained power (nvidia-smi)", "W", func(t Telemetry) float64 { return t.PowerW }},
		{"sustained temperature (nvidia-smi)", "°C", func(t Telemetry) float64 { return t.TempC }},
		{"hottest (nvidia-smi)", "°C", func(t Telemetry) float64 { return t.TempMaxC }},
		{"sustained utilisation (nvidia-smi)", "%", func(t Telemetry) float64 { return t.UtilPct }},
	} {
		rows = append(rows, Row{tc.name, tc.unit, smi(in.SMIGPUScout, tc.f), smi(in.SMITorch, tc.f)})
	}
	for _, name := range []string{"sustain_sm_clock_mhz", "sustain_power_w", "sustain_temp_c"} {
		if v := ours(in.Sustain, name); v != nil {
			m := in.Sustain.Find(name, in.Device)
			rows = append(rows, Row{name + " (gpuscout's NVML)", m.Unit, v, nil})
		}
	}
	return rows
}

func figure(p *float64) string {
	if p == nil {
		return "-"
	}
	v := *p
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Write prints the rows as a table, "measurement | unit | gpuscout |
// PyTorch | ratio", and the targets the issue sets where both were
// measured: GEMM bf16 and fp16, and the device copy, at 97% of PyTorch's.
func Write(w io.Writer, rows []Row) error {
	cells := [][]string{{"measurement", "unit", "gpuscout", "PyTorch", "ratio"}}
	var notes []string
	for _, r := range rows {
		ratio := "-"
		if q := r.Ratio(); q != nil {
			ratio = strconv.FormatFloat(*q, 'f', 3, 64)
			if slices.Contains([]string{"gemm_bf16", "gemm_fp16", "hbm_copy"}, r.Name) {
				verdict := "meets"
				if *q < 0.97 {
					verdict = "MISSES"
				}
				notes = append(notes, fmt.Sprintf("%s: gpuscout at %.1f%% of PyTorch %s the 97%% target", r.Name, 100**q, verdict))
			}
		}
		cells = append(cells, []string{r.Name, r.Unit, figure(r.GPUScout), figure(r.Ref), ratio})
	}
	width := make([]int, 5)
	for _, row := range cells {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, row := range cells {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString(" | ")
			}
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i >= 2 {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	for _, n := range notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}
