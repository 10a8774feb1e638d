package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/bench/workload"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

func TestWorkloadSpecFromFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model string
		edit  func(*workloadFlags)
		want  workload.Spec
		err   string
	}{
		{"defaults", "ResNet50", func(*workloadFlags) {}, workload.Spec{Model: "resnet50", Steps: 20, Warmup: 5, Device: "auto", AMP: "auto", MaxBatchCap: 4096}, ""},
		{"no warm-up", "resnet50", func(f *workloadFlags) { f.spec.Warmup = 0 }, workload.Spec{Model: "resnet50", Steps: 20, Device: "auto", AMP: "auto", MaxBatchCap: 4096}, ""},
		{"no steps", "resnet50", func(f *workloadFlags) { f.spec.Steps = 0 }, workload.Spec{}, "--steps 0: want 1..10000"},
		{"find max", "bert-large", func(f *workloadFlags) { f.spec.FindMaxBatch, f.spec.Device = true, " CUDA:1 " },
			workload.Spec{Model: "bert-large", Steps: 20, Warmup: 5, Device: "cuda:1", AMP: "auto", MaxBatchCap: 4096, FindMaxBatch: true}, ""},
		{"bad model", "gpt", func(*workloadFlags) {}, workload.Spec{}, `workload "gpt" is not one of resnet50, bert-large`},
		{"bad batch", "resnet50", func(f *workloadFlags) { f.spec.Batch = -3 }, workload.Spec{}, "--batch -3"},
		{"bad device", "resnet50", func(f *workloadFlags) { f.spec.Device = "rocm" }, workload.Spec{}, `--device "rocm"`},
	} {
		f := workloadFlags{spec: workload.Spec{Steps: 20, Warmup: 5, Device: "auto", AMP: "auto", MaxBatchCap: 4096}}
		tc.edit(&f)
		got, err := workloadSpecFromFlags(&f, tc.model)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

type constSampler struct{}

func (constSampler) Sample() (gpu.Sample, error) {
	return gpu.Sample{At: time.Now(), UtilGPU: 0.97, MemUsedBytes: 50 << 30, PowerW: 690}, nil
}

// TestBenchWorkloadToAdvise: a GPU run of ResNet-50 (a stand-in interpreter
// answering as the script does on an H200) goes into a report, with the GPU
// it ran on and the NVML telemetry sampled meanwhile, and advise --bench uses
// it as cv-training's measured throughput.
func TestBenchWorkloadToAdvise(t *testing.T) {
	py, err := filepath.Abs("testdata/workload/fake-python")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GPUSCOUT_PYTHON", py)
	old := workloadSampler
	t.Cleanup(func() { workloadSampler = old })
	workloadSampler = func(int) (gpu.Sampler, func()) { return constSampler{}, func() {} }
	oldEvery := workloadSampleEvery
	t.Cleanup(func() { workloadSampleEvery = oldEvery })
	workloadSampleEvery = 5 * time.Millisecond
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, errOut, code := run(t, "bench", "workload", "resnet50", "--out", out)
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"resnet50", "cuda (NVIDIA H200)", "2560", "100", "on", "97% ±0.0", "40.0", "Stands for advise's cv-training throughput per GPU.", "PyTorch 2.11.0+cu130 (built for CUDA 13.0)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table has no %q:\n%s", want, stdout)
		}
	}
	doc := readReport(t, out)
	if len(doc.Workloads) != 1 || len(doc.GPUs) != 1 || doc.GPUs[0].Name != "NVIDIA H200" || doc.GPUs[0].CanonicalGPU == nil {
		t.Fatalf("report: %+v", doc)
	}
	w := doc.Workloads[0]
	if w.Scenario != "cv-training" || w.Value != 2560 || w.Device != "gpu0" || w.Batch != 256 || w.UtilMean == nil || *w.UtilMean != 0.97 || !w.AMP {
		t.Errorf("workload %+v", w)
	}
	// A second run of the same workload replaces the first.
	if _, errOut, code := run(t, "bench", "workload", "resnet50", "--find-max-batch", "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	if doc := readReport(t, out); len(doc.Workloads) != 1 || doc.Workloads[0].MaxBatch != 768 || doc.Workloads[0].Batch != 768 {
		t.Errorf("after --find-max-batch: %+v", doc.Workloads)
	}
	adv, errOut, code := run(t, "advise", "--scenario", "cv-training", "--gpu", "H200:8", "--for", "7d", "--bench", out, "--wide")
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(adv, "2560") && !strings.Contains(adv, "2,560") {
		t.Errorf("advise does not use the measured 2,560 images/s:\n%s", adv)
	}
}

func TestBenchWorkloadErrors(t *testing.T) {
	t.Setenv("GPUSCOUT_PYTHON", "/nowhere/python3")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "workload"}, ExitUsage, "takes one argument, a workload: resnet50 or bert-large; got 0"},
		{[]string{"bench", "workload", "gpt"}, ExitUsage, `workload "gpt" is not one of resnet50, bert-large`},
		{[]string{"bench", "workload", "resnet50", "--steps", "0"}, ExitUsage, "--steps 0: want 1..10000"},
		{[]string{"bench", "workload", "resnet50", "--timeout", "5s"}, ExitUsage, "--timeout 5s: want 1m..24h"},
		{[]string{"bench", "workload", "resnet50"}, ExitFailure, "/nowhere/python3"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	out, _, code := run(t, "bench", "workload", "resnet50", "--print-script")
	if code != 0 || !strings.Contains(out, "def main(argv)") {
		t.Errorf("--print-script: exit %d", code)
	}
	if _, err := os.Stat("report.json"); err == nil {
		t.Error("a report.json was left in the package folder")
	}
}
