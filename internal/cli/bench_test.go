package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/bench"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/host"
	"github.com/gpuscout/gpuscout/internal/hostinfo"
	"github.com/gpuscout/gpuscout/internal/render"
)

// smallBench shrinks bench's sizes for the length of a test.
func smallBench(t *testing.T) {
	t.Helper()
	old := benchTune
	benchTune = func(p *bench.Plan) {
		p.GemmN, p.CopyBytes, p.HostBytes, p.Samples, p.JitterIters = 48, 1<<20, 1<<20, 3, 10
	}
	t.Cleanup(func() { benchTune = old })
}

func TestBenchRequestFromFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       benchFlags
		changed []string
		want    bench.Request
		err     string
	}{
		{"defaults", benchFlags{device: "gpu", sustain: 30 * time.Second}, nil, bench.Request{Device: "gpu", Sustain: 30 * time.Second}, ""},
		{"quick drops the sustained run", benchFlags{device: "gpu", quick: true, sustain: 30 * time.Second}, nil, bench.Request{Device: "gpu", Quick: true}, ""},
		{"quick with --sustain", benchFlags{device: "gpu", quick: true, sustain: 10 * time.Second}, []string{"sustain"}, bench.Request{Device: "gpu", Quick: true, Sustain: 10 * time.Second}, ""},
		{"lists", benchFlags{device: " CPU", only: []string{"GEMM", " hbm"}, dtypes: []string{"FP32", "fp64"}}, []string{"only", "dtypes", "sustain"},
			bench.Request{Device: "cpu", Only: []string{"gemm", "hbm"}, DTypes: []gpu.DType{gpu.FP32, gpu.FP64}}, ""},
		{"bad dtype", benchFlags{device: "gpu", dtypes: []string{"int8"}}, []string{"dtypes"}, bench.Request{}, `--dtypes: dtype "int8" is not one of fp32, tf32, bf16, fp16, fp8, fp64`},
		{"bad device", benchFlags{device: "tpu"}, nil, bench.Request{}, `--device "tpu": want gpu or cpu`},
		{"empty --only", benchFlags{device: "gpu", only: []string{" "}}, []string{"only"}, bench.Request{}, "--only is empty"},
		{"sustain alone in quick", benchFlags{device: "gpu", quick: true, only: []string{"sustain"}}, []string{"only"}, bench.Request{}, "--only sustain needs --sustain above 0"},
		{"every GPU at once", benchFlags{device: "gpu", sustain: 30 * time.Second, sustainAll: true}, nil, bench.Request{Device: "gpu", Sustain: 30 * time.Second, SustainAll: true}, ""},
		{"every GPU at once with nothing to sustain", benchFlags{device: "gpu", quick: true, sustainAll: true}, nil, bench.Request{}, "--sustain-all needs --sustain above 0, and --quick skips the sustained run unless --sustain is given"},
	} {
		got, err := benchRequestFromFlags(&tc.f, func(n string) bool { return slices.Contains(tc.changed, n) })
		if tc.err != "" {
			var ue *usageError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ue) {
				t.Errorf("%s: got %v, want usage error %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

// Bad values exit 2 naming the flag, before anything is measured.
func TestBenchBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--device", "tpu"}, `--device "tpu": want gpu or cpu`},
		{[]string{"bench", "--only", "gemm,flops"}, `--only "flops"`},
		{[]string{"bench", "--dtypes", "int4"}, `--dtypes: dtype "int4"`},
		{[]string{"bench", "--sustain", "-1s"}, "--sustain -1s: want 0 (off) to 10m0s"},
		{[]string{"bench", "--sustain", "2h"}, "--sustain 2h0m0s: want 0 (off) to 10m0s"},
		{[]string{"bench", "--sustain", "soon"}, `invalid argument "soon" for "--sustain"`},
		{[]string{"bench", "--out", "no-such-dir/r.json"}, "--out no-such-dir/r.json: folder no-such-dir does not exist"},
		{[]string{"bench", "-o", "yaml"}, `"yaml"`},
		{[]string{"bench", "extra"}, "unknown command"},
		{[]string{"bench", "compare"}, "requires at least 1 arg"},
		{[]string{"bench", "compare", "none.json"}, "none.json: no such file"},
		{[]string{"bench", "compare", "testdata/bench-a10g.json"}, "not a gpuscout bench report (no schema_version)"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// No GPU: exit 1 with one clear line, and no report written.
func TestBenchNoGPU(t *testing.T) {
	// The real opener, searching only an empty folder: a machine without the driver.
	saved := openGPUs
	t.Cleanup(func() { openGPUs = saved })
	openGPUs = func() ([]gpu.Device, error) {
		return openCUDA(cuda.Options{Env: &dl.Env{NoLoaderNames: true, Dirs: []string{t.TempDir()}}})
	}
	out := filepath.Join(t.TempDir(), "r.json")
	_, errOut, code := run(t, "bench", "--quick", "--out", out)
	if code != ExitFailure || !strings.Contains(errOut, "no NVIDIA GPU found (cuda: no library loaded") ||
		!strings.Contains(errOut, "'gpuscout doctor' says what is missing) (bench --device cpu measures the host CPU instead)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a report was written without a GPU")
	}
	old := openGPUs
	t.Cleanup(func() { openGPUs = old })
	openGPUs = func() ([]gpu.Device, error) { return nil, nil }
	if _, errOut, code := run(t, "bench", "--quick", "--out", ""); code != ExitFailure || !strings.Contains(errOut, "gpuscout: no NVIDIA GPU found (bench") {
		t.Errorf("no devices: exit %d, stderr %q", code, errOut)
	}
}

// brokenGPU is a host device that says it is an A10G and fails bf16 products.
type brokenGPU struct{ *host.Device }

func (b brokenGPU) Info() gpu.Info {
	i := b.Device.Info()
	i.IsCPU, i.Name, i.Index, i.Driver = false, "NVIDIA A10G", 0, "550.1"
	return i
}

func (b brokenGPU) Gemm(dt gpu.DType, m, n, k int, a, bb, c gpu.Ptr) error {
	if dt == gpu.BF16 {
		return errors.New("CUBLAS_STATUS_EXECUTION_FAILED")
	}
	return b.Device.Gemm(dt, m, n, k, a, bb, c)
}

// A GPU step that fails is in the report and the table, and exits 1.
func TestBenchGPUStepFails(t *testing.T) {
	smallBench(t)
	old := openGPUs
	t.Cleanup(func() { openGPUs = old })
	openGPUs = func() ([]gpu.Device, error) { return []gpu.Device{brokenGPU{host.New(host.Config{Threads: 2})}}, nil }
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, errOut, code := run(t, "bench", "--quick", "--only", "gemm", "--dtypes", "fp32,bf16", "--out", out)
	if code != ExitFailure || !strings.Contains(errOut, "1 measurement(s) failed: gemm_bf16 on gpu0: CUBLAS_STATUS_EXECUTION_FAILED") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(stdout, "gemm_bf16 on gpu0: CUBLAS_STATUS_EXECUTION_FAILED") || !strings.Contains(stdout, "gpu0: NVIDIA A10G") {
		t.Errorf("table:\n%s", stdout)
	}
	doc := readReport(t, out)
	if len(doc.GPUs) != 1 || doc.GPUs[0].CanonicalGPU == nil || *doc.GPUs[0].CanonicalGPU != "A10G" {
		t.Errorf("gpus %+v, want the A10G resolved", doc.GPUs)
	}
	if m := doc.Find("gemm_fp32", "gpu0"); m == nil || !m.OK() {
		t.Errorf("gemm_fp32 = %+v, want measured", m)
	}
}

func readReport(t *testing.T, path string) *benchreport.Document {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := benchreport.DecodeDocument(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// End to end: bench --device cpu writes a report (the table on stdout, the
// same document with -o json); advise refuses it (no GPU), while a GPU report
// in the new format replaces the datasheet figures in advise's throughput.
func TestBenchCPUEndToEnd(t *testing.T) {
	smallBench(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "cpu.json")
	stdout, errOut, code := run(t, "bench", "--device", "cpu", "--quick", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr is not a terminal, yet got %q", errOut)
	}
	for _, want := range []string{"gemm_fp32", "gemm_fp64", "cpu_mem_copy", "jitter_cv", "TFLOP/s", "Report written to " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table has no %q:\n%s", want, stdout)
		}
	}
	doc := readReport(t, out)
	if doc.SchemaVersion != 1 || len(doc.GPUs) != 0 || doc.Host.Cores < 1 || doc.Find("gemm_fp32", "cpu") == nil || !doc.Find("cpu_mem_copy", "cpu").OK() {
		t.Errorf("report: %+v", doc)
	}
	jsonOut, _, code := run(t, "bench", "--device", "cpu", "--quick", "--only", "gemm", "--dtypes", "fp32", "--out", "", "-o", "json")
	var back benchreport.Document
	if err := json.Unmarshal([]byte(jsonOut), &back); code != 0 || err != nil || back.SchemaVersion != 1 || len(back.Measurements) != 1 {
		t.Errorf("-o json: exit %d, %v:\n%s", code, err, jsonOut)
	}

	if _, errOut, code := run(t, "advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws", "--bench", out); code != ExitUsage || !strings.Contains(errOut, "measures no GPU") {
		t.Errorf("advise on a CPU report: exit %d, %q", code, errOut)
	}
	// fp16 sustained 62.5 (not the burst-time 70, not the CPU's figure), HBM 480:
	// (62.5/312)^0.5 × (480/1555)^0.5 = 0.25 of the A100.
	adv, errOut, code := run(t, "advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws", "--bench", "testdata/bench-a10g-v1.json", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"A10G is 0.25× A100-SXM4-40GB", "fp16 62.5 TF (measured, testdata/bench-a10g-v1.json)", "480 GB/s (measured, testdata/bench-a10g-v1.json)"} {
		if !strings.Contains(adv, want) {
			t.Errorf("advise output has no %q", want)
		}
	}
}

// On a terminal, one progress line per measurement goes to stderr.
func TestBenchProgress(t *testing.T) {
	smallBench(t)
	old := progressTTY
	t.Cleanup(func() { progressTTY = old })
	progressTTY = func(io.Writer) bool { return true }
	_, errOut, code := run(t, "bench", "--device", "cpu", "--only", "gemm,sustain", "--dtypes", "fp32", "--sustain", "50ms", "--out", "")
	if code != 0 {
		t.Fatal(errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "cpu   gemm_fp32") || !strings.Contains(lines[0], "TFLOP/s") ||
		!strings.Contains(lines[1], "sustained GEMM for 50ms") || !strings.Contains(lines[2], "gemm_fp32_burst") || !strings.Contains(lines[3], "gemm_fp32_sustained") {
		t.Errorf("progress:\n%s", errOut)
	}
}

// The summary table and bench compare on reports of known content.
func TestBenchGolden(t *testing.T) {
	stdout, errOut, code := run(t, "bench", "compare", "testdata/bench-h200-v1.json", "testdata/bench-a10g-v1.json")
	if code != 0 {
		t.Fatal(errOut)
	}
	golden(t, "bench-compare.txt", stdout)
	var buf bytes.Buffer
	doc := readReport(t, "testdata/bench-h200-v1.json")
	if err := benchTable(doc, "").Write(&buf, render.FormatTable, render.Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "bench-table-h200.txt", buf.String())
	js, _, code := run(t, "bench", "compare", "testdata/bench-h200-v1.json", "testdata/bench-a10g-v1.json", "-o", "json")
	var c comparison
	if err := json.Unmarshal([]byte(js), &c); code != 0 || err != nil || len(c.Reports) != 2 || c.Rows[0].Name != "gemm_fp32" || *c.Rows[0].Values[0].Value != 51.2 || c.Rows[0].Values[1].Status != "" {
		t.Errorf("compare -o json: exit %d, %v: %+v", code, err, c)
	}
}

func TestFormatFigure(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{{769.04, "769"}, {769.15, "769.2"}, {4238.6, "4239"}, {123456.7, "123457"}, {51.2, "51.2"}, {0.0236, "0.0236"}, {0.001314159, "0.001314"}, {0, "0"}, {-2.5, "-2.5"}} {
		if got := render.Figure(tc.in); got != tc.want {
			t.Errorf("render.Figure(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestBenchReportNamesHostAndCloud: the report says which machine and which
// catalog offering it measured (here named by GPUSCOUT_CLOUD, as a user
// whose metadata service is blocked would).
func TestBenchReportNamesHostAndCloud(t *testing.T) {
	t.Setenv("GPUSCOUT_CLOUD", "aws/g5.xlarge/us-east-1/us-east-1a")
	old := envProbe.host
	t.Cleanup(func() { envProbe.host = old })
	envProbe.host = func() *hostinfo.Host {
		return &hostinfo.Host{Hostname: "node-7", CPUModel: "AMD EPYC 7R32", LogicalCores: 4, MemoryGiB: 15.44}
	}
	out := filepath.Join(t.TempDir(), "r.json")
	if _, errOut, code := run(t, "bench", "--device", "cpu", "--quick", "--only", "hbm", "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Host  benchreport.Host   `json:"host"`
		Cloud *benchreport.Cloud `json:"cloud"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := benchreport.Cloud{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a", MatchedOffering: "aws/g5.xlarge/us-east-1"}
	if doc.Host != (benchreport.Host{Hostname: "node-7", CPUModel: "AMD EPYC 7R32", Cores: 4, MemoryGiB: 15.44}) || doc.Cloud == nil || *doc.Cloud != want {
		t.Errorf("host %+v cloud %+v; want node-7 and %+v", doc.Host, doc.Cloud, want)
	}
	if _, errOut, code := run(t, "bench", "--device", "cpu", "--quick", "--only", "hbm", "--out", ""); code != 0 {
		t.Fatal(errOut)
	}
	t.Setenv("GPUSCOUT_CLOUD", "aws/g5.xlarge")
	if _, errOut, code := run(t, "bench", "--device", "cpu", "--quick", "--only", "hbm", "--out", ""); code != ExitUsage || !strings.Contains(errOut, "GPUSCOUT_CLOUD") {
		t.Errorf("bad GPUSCOUT_CLOUD: exit %d, %q; want 2 naming it", code, errOut)
	}
}
