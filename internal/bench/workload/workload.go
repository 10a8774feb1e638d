// Package workload runs gpuscout's bundled PyTorch training steps (ResNet-50
// from torchvision, a BERT-large-shaped encoder from torch.nn) on synthetic
// data and reads their results: samples per second, step times, the largest
// batch that fits. The scripts are embedded in the binary and written to a
// temporary file at run time, so a node needs only Python and PyTorch.
package workload

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
)

//go:embed scripts/train_step.py
var script []byte

// Script is the embedded training-step script (for `bench workload --print-script`).
func Script() []byte { return slices.Clone(script) }

// Models are the bundled workloads.
var Models = []string{"resnet50", "bert-large"}

// Bounds on a Spec's numbers.
const (
	MaxBatch  = 1 << 16
	MaxSteps  = 10000
	MaxWarmup = 1000
)

// Spec is one workload run.
type Spec struct {
	Model        string // resnet50 or bert-large
	Batch        int    // per step; 0: the model's default (128 images, 32 sequences; 2 with Tiny)
	Steps        int    // timed steps (after Warmup)
	Warmup       int    // untimed steps first (the CLI's default is 5)
	Device       string // auto, cpu, cuda or cuda:N
	AMP          string // auto (on for CUDA), on, off
	Tiny         bool   // tiny shapes, for tests and quick CPU runs
	FindMaxBatch bool   // double the batch until a step runs out of memory, then bisect
	MaxBatchCap  int    // the largest batch FindMaxBatch tries (0: 4096)
	Threads      int    // CPU threads for torch (0: its default)
}

// WithDefaults fills unset fields (no steps: 20; no device or AMP: auto; no
// cap: 4096); it returns a copy. Warmup 0 is a choice (no warm-up), kept.
func (s Spec) WithDefaults() Spec {
	if s.Steps == 0 {
		s.Steps = 20
	}
	if s.Device == "" {
		s.Device = "auto"
	}
	if s.AMP == "" {
		s.AMP = "auto"
	}
	if s.MaxBatchCap == 0 {
		s.MaxBatchCap = 4096
	}
	return s
}

// Validate checks every field against its range; it changes nothing.
func (s Spec) Validate() error {
	if !slices.Contains(Models, s.Model) {
		return fmt.Errorf("workload %q is not one of %s", s.Model, strings.Join(Models, ", "))
	}
	if s.Batch < 0 || s.Batch > MaxBatch {
		return fmt.Errorf("--batch %d: want 1..%d (or 0 for the model's default)", s.Batch, MaxBatch)
	}
	if s.Steps < 1 || s.Steps > MaxSteps {
		return fmt.Errorf("--steps %d: want 1..%d", s.Steps, MaxSteps)
	}
	if s.Warmup < 0 || s.Warmup > MaxWarmup {
		return fmt.Errorf("--warmup %d: want 0..%d", s.Warmup, MaxWarmup)
	}
	if s.MaxBatchCap < 1 || s.MaxBatchCap > MaxBatch {
		return fmt.Errorf("--max-batch %d: want 1..%d", s.MaxBatchCap, MaxBatch)
	}
	if s.Threads < 0 || s.Threads > 4096 {
		return fmt.Errorf("--threads %d: want 0..4096", s.Threads)
	}
	switch {
	case s.Device == "auto", s.Device == "cpu", s.Device == "cuda":
	case strings.HasPrefix(s.Device, "cuda:") && isDigits(s.Device[5:]) && len(s.Device) <= 8:
	default:
		return fmt.Errorf("--device %q: want auto, cpu, cuda or cuda:N", s.Device)
	}
	if !slices.Contains([]string{"auto", "on", "off"}, s.AMP) {
		return fmt.Errorf("--amp %q: want auto, on or off", s.AMP)
	}
	return nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// Args are the script's command-line arguments for s.
func (s Spec) Args() []string {
	a := []string{"--model", s.Model, "--steps", fmt.Sprint(s.Steps), "--warmup", fmt.Sprint(s.Warmup),
		"--device", s.Device, "--amp", s.AMP, "--max-batch", fmt.Sprint(s.MaxBatchCap)}
	if s.Batch > 0 {
		a = append(a, "--batch", fmt.Sprint(s.Batch))
	}
	if s.Tiny {
		a = append(a, "--tiny")
	}
	if s.FindMaxBatch {
		a = append(a, "--find-max-batch")
	}
	if s.Threads > 0 {
		a = append(a, "--threads", fmt.Sprint(s.Threads))
	}
	return a
}
