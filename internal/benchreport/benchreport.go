// Package benchreport is the schema of a benchmark report: the versioned
// Document `gpuscout bench` writes (docs/bench-report.md), and Report, the
// figures advise (and later the server) reads, from a Document or from the
// older flat format. It depends only on the catalog, to resolve the GPU a
// report names, so that bench can own the schema without importing advise.
package benchreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/jsonfields"
)

// Report is the part of a benchmark report advise reads (any JSON with these
// fields works):
//
//	{"gpu": "NVIDIA A100-SXM4-80GB",                       // as NVML names it
//	 "gemm_tflops": {"bf16": 271.2, "fp16": 270, "tf32": 140, "fp32": 19},  // measured dense GEMM
//	 "memory_bandwidth_gbs": 1690,                          // measured HBM copy bandwidth
//	 "scenario_throughput": {"cv-training": 2470},          // work units/s per GPU, per scenario
//	 "nccl_busbw_gbs": 231}                                 // measured all-reduce bus bandwidth in one node
//
// A measured scenario throughput on both a GPU and the reference replaces the
// model outright; otherwise measured GEMM and bandwidth replace datasheet figures.
// A measured NCCL all-reduce bus bandwidth (nccl-tests' all_reduce_perf
// "busbw" column at a large message size, GB/s, over the GPUs of one node)
// replaces the datasheet GPU-link figure in advise's communication model.
type Report struct {
	Path               string             `json:"-"` // where it was read from
	GPU                string             `json:"gpu"`
	GEMMTFLOPS         map[string]float64 `json:"gemm_tflops,omitempty"`
	MemoryBandwidthGBs float64            `json:"memory_bandwidth_gbs,omitempty"`
	ScenarioThroughput map[string]float64 `json:"scenario_throughput,omitempty"`
	NCCLBusBWGBs       float64            `json:"nccl_busbw_gbs,omitempty"`
	// Warnings are figures above their datasheet's (Read says which).
	Warnings []string `json:"-"`
}

// MaxTFLOPS bounds a measured GEMM figure (TFLOP/s): far above any GPU's
// dense peak, so only a unit mistake exceeds it.
const MaxTFLOPS = 1e5

// MaxBandwidthGBs bounds a measured memory bandwidth (GB/s).
const MaxBandwidthGBs = 1e6

// Limits bound a report as it is read (jsonfields): 16 MiB, numbers up to
// 1e15 in magnitude.
var Limits = jsonfields.Limits{MaxBytes: 16 << 20, MaxNumber: 1e15}

// Decode reads a report from JSON and validates it: either the flat format
// above or a schema-versioned Document (what `gpuscout bench` writes), from
// which Derive takes the figures advise reads. Either is read strictly
// (jsonfields): one JSON value, each key once, no field the format does not
// have, numbers bounded.
func Decode(r io.Reader) (*Report, error) {
	b, err := jsonfields.Read(r, Limits)
	if err != nil {
		return nil, notReport(err)
	}
	var probe struct {
		SchemaVersion json.RawMessage `json:"schema_version"`
	}
	if json.Unmarshal(b, &probe) == nil && probe.SchemaVersion != nil {
		d, err := DecodeDocument(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return Derive(d)
	}
	var rep Report
	if err := jsonfields.Unmarshal(b, &rep, Limits); err != nil {
		return nil, notReport(err)
	}
	if err := rep.Validate(); err != nil {
		return nil, err
	}
	return &rep, nil
}

// notReport says what is wrong with a document that is not a report.
func notReport(err error) error {
	return fmt.Errorf("not a benchmark report (a JSON object with gpu, gemm_tflops, memory_bandwidth_gbs, scenario_throughput, nccl_busbw_gbs, or a gpuscout bench report with schema_version): %w", err)
}

// Validate checks every field against its allowed range; it changes nothing.
func (r *Report) Validate() error {
	if r.GPU == "" {
		return errors.New("field gpu is missing (the GPU's name, as NVML reports it)")
	}
	for k, v := range r.GEMMTFLOPS {
		if !(v > 0) || v > MaxTFLOPS {
			return fmt.Errorf("gemm_tflops.%s = %v; want a number in (0, %g]", k, v, float64(MaxTFLOPS))
		}
	}
	for k, v := range r.ScenarioThroughput {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("scenario_throughput.%s = %v; want a positive finite number", k, v)
		}
	}
	if r.MemoryBandwidthGBs < 0 || r.MemoryBandwidthGBs > MaxBandwidthGBs || math.IsNaN(r.MemoryBandwidthGBs) {
		return fmt.Errorf("memory_bandwidth_gbs = %v; want a number in (0, %g] or no field", r.MemoryBandwidthGBs, float64(MaxBandwidthGBs))
	}
	if r.NCCLBusBWGBs < 0 || r.NCCLBusBWGBs > MaxBandwidthGBs || math.IsNaN(r.NCCLBusBWGBs) {
		return fmt.Errorf("nccl_busbw_gbs = %v; want a number in (0, %g] or no field", r.NCCLBusBWGBs, float64(MaxBandwidthGBs))
	}
	return nil
}

// Encode writes the report as indented JSON.
func (r *Report) Encode(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Load reads the report at path and resolves its GPU to exactly one catalog
// GPU. Errors name the file; a missing file wraps fs.ErrNotExist.
func Load(path string, c *catalog.Catalog) (*Report, *catalog.GPU, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	r, g, err := Read(b, path, c)
	if err != nil {
		return nil, nil, err
	}
	r.Path = path
	return r, g, nil
}

// Read decodes a report and resolves its GPU to exactly one catalog GPU,
// as Load does for a file; errors begin with name (a path, a stored
// report's id).
func Read(b []byte, name string, c *catalog.Catalog) (*Report, *catalog.GPU, error) {
	r, err := Decode(bytes.NewReader(b))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	gs, err := c.LookupGPU(r.GPU)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(gs) != 1 {
		return nil, nil, fmt.Errorf("%s: gpu %q names %d GPUs; give the full name NVML reports", name, r.GPU, len(gs))
	}
	if r.Warnings, err = r.CheckDatasheet(gs[0]); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	return r, gs[0], nil
}

// CheckScenarios refuses a scenario throughput for a scenario advise does
// not have (known lists them): a misspelt name was ignored, and the
// measured figure with it.
func (r *Report) CheckScenarios(known []string) error {
	names := make([]string, 0, len(r.ScenarioThroughput))
	for sc := range r.ScenarioThroughput {
		names = append(names, sc)
	}
	slices.Sort(names)
	for _, sc := range names {
		if !slices.Contains(known, sc) {
			return fmt.Errorf("scenario_throughput.%s (or a workload's scenario): no such scenario; want one of %s", sc, strings.Join(known, ", "))
		}
	}
	return nil
}
