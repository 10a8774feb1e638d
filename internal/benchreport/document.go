package benchreport

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/gpuscout/gpuscout/internal/jsonfields"
)

// SchemaVersion is the version of the Document schema this package writes
// and reads. A change that removes or renames a field, or changes a unit,
// increments it; adding a field does not.
const SchemaVersion = 1

// Document is the report `gpuscout bench` writes (the file of --out and
// `-o json`), schema version 1. docs/bench-report.md describes it for users:
//
//	{"schema_version": 1,
//	 "created_at": "2026-11-30T21:04:05Z",
//	 "host": {"hostname": "node-1", "cpu_model": "AMD EPYC 9454", "cores": 16, "memory_gib": 125.7},
//	 "cloud": null,                      // or {"provider", "instance_type", "region", "zone", "matched_offering"}
//	 "gpus": [{"index": 0, "name": "NVIDIA H200", "canonical_gpu": "H200-SXM-141GB", "memory_gib": 140.4,
//	           "driver": "580.159.04", "uuid": "GPU-…"}],
//	 "measurements": [{"name": "gemm_bf16", "device": "gpu0", "value": 769.1, "unit": "TFLOP/s",
//	                   "efficiency": 0.778, "samples": 10, "p50_us": 1429.6, "p99_us": 1441.2, "cv": 0.004,
//	                   "status": "ok"}],
//	 "workloads": []}                    // optional
//
// A measurement's device is "gpuN" (gpus[].index N), "gpuA>gpuB" (a copy
// from GPU A to GPU B: p2p, p2p_latency), "cpu" (the host, with --device cpu)
// or "node" (all GPUs together: NCCL). Its value is in decimal
// units (TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s) and null unless status is
// "ok"; efficiency is value ÷ the datasheet figure of the catalog's spec, null
// when the spec has none.
type Document struct {
	SchemaVersion int           `json:"schema_version"`
	CreatedAt     time.Time     `json:"created_at"`
	Host          Host          `json:"host"`
	Cloud         *Cloud        `json:"cloud"`
	GPUs          []GPUEntry    `json:"gpus"`
	Measurements  []Measurement `json:"measurements"`
	Workloads     []Workload    `json:"workloads,omitempty"`
}

// Host is the machine the report was measured on; zero fields are unknown.
type Host struct {
	Hostname  string  `json:"hostname"`
	CPUModel  string  `json:"cpu_model"`
	Cores     int     `json:"cores"`      // logical CPUs
	MemoryGiB float64 `json:"memory_gib"` // MemTotal, GiB
}

// Cloud is the cloud identity of the host, from its metadata service, and the
// catalog offering it matches ("aws/p5e.48xlarge", say); empty when unknown.
type Cloud struct {
	Provider        string `json:"provider"`
	InstanceType    string `json:"instance_type"`
	Region          string `json:"region"`
	Zone            string `json:"zone"`
	MatchedOffering string `json:"matched_offering"`
}

// GPUEntry is one measured GPU as its driver describes it. CanonicalGPU is
// the catalog's name for it, null when the catalog does not know the GPU.
type GPUEntry struct {
	Index          int     `json:"index"`
	Name           string  `json:"name"`
	CanonicalGPU   *string `json:"canonical_gpu"`
	MemoryGiB      float64 `json:"memory_gib"`
	Driver         string  `json:"driver"`
	UUID           string  `json:"uuid"`
	CUDA           string  `json:"cuda,omitempty"`               // CUDA driver API version
	ComputeCap     string  `json:"compute_capability,omitempty"` // "9.0"
	Multiprocs     int     `json:"multiprocessors,omitempty"`
	Virtualization string  `json:"virtualization,omitempty"` // NVML's mode: NONE, PASSTHROUGH, VGPU, ...
	MIG            string  `json:"mig,omitempty"`
	ECC            string  `json:"ecc,omitempty"`
	PowerLimitW    float64 `json:"power_limit_w,omitempty"`
	// The PCIe link it runs at ("Gen5 x16"), its NUMA node (absent when
	// unknown) and its boost SM clock.
	PCIe          string `json:"pcie,omitempty"`
	NUMANode      *int   `json:"numa_node,omitempty"`
	MaxSMClockMHz int    `json:"max_sm_clock_mhz,omitempty"`
}

// The largest host a report may describe: logical CPUs and memory (GiB, of
// the host or of one GPU).
const (
	MaxCores     = 65536
	MaxMemoryGiB = 1 << 20
)

// Measurement statuses.
const (
	StatusOK          = "ok"           // measured; value is set
	StatusFailed      = "failed"       // the step failed or its result was wrong; detail says why
	StatusUnsupported = "unsupported"  // not applicable to this device (no FP8, one GPU for P2P)
	StatusNotMeasured = "not_measured" // applicable, but this gpuscout cannot measure it yet
)

var statuses = []string{StatusOK, StatusFailed, StatusUnsupported, StatusNotMeasured}

// Measurement is one measured figure on one device. P50US and P99US are the
// median and 99th percentile of one sample's time in microseconds, CV the
// coefficient of variation (standard deviation ÷ mean) of the sample times;
// all three are absent where there are no timed samples.
type Measurement struct {
	Name         string   `json:"name"`
	Device       string   `json:"device"`
	Value        *float64 `json:"value"`
	Unit         string   `json:"unit"`
	Efficiency   *float64 `json:"efficiency"`
	Samples      int      `json:"samples"`
	P50US        *float64 `json:"p50_us,omitempty"`
	P99US        *float64 `json:"p99_us,omitempty"`
	CV           *float64 `json:"cv,omitempty"`
	Status       string   `json:"status"`
	Detail       string   `json:"detail,omitempty"`
	ClockReasons []string `json:"clock_reasons,omitempty"` // NVML clock-event reasons seen during it
	// Link is the path a peer-to-peer measurement (device "gpuA>gpuB") took,
	// as NVML names it: "NVLink", a PCIe topology word (PIX, PXB, PHB, NODE,
	// SYS) or "unknown".
	Link string `json:"link,omitempty"`
	// Sweep is the all-reduce's figure at every message size it measured.
	Sweep []SweepPoint `json:"sweep,omitempty"`
	// Settings are the environment variables, set when it was measured,
	// that change what the figure means: NVIDIA_TF32_OVERRIDE for GEMMs
	// (0 turns TF32 off in cuBLAS), NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE
	// and the like for the all-reduce (an NVLS figure is not comparable
	// with a ring one). The NCCL figures add what NCCL chose at the figure's
	// size, as its debug log says: NCCL_ALGO_CHOSEN and NCCL_PROTO_CHOSEN
	// (SettingNCCLAlgoChosen), which are no environment variables. Absent
	// when none was set and nothing was chosen: the library chose.
	Settings map[string]string `json:"settings,omitempty"`
}

// The settings that say what NCCL chose at a figure's size (not
// environment variables): an algorithm of NCCLAlgorithms and a protocol of
// NCCLProtocols, or ChoiceUnknown each.
const (
	SettingNCCLAlgoChosen  = "NCCL_ALGO_CHOSEN"
	SettingNCCLProtoChosen = "NCCL_PROTO_CHOSEN"
)

// ChoiceUnknown is an algorithm or protocol NCCL's log did not say (or said
// in a way gpuscout does not read).
const ChoiceUnknown = "unknown"

// NCCLAlgorithms and NCCLProtocols are the names NCCL gives its algorithms
// and protocols (src/collectives.cc ncclAlgoToString and ncclProtoToString,
// NCCL 2.24 to 2.30; the same numbers' names before).
var (
	NCCLAlgorithms = []string{"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"}
	NCCLProtocols  = []string{"LL", "LL128", "SIMPLE"}
)

// SweepPoint is a collective at one message size: the median time of one
// operation, algbw = bytes ÷ time and busbw (nccl-tests' definitions), in
// decimal GB/s. Algorithm and Protocol are what NCCL's debug log says it
// chose at that size (NCCLAlgorithms, NCCLProtocols), ChoiceUnknown where it
// did not say; both absent in a report from before gpuscout recorded them.
type SweepPoint struct {
	Bytes     int64   `json:"bytes"`
	TimeUS    float64 `json:"time_us"`
	AlgBWGBs  float64 `json:"algbw_gbs"`
	BusBWGBs  float64 `json:"busbw_gbs"`
	Algorithm string  `json:"algorithm,omitempty"`
	Protocol  string  `json:"protocol,omitempty"`
}

// validChoice checks an algorithm and protocol NCCL chose, as a report
// gives them: both absent, or each a name of its list or ChoiceUnknown.
func validChoice(algo, proto string, algoSet, protoSet bool) error {
	if !algoSet && !protoSet {
		return nil
	}
	if !algoSet || !protoSet {
		return fmt.Errorf("want the algorithm and the protocol together")
	}
	if algo != ChoiceUnknown && !slices.Contains(NCCLAlgorithms, algo) {
		return fmt.Errorf("algorithm %q; want one of %v or %q", algo, NCCLAlgorithms, ChoiceUnknown)
	}
	if proto != ChoiceUnknown && !slices.Contains(NCCLProtocols, proto) {
		return fmt.Errorf("protocol %q; want one of %v or %q", proto, NCCLProtocols, ChoiceUnknown)
	}
	return nil
}

// OK reports whether the measurement has a value.
func (m *Measurement) OK() bool { return m.Status == StatusOK && m.Value != nil }

// Workload is one run of a real training or inference step. Scenario, when
// set, names the advise scenario the figure stands for, so that advise uses it
// as that scenario's measured throughput.
type Workload struct {
	Name     string  `json:"name"`
	Device   string  `json:"device"`
	Batch    int     `json:"batch"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"` // "samples/s"
	Scenario string  `json:"scenario,omitempty"`
	// What the run was: the median step time, mixed precision, the PyTorch
	// that ran it, tiny test shapes (never a scenario's figure), the largest
	// batch that fitted (--find-max-batch; capped when nothing ran out of
	// memory up to the cap) and the peak memory PyTorch allocated.
	StepMS          float64 `json:"step_ms_median,omitempty"`
	AMP             bool    `json:"amp,omitempty"`
	Torch           string  `json:"torch,omitempty"`
	Tiny            bool    `json:"tiny,omitempty"`
	MaxBatch        int     `json:"max_batch,omitempty"`
	MaxBatchCapped  bool    `json:"max_batch_capped,omitempty"`
	PeakMemoryBytes int64   `json:"peak_memory_bytes,omitempty"`
	// The device's telemetry sampled while it ran (NVML on a GPU): mean and
	// standard deviation of utilisation (0..1), the most memory used.
	UtilMean        *float64 `json:"util_mean,omitempty"`
	UtilStdDev      *float64 `json:"util_stddev,omitempty"`
	MemUsedMaxBytes int64    `json:"mem_used_max_bytes,omitempty"`
}

// Find returns the measurement with this name on this device, or nil.
func (d *Document) Find(name, device string) *Measurement {
	for i := range d.Measurements {
		if m := &d.Measurements[i]; m.Name == name && m.Device == device {
			return m
		}
	}
	return nil
}

// Validate checks the document against the schema; it changes nothing.
func (d *Document) Validate() error {
	if d.SchemaVersion != SchemaVersion {
		return fmt.Errorf("schema_version %d: this gpuscout reads version %d", d.SchemaVersion, SchemaVersion)
	}
	// Counts and sizes a machine reports: 0 is unknown; a negative one, or
	// one no machine has, is refused (host.cores -4 showed as "-4 logical CPUs").
	if d.Host.Cores < 0 || d.Host.Cores > MaxCores {
		return fmt.Errorf("host.cores = %d; want 0 (unknown) to %d logical CPUs", d.Host.Cores, MaxCores)
	}
	if !(d.Host.MemoryGiB >= 0 && d.Host.MemoryGiB <= MaxMemoryGiB) {
		return fmt.Errorf("host.memory_gib = %v; want 0 (unknown) to %d", d.Host.MemoryGiB, MaxMemoryGiB)
	}
	seen := map[int]bool{}
	for i, g := range d.GPUs {
		if g.Name == "" {
			return fmt.Errorf("gpus[%d].name is missing", i)
		}
		for _, f := range []struct {
			name string
			v    float64
			max  float64
		}{{"memory_gib", g.MemoryGiB, MaxMemoryGiB}, {"multiprocessors", float64(g.Multiprocs), 100000}, {"power_limit_w", g.PowerLimitW, 100000}, {"max_sm_clock_mhz", float64(g.MaxSMClockMHz), 100000}} {
			if !(f.v >= 0 && f.v <= f.max) {
				return fmt.Errorf("gpus[%d].%s = %v; want 0 (unknown) to %g", i, f.name, f.v, f.max)
			}
		}
		if g.Index < 0 || seen[g.Index] {
			return fmt.Errorf("gpus[%d].index = %d; want a distinct index from 0", i, g.Index)
		}
		seen[g.Index] = true
	}
	for i, m := range d.Measurements {
		at := fmt.Sprintf("measurements[%d] (%s)", i, m.Name)
		switch {
		case m.Name == "":
			return fmt.Errorf("measurements[%d].name is missing", i)
		case m.Device == "":
			return fmt.Errorf("%s: device is missing (gpuN, cpu or node)", at)
		case !slices.Contains(statuses, m.Status):
			return fmt.Errorf("%s: status %q; want one of %v", at, m.Status, statuses)
		case m.Status == StatusOK && m.Value == nil:
			return fmt.Errorf("%s: status ok but value is null", at)
		case m.Samples < 0:
			return fmt.Errorf("%s: samples = %d; want 0 or more", at, m.Samples)
		}
		for name, v := range map[string]*float64{"value": m.Value, "efficiency": m.Efficiency, "p50_us": m.P50US, "p99_us": m.P99US, "cv": m.CV} {
			if v != nil && (*v < 0 || math.IsInf(*v, 0) || math.IsNaN(*v)) {
				return fmt.Errorf("%s: %s = %v; want a finite number ≥ 0", at, name, *v)
			}
		}
		for j, p := range m.Sweep {
			for name, v := range map[string]float64{"time_us": p.TimeUS, "algbw_gbs": p.AlgBWGBs, "busbw_gbs": p.BusBWGBs} {
				if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
					return fmt.Errorf("%s: sweep[%d].%s = %v; want a finite number ≥ 0", at, j, name, v)
				}
			}
			if p.Bytes <= 0 {
				return fmt.Errorf("%s: sweep[%d].bytes = %d; want 1 or more", at, j, p.Bytes)
			}
			if err := validChoice(p.Algorithm, p.Protocol, p.Algorithm != "", p.Protocol != ""); err != nil {
				return fmt.Errorf("%s: sweep[%d]: %w", at, j, err)
			}
		}
		for k, v := range m.Settings {
			if !validSetting(k) || len(v) > maxSettingLen {
				return fmt.Errorf("%s: settings[%q]: want an environment variable's name (A-Z, 0-9, _) and a value of at most %d bytes", at, k, maxSettingLen)
			}
		}
		algo, algoSet := m.Settings[SettingNCCLAlgoChosen]
		proto, protoSet := m.Settings[SettingNCCLProtoChosen]
		if err := validChoice(algo, proto, algoSet, protoSet); err != nil {
			return fmt.Errorf("%s: settings %s and %s: %w", at, SettingNCCLAlgoChosen, SettingNCCLProtoChosen, err)
		}
	}
	for i, w := range d.Workloads {
		if w.Name == "" || !(w.Value >= 0) || math.IsInf(w.Value, 0) {
			return fmt.Errorf("workloads[%d] (%s): want a name and a finite value ≥ 0, got %v", i, w.Name, w.Value)
		}
	}
	return nil
}

// maxSettingLen bounds a setting's value in a report.
const maxSettingLen = 256

// validSetting reports whether name is an environment variable's name as
// settings records them: upper-case letters, digits and _, not starting
// with a digit, at most 64 bytes.
func validSetting(name string) bool {
	if name == "" || len(name) > 64 || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, c := range name {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Encode writes the document as indented JSON.
func (d *Document) Encode(w io.Writer) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// DecodeDocument reads a schema-versioned report strictly (jsonfields: one
// JSON value, each key once, no field the schema does not have, numbers
// bounded) and validates it.
func DecodeDocument(r io.Reader) (*Document, error) {
	var d Document
	if err := jsonfields.Decode(r, &d, Limits); err != nil {
		return nil, fmt.Errorf("not a bench report: %w", err)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// F returns a pointer to v: Measurement's optional numbers are pointers.
func F(v float64) *float64 { return &v }
