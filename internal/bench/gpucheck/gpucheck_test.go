package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/bench"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

func TestMain(m *testing.M) { dltest.Main(m) }

// benchReport runs bench over the fake CUDA GPU (the sizes a tune gives)
// and returns its report, as gpuscout bench writes it.
func benchReport(t *testing.T, req bench.Request, tune func(*bench.Plan)) *benchreport.Document {
	t.Helper()
	env := dltest.Env(dltest.Build(t, "../../gpu/cuda/testdata/fakecuda.c", "libcuda.so.1"),
		dltest.Build(t, "../../gpu/cuda/testdata/fakecublas.c", "libcublas.so.13"))
	lib, err := dl.OpenEnv(dl.CUDA, env)
	if err != nil {
		t.Fatal(err)
	}
	var set func(key string, v int64) int32
	if _, err := lib.Bind([]dl.Symbol{dl.Sym(&set, "fake_cuda_set")}); err != nil {
		t.Fatal(err)
	}
	set("reset", 0)
	set("vclock", 1)
	defer set("reset", 0)
	devs, err := cuda.Open(cuda.Options{Env: &env, NoNVML: true})
	if err != nil {
		t.Fatal(err)
	}
	defer devs[0].Close()
	doc, err := (&bench.Runner{Tune: tune}).Run(context.Background(), devs, req)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The sizes PyTorch is given are the ones gpuscout measured at, read from
// the report bench writes.
func TestSizesFromBenchReport(t *testing.T) {
	doc := benchReport(t, bench.Request{Device: bench.DeviceGPU, Only: []string{bench.GroupGEMM, bench.GroupMemory, bench.GroupH2D},
		DTypes: []gpu.DType{gpu.FP32, gpu.BF16}}, func(p *bench.Plan) {
		p.GemmN, p.CopyBytes, p.HostBytes, p.Samples, p.Checks = 64, 32<<20, 16<<20, 2, 2
	})
	s, err := SizesFrom(doc, "gpu0")
	if err != nil {
		t.Fatal(err)
	}
	if s != (Sizes{GemmN: 64, CopyBytes: 32 << 20, HostBytes: 16 << 20}) {
		t.Errorf("sizes %+v, want 64³, 32 MiB, 16 MiB", s)
	}
	doc.Measurements = doc.Measurements[:1]
	if _, err := SizesFrom(doc, "gpu0"); err == nil || err.Error() != "the report has no size for hbm_copy, h2d or d2h on gpu0" {
		t.Errorf("a report without copies: %v", err)
	}
}

func TestSummarizeSMI(t *testing.T) {
	csv := `2026/12/01 10:00:00.000, 345, 80.5, 38, 0
2026/12/01 10:00:00.250, 1980, 400.0, 50, 100
1755, 690.0, 70, 100
1755, [N/A], 72, 99
garbage line
1740, 700.0, 74, 100
`
	got, err := SummarizeSMI(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	// Five samples: the first two left out, the last three averaged.
	if got.Samples != 3 || got.FirstSkipped != 2 || got.SMClockMHz != (1755+1755+1740)/3.0 || got.PowerW != 695 ||
		got.TempC != 72 || got.TempMaxC != 74 || math.Abs(got.UtilPct-299/3.0) > 1e-12 {
		t.Errorf("summary %+v", got)
	}
	if _, err := SummarizeSMI(strings.NewReader("")); err == nil {
		t.Error("no samples: no error")
	}
}

func f(v float64) *float64 { return &v }

// The table: gpuscout | PyTorch | ratio per measurement, "-" where one side
// has none, and the 97% targets judged where both were measured.
func TestTable(t *testing.T) {
	doc := &benchreport.Document{SchemaVersion: 1, Measurements: []benchreport.Measurement{
		{Name: "gemm_bf16", Device: "gpu0", Value: f(780), Unit: "TFLOP/s", Status: "ok"},
		{Name: "gemm_fp16", Device: "gpu0", Value: f(700), Unit: "TFLOP/s", Status: "ok"},
		{Name: "hbm_copy", Device: "gpu0", Value: f(4200), Unit: "GB/s", Status: "ok"},
		{Name: "gemm_fp32", Device: "gpu1", Value: f(50), Unit: "TFLOP/s", Status: "ok"},
	}}
	sust := &benchreport.Document{SchemaVersion: 1, Measurements: []benchreport.Measurement{
		{Name: "gemm_bf16_burst", Device: "gpu0", Value: f(790), Unit: "TFLOP/s", Status: "ok"},
		{Name: "gemm_bf16_sustained", Device: "gpu0", Value: f(671.2), Unit: "TFLOP/s", Status: "ok"},
		{Name: "sustain_power_w", Device: "gpu0", Value: f(690), Unit: "W", Status: "ok"},
	}}
	torch, err := ReadTorch(strings.NewReader(`{"torch": "2.9.0", "device": "NVIDIA H200", "measurements": [
		{"name": "gemm_bf16", "value": 800, "unit": "TFLOP/s"}, {"name": "gemm_fp16", "value": 750, "unit": "TFLOP/s"},
		{"name": "hbm_copy", "value": 4300, "unit": "GB/s"}, {"name": "h2d", "value": 55, "unit": "GB/s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	torchSust, _ := ReadTorch(strings.NewReader(`{"measurements": [{"name": "gemm_bf16_sustained", "value": 680, "unit": "TFLOP/s"}]}`))
	smi := &Telemetry{SMClockMHz: 1755, PowerW: 695, TempC: 72, TempMaxC: 74, UtilPct: 100}
	var buf bytes.Buffer
	if err := Write(&buf, Rows(Input{Bench: doc, Sustain: sust, Torch: torch, TorchSustain: torchSust, SMIGPUScout: smi, Device: "gpu0", SustainDType: "bf16"})); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"measurement                        | unit    | gpuscout | PyTorch | ratio",
		"gemm_fp32                          | TFLOP/s |        - |       - |     -", // gpu1's is not gpu0's
		"gemm_bf16                          | TFLOP/s |    780.0 |   800.0 | 0.975",
		"gemm_fp16                          | TFLOP/s |    700.0 |   750.0 | 0.933",
		"h2d                                | GB/s    |        - |   55.00 |     -",
		"gemm_bf16_sustained                | TFLOP/s |    671.2 |   680.0 | 0.987",
		"sustained SM clock (nvidia-smi)    | MHz     |   1755.0 |       - |     -",
		"sustain_power_w (gpuscout's NVML)  | W       |    690.0 |       - |     -",
		"gemm_bf16: gpuscout at 97.5% of PyTorch meets the 97% target",
		"gemm_fp16: gpuscout at 93.3% of PyTorch MISSES the 97% target",
		"hbm_copy: gpuscout at 97.7% of PyTorch meets the 97% target",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// The reference script at the sizes gpuscout reports, on the CPU (where
// PyTorch is installed), then the whole comparison through the command
// line as scripts/gpu-check.sh runs it.
func TestTorchReferenceOnCPU(t *testing.T) {
	py := os.Getenv("GPUSCOUT_PYTHON")
	if py == "" {
		py = "python3"
	}
	var withTorch string
	for _, cand := range []string{py, "/usr/bin/python3"} {
		if exec.Command(cand, "-c", "import torch").Run() == nil {
			withTorch = cand
			break
		}
	}
	if withTorch == "" {
		t.Skip("no python3 with torch (GPUSCOUT_PYTHON, python3, /usr/bin/python3): the reference script is not run")
	}
	dir := t.TempDir()
	doc := benchReport(t, bench.Request{Device: bench.DeviceGPU, Only: []string{bench.GroupGEMM, bench.GroupMemory, bench.GroupH2D},
		DTypes: []gpu.DType{gpu.FP32}}, func(p *bench.Plan) {
		p.GemmN, p.CopyBytes, p.HostBytes, p.Samples, p.Checks = 64, 16<<20, 16<<20, 2, 2
	})
	benchPath := filepath.Join(dir, "bench.json")
	var b bytes.Buffer
	if err := doc.Encode(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(benchPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sizes", benchPath}, &stdout, &stderr); code != 0 || stdout.String() != "n=64 copy_bytes=16777216 host_bytes=16777216\n" {
		t.Fatalf("sizes: %d %q %q", code, stdout.String(), stderr.String())
	}
	cmd := exec.Command(withTorch, "torch_check.py", "--device", "cpu", "--n", "64", "--copy-bytes", "16777216", "--host-bytes", "16777216",
		"--samples", "3", "--sustain-seconds", "0.3", "--sustain-dtype", "bf16")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("torch_check.py: %v\n%s", err, out)
	}
	torch, err := ReadTorch(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if torch.Sizes["n"] != 64 || torch.Sizes["copy_bytes"] != 16777216 || torch.Device != "cpu" {
		t.Errorf("reference sizes %v on %s", torch.Sizes, torch.Device)
	}
	for _, name := range []string{"gemm_fp32", "cpu_mem_copy", "gemm_fp32_burst", "gemm_fp32_sustained"} {
		if v := torch.value(name); v == nil || *v <= 0 {
			t.Errorf("reference %s = %v, want a positive figure:\n%s", name, v, out)
		}
	}
	torchPath := filepath.Join(dir, "torch.json")
	if err := os.WriteFile(torchPath, out, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	code := run([]string{"table", "--bench", benchPath, "--torch", torchPath, "--torch-sustain", torchPath, "--dtype", "fp32",
		"--smi-torch", filepath.Join(dir, "missing.csv")}, &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "\ngemm_fp32 ") || !strings.Contains(stdout.String(), "gemm_fp32_sustained") ||
		!strings.Contains(stderr.String(), "missing.csv") {
		t.Errorf("table: %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "gemm_fp32 ") && strings.HasSuffix(line, "| -") {
			t.Errorf("gemm_fp32 has no ratio: %q", line)
		}
	}
	if code := run([]string{"nonsense"}, &stdout, &stderr); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
}
