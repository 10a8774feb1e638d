package workload

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

func TestSpecValidate(t *testing.T) {
	ok := Spec{Model: "resnet50"}.WithDefaults()
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		err  string
	}{
		{"defaults", func(*Spec) {}, ""},
		{"cuda:1", func(s *Spec) { s.Device = "cuda:1" }, ""},
		{"model", func(s *Spec) { s.Model = "gpt-5" }, `workload "gpt-5" is not one of resnet50, bert-large`},
		{"batch", func(s *Spec) { s.Batch = -1 }, "--batch -1: want 1..65536"},
		{"batch big", func(s *Spec) { s.Batch = 1 << 20 }, "--batch 1048576"},
		{"steps", func(s *Spec) { s.Steps = 0 }, "--steps 0: want 1..10000"},
		{"device", func(s *Spec) { s.Device = "tpu" }, `--device "tpu": want auto, cpu, cuda or cuda:N`},
		{"device index", func(s *Spec) { s.Device = "cuda:x" }, `--device "cuda:x"`},
		{"amp", func(s *Spec) { s.AMP = "maybe" }, `--amp "maybe"`},
	} {
		s := ok
		tc.edit(&s)
		before := s
		err := s.Validate()
		if s != before {
			t.Errorf("%s: Validate changed the spec", tc.name)
		}
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: Validate() = %v; want %q", tc.name, err, tc.err)
		}
	}
}

func TestArgs(t *testing.T) {
	got := strings.Join(Spec{Model: "bert-large", Batch: 8, Tiny: true, FindMaxBatch: true}.WithDefaults().Args(), " ")
	want := "--model bert-large --steps 20 --warmup 0 --device auto --amp auto --max-batch 4096 --batch 8 --tiny --find-max-batch"
	if got != want {
		t.Errorf("Args() = %q\nwant     %q", got, want)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in, err string
		check         func(*Result) bool
	}{
		{"result after library noise", "Warning: something\n" + `{"model":"resnet50","ok":true,"torch":"1.13.1","torch_cuda":null,"device":"cpu","amp":false,"unit":"images","tiny":true,"batch":2,"steps":2,"step_ms":[10,30],"step_ms_median":20,"samples_per_s":100}` + "\n", "",
			func(r *Result) bool { return r.SamplesPerS == 100 && r.TorchCUDA == nil && r.Batch == 2 }},
		{"cuda build", `{"model":"bert-large","ok":true,"torch":"2.11.0+cu130","torch_cuda":"13.0","device":"cuda","amp":true,"batch":32,"steps":1,"step_ms":[50],"step_ms_median":50,"samples_per_s":640,"peak_memory_bytes":123}`, "",
			func(r *Result) bool { return *r.TorchCUDA == "13.0" && r.PeakMemoryBytes == 123 }},
		{"failure said", `{"model":"resnet50","ok":false,"error":"PyTorch is not installed"}`, "",
			func(r *Result) bool { return !r.OK && r.Error != "" }},
		{"nothing", "Traceback ...\n", "printed no result", nil},
		{"bad json", "{nope\n", "not valid", nil},
		{"zero rate", `{"model":"resnet50","ok":true,"batch":2,"steps":0,"step_ms_median":0,"samples_per_s":0}`, "want positive numbers", nil},
		{"steps mismatch", `{"model":"resnet50","ok":true,"batch":2,"steps":3,"step_ms":[1],"step_ms_median":1,"samples_per_s":2000}`, "1 step times for 3 steps", nil},
		{"failure unsaid", `{"model":"resnet50","ok":false}`, "without saying why", nil},
	} {
		r, err := Parse(strings.NewReader(tc.in))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err = %v; want %q", tc.name, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.check != nil && err == nil && !tc.check(r):
			t.Errorf("%s: parsed %+v", tc.name, r)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"model":"resnet50","ok":true,"batch":2,"steps":1,"step_ms":[1],"step_ms_median":1,"samples_per_s":2000}`)
	f.Add("noise\n{\"ok\":false,\"error\":\"x\"}")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(strings.NewReader(s))
		if err == nil && r.OK && !(r.SamplesPerS > 0) {
			t.Fatalf("accepted a result without a rate: %+v", r)
		}
	})
}

func TestSummarise(t *testing.T) {
	if Summarise(nil) != nil {
		t.Error("no samples: want nil")
	}
	// Utilisation 0.9, 1.0, NaN (not read): mean 0.95, population sd 0.05.
	got := Summarise([]gpu.Sample{
		{UtilGPU: 0.9, PowerW: 600, MemUsedBytes: 10},
		{UtilGPU: 1.0, PowerW: 700, MemUsedBytes: 30},
		{UtilGPU: math.NaN(), PowerW: -1, MemUsedBytes: 20},
	})
	if got.Samples != 3 || math.Abs(got.UtilMean-0.95) > 1e-12 || math.Abs(got.UtilStdDev-0.05) > 1e-12 ||
		got.PowerMeanW != 650 || got.MemUsedMaxBytes != 30 {
		t.Errorf("Summarise = %+v; want 3 samples, util 0.95±0.05, 650 W, 30 bytes", got)
	}
}

// fakeSampler counts its readings.
type fakeSampler struct{ n int }

func (f *fakeSampler) Sample() (gpu.Sample, error) {
	f.n++
	return gpu.Sample{UtilGPU: 0.5, PowerW: 100, MemUsedBytes: int64(f.n)}, nil
}

var (
	torchOnce sync.Once
	torchPy   string
	torchErr  error
)

// torchPython is the interpreter gpuscout would use, when it has PyTorch;
// else the test skips, unless GPUSCOUT_REQUIRE_TORCH=1 (scripts/test.sh sets
// it, with GPUSCOUT_PYTHON, after installing Debian's python3-torch).
func torchPython(t *testing.T) string {
	t.Helper()
	torchOnce.Do(func() {
		torchPy, torchErr = Python(os.Getenv, exec.LookPath)
		if torchErr == nil {
			torchErr = exec.Command(torchPy, "-c", "import torch, torchvision").Run()
		}
	})
	if torchErr == nil {
		return torchPy
	}
	if os.Getenv("GPUSCOUT_REQUIRE_TORCH") == "1" {
		t.Fatalf("PyTorch with torchvision is required (GPUSCOUT_REQUIRE_TORCH=1) but %q cannot import them: %v", torchPy, torchErr)
	}
	t.Skip("no python3 with torch and torchvision (set GPUSCOUT_PYTHON, or install python3-torch python3-torchvision)")
	return ""
}

// TestRealWorkloads runs both bundled workloads for real, at tiny sizes on
// the CPU, with a sampler read meanwhile; the BERT-shaped one also searches
// for the largest batch (on the CPU nothing runs out of memory, so the
// search doubles to the cap, says it was capped, and times that batch).
func TestRealWorkloads(t *testing.T) {
	py := torchPython(t)
	t.Parallel()
	for _, tc := range []struct {
		spec      Spec
		wantBatch int
	}{
		{Spec{Model: "resnet50", Device: "cpu", Tiny: true, Batch: 2, Steps: 2, Warmup: 1, Threads: 1}, 2},
		{Spec{Model: "bert-large", Device: "cpu", Tiny: true, Batch: 1, Steps: 2, Warmup: 1, FindMaxBatch: true, MaxBatchCap: 4, Threads: 1}, 4},
	} {
		t.Run(tc.spec.Model, func(t *testing.T) {
			t.Parallel()
			s := &fakeSampler{}
			r := &Runner{Python: py, Sampler: s, Interval: 20 * time.Millisecond}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := r.Run(ctx, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK || res.Batch != tc.wantBatch || res.Steps != 2 || len(res.StepMS) != 2 || res.Device != "cpu" || res.Torch == "" {
				t.Fatalf("result %+v", res)
			}
			// samples/s is the batch over the median step time.
			med := (res.StepMS[0] + res.StepMS[1]) / 2
			if want := float64(tc.wantBatch) * 1000 / med; math.Abs(res.SamplesPerS-want) > 1e-6*want {
				t.Errorf("samples_per_s %v; want %d × 1000 / %v ms", res.SamplesPerS, tc.wantBatch, med)
			}
			if res.Telemetry == nil || res.Telemetry.Samples != s.n || res.Telemetry.UtilMean != 0.5 {
				t.Errorf("telemetry %+v after %d samples", res.Telemetry, s.n)
			}
			if tc.spec.FindMaxBatch && (res.MaxBatch != 4 || !res.MaxBatchCapped || len(res.Tried) != 3) {
				t.Errorf("find-max-batch: %+v; want batches 1, 2, 4 tried, max 4, capped", res)
			}
		})
	}
}

// TestNoTorch: an interpreter without torch gives a result that says so.
func TestNoTorch(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	// A torch module that fails to import, found first on the path.
	if err := os.WriteFile(dir+"/torch.py", []byte("raise ImportError('no torch here')\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PYTHONPATH", dir)
	res, err := (&Runner{Python: py}).Run(context.Background(), Spec{Model: "resnet50", Device: "cpu", Tiny: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Error, "PyTorch is not installed") {
		t.Errorf("result %+v; want a failure naming PyTorch", res)
	}
}

func TestPython(t *testing.T) {
	look := func(name string) (string, error) {
		if name == "python3" || name == "/opt/py/bin/python" {
			return "/found/" + name, nil
		}
		return "", exec.ErrNotFound
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if p, err := Python(env(nil), look); err != nil || p != "/found/python3" {
		t.Errorf("default: %q, %v; want python3 on PATH", p, err)
	}
	if p, err := Python(env(map[string]string{"GPUSCOUT_PYTHON": "/opt/py/bin/python"}), look); err != nil || p != "/found//opt/py/bin/python" {
		t.Errorf("GPUSCOUT_PYTHON: %q, %v", p, err)
	}
	if _, err := Python(env(map[string]string{"GPUSCOUT_PYTHON": "nothere"}), look); err == nil {
		t.Error("a GPUSCOUT_PYTHON that is not there: no error")
	}
	none := func(string) (string, error) { return "", exec.ErrNotFound }
	if _, err := Python(env(nil), none); err != ErrNoPython {
		t.Errorf("no python3: %v, want ErrNoPython", err)
	}
}

// TestSamplerWhileRunning: the sampler runs on its own goroutine while the
// interpreter does (here a shell script that takes 300 ms and prints a
// result), and the telemetry is what it sampled. The race step runs this
// rather than the real PyTorch workloads, which go-test runs.
func TestSamplerWhileRunning(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	py := filepath.Join(t.TempDir(), "python")
	body := "#!" + sh + "\nsleep 0.3\necho '" + `{"model":"resnet50","ok":true,"torch":"1.13.1","torch_cuda":null,"device":"cpu","amp":false,"unit":"images","tiny":true,"batch":2,"steps":2,"step_ms":[10,30],"step_ms_median":20,"samples_per_s":100}` + "'\n"
	if err := os.WriteFile(py, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	s := &fakeSampler{}
	res, err := (&Runner{Python: py, Sampler: s, Interval: 10 * time.Millisecond}).Run(context.Background(), Spec{Model: "resnet50", Device: "cpu", Tiny: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Telemetry == nil || res.Telemetry.Samples != s.n || s.n < 2 || res.Telemetry.UtilMean != 0.5 {
		t.Errorf("telemetry %+v after %d samples; want every sample of the 300 ms run counted", res.Telemetry, s.n)
	}
}
