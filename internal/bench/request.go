// Package bench measures accelerators through gpu.Device: GEMM throughput
// per element type with a correctness check against float64, device memory
// copy bandwidth, pinned host↔device bandwidth, launch jitter, burst
// against sustained GEMM throughput with the device's telemetry sampled
// meanwhile, and over several GPUs the peer-to-peer bandwidth and latency
// matrix (gpu.Peer) and the NCCL all-reduce bus bandwidth (gpu.Comm). Every figure is a median of repeated samples after a warm-up,
// in decimal units (TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s), with its
// efficiency against the catalog's datasheet figure where there is one. The
// result is a benchreport.Document.
package bench

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Measurement groups, as --only names them.
const (
	GroupGEMM    = "gemm"    // gemm_<dtype>
	GroupMemory  = "hbm"     // hbm_copy (cpu_mem_copy on the CPU)
	GroupH2D     = "h2d"     // pinned host → device
	GroupD2H     = "d2h"     // device → pinned host
	GroupJitter  = "jitter"  // per-operation time spread of tiny fills and small copies
	GroupSustain = "sustain" // burst vs sustained GEMM, telemetry sampled (every GPU at once with SustainAll)
	GroupP2P     = "p2p"     // GPU → GPU copies of every ordered pair: p2p, p2p_latency
	GroupNCCL    = "nccl"    // NCCL all-reduce sweep: nccl_allreduce_busbw, nccl_allreduce_latency
)

// Groups lists every group in the order bench runs them.
var Groups = []string{GroupGEMM, GroupMemory, GroupH2D, GroupD2H, GroupJitter, GroupSustain, GroupP2P, GroupNCCL}

// Devices bench can measure.
const (
	DeviceGPU = "gpu"
	DeviceCPU = "cpu"
)

// MaxSustain bounds --sustain.
const MaxSustain = 10 * time.Minute

// Request is what to measure.
type Request struct {
	Device  string        // DeviceGPU (every GPU) or DeviceCPU (the host)
	Quick   bool          // smaller sizes and fewer samples
	Only    []string      // groups to run; empty: every group that applies to the device
	DTypes  []gpu.DType   // GEMM element types; empty: DefaultDTypes
	Sustain time.Duration // how long the sustained GEMM runs; 0: not run
	// AllowBusy measures a GPU that other programs compute on (its figures
	// are then shared with them, and say so); otherwise such a GPU is
	// reported as busy, naming the processes, and not measured.
	AllowBusy bool
	// SustainAll runs the sustained GEMM on every GPU at once, after each
	// GPU's other groups, so that the node's power and cooling limits bind
	// as in a multi-GPU training job; otherwise each GPU sustains alone in
	// its turn. It needs Sustain above 0.
	SustainAll bool
}

// DefaultSustain is --sustain's default: 30 s in a full run (long enough
// for an H200 to reach its power limit), none with --quick.
func DefaultSustain(quick bool) time.Duration {
	if quick {
		return 0
	}
	return 30 * time.Second
}

// DefaultDTypes are the GEMM types measured when --dtypes is not given:
// everything a GPU may have (a type it lacks is reported as unsupported),
// fp32 and fp64 on the CPU.
func DefaultDTypes(device string) []gpu.DType {
	if device == DeviceCPU {
		return []gpu.DType{gpu.FP32, gpu.FP64}
	}
	return []gpu.DType{gpu.FP32, gpu.TF32, gpu.BF16, gpu.FP16, gpu.FP8}
}

// Validate checks the request, naming the flag of a bad value.
func (r Request) Validate() error {
	if r.Device != DeviceGPU && r.Device != DeviceCPU {
		return fmt.Errorf("--device %q: want gpu or cpu", r.Device)
	}
	for _, g := range r.Only {
		if !slices.Contains(Groups, g) {
			return fmt.Errorf("--only %q: want a comma-separated list of %s", g, strings.Join(Groups, ", "))
		}
	}
	if r.Sustain < 0 || r.Sustain > MaxSustain {
		return fmt.Errorf("--sustain %s: want 0 (off) to %s", r.Sustain, MaxSustain)
	}
	if slices.Contains(r.Only, GroupSustain) && r.Sustain == 0 {
		return fmt.Errorf("--only %s needs --sustain above 0 (e.g. --sustain 30s)", GroupSustain)
	}
	if r.SustainAll && r.Sustain == 0 {
		if r.Quick {
			return errors.New("--sustain-all needs --sustain above 0, and --quick skips the sustained run unless --sustain is given (e.g. --quick --sustain-all --sustain 30s)")
		}
		return errors.New("--sustain-all needs --sustain above 0 (e.g. --sustain 30s)")
	}
	if r.SustainAll && r.Device == DeviceCPU {
		return errors.New("--sustain-all loads every GPU at once: it needs --device gpu")
	}
	for _, dt := range r.DTypes {
		if dt < gpu.FP32 || dt > gpu.FP64 {
			return fmt.Errorf("--dtypes: %s is not a GEMM type", dt)
		}
	}
	return nil
}

// groups returns the groups to run on a device of this kind.
func (r Request) groups(cpu bool) []string {
	if len(r.Only) > 0 {
		var out []string
		for _, g := range Groups { // bench's order, whatever the flag's
			if slices.Contains(r.Only, g) {
				out = append(out, g)
			}
		}
		return out
	}
	out := []string{GroupGEMM, GroupMemory}
	if !cpu {
		out = append(out, GroupH2D, GroupD2H)
	}
	out = append(out, GroupJitter)
	if r.Sustain > 0 {
		out = append(out, GroupSustain)
	}
	if !cpu {
		out = append(out, GroupP2P, GroupNCCL)
	}
	return out
}

// dtypes returns the GEMM types to measure.
func (r Request) dtypes() []gpu.DType {
	if len(r.DTypes) > 0 {
		return r.DTypes
	}
	return DefaultDTypes(r.Device)
}
