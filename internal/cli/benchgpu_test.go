package cli

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/bench"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
	"github.com/gpuscout/gpuscout/internal/render"
)

// fakeNode is the fake libraries fakeGPUs set up: their folder and the
// fake driver's settings (fakecuda.c's fake_cuda_set).
type fakeNode struct {
	env     *dl.Env
	cudaSet func(key string, v int64) int32
	// ncclDebug is fakenccl.c's fake_nccl_debug: the logging environment
	// the fake NCCL read when it set its log up.
	ncclDebug func(buf *byte, n int32) int32
}

// fakeGPUs builds the fake libcuda, libcublas, libnvidia-ml and libnccl
// (internal/gpu/*/testdata), sets them to gpus GPUs on NVLink with the
// virtual clock, points openGPUs at them through the real bindings, and at
// cleanup fails the test if a fake saw a bad call. ncclFlags build a copy
// of the fake libnccl of its own (it sets its log up once a process).
func fakeGPUs(t *testing.T, gpus int64, ncclFlags ...string) fakeNode {
	t.Helper()
	env := dltest.Env(
		dltest.Build(t, "../gpu/cuda/testdata/fakecuda.c", "libcuda.so.1"),
		dltest.Build(t, "../gpu/cuda/testdata/fakecublas.c", "libcublas.so.13"),
		dltest.Build(t, "../gpu/cuda/testdata/fakecublaslt.c", "libcublasLt.so.13"),
		dltest.Build(t, "../gpu/nvml/testdata/fakenvml.c", "libnvidia-ml.so.1"),
		dltest.Build(t, "../gpu/cuda/testdata/fakenccl.c", "libnccl.so.2", ncclFlags...))
	var cudaSet, nvmlSet func(key string, v int64) int32
	var ncclDebug func(buf *byte, n int32) int32
	var bads []func(buf *byte, n int32) int32
	for _, lib := range []struct {
		which dl.Lib
		set   *func(string, int64) int32
		set1  string
		bad   string
	}{{dl.CUDA, &cudaSet, "fake_cuda_set", "fake_cuda_bad"}, {dl.NVML, &nvmlSet, "fake_nvml_set", "fake_nvml_bad"},
		{dl.CUBLAS, nil, "", "fake_cublas_bad"}, {dl.CUBLASLt, nil, "", "fake_cublaslt_bad"}, {dl.NCCL, nil, "", "fake_nccl_bad"}} {
		l, err := dl.OpenEnv(lib.which, env)
		if err != nil {
			t.Fatal(err)
		}
		var bad func(buf *byte, n int32) int32
		syms := []dl.Symbol{dl.Sym(&bad, lib.bad)}
		if lib.set != nil {
			syms = append(syms, dl.Sym(lib.set, lib.set1))
		}
		if lib.which == dl.NCCL {
			syms = append(syms, dl.Sym(&ncclDebug, "fake_nccl_debug"))
		}
		if _, err := l.Bind(syms); err != nil {
			t.Fatal(err)
		}
		bads = append(bads, bad)
	}
	cudaSet("reset", 0)
	nvmlSet("reset", 0)
	cudaSet("gpus", gpus)
	cudaSet("vclock", 1)
	nvmlSet("gpus", gpus)
	nvmlSet("nvlink", 4)
	saved := openGPUs
	openGPUs = func() ([]gpu.Device, error) { return openCUDA(cuda.Options{Env: &env}) }
	t.Cleanup(func() {
		openGPUs = saved
		cudaSet("reset", 0)
		nvmlSet("reset", 0)
		buf := make([]byte, 256)
		for i, bad := range bads {
			if n := bad(&buf[0], int32(len(buf))); n != 0 {
				t.Errorf("fake library %d saw %d bad calls; last: %s", i, n, strings.TrimRight(string(buf), "\x00"))
			}
		}
	})
	return fakeNode{env: &env, cudaSet: cudaSet, ncclDebug: ncclDebug}
}

// The whole pipeline on three fake H200s: `gpuscout bench --quick` opens
// them through the real purego bindings, measures every group, checks the
// products (the fake cuBLAS computes them), writes the report, and every
// figure is the hand calculation from the fakes' virtual clock
// (fakecuda.c's table): 2·64³ FLOP at 256 FLOP/ns is 2048 ns, 0.256
// TFLOP/s; and so on below. advise then takes the report's NCCL bus
// bandwidth as the GPU link of an 8×H200 node.
func TestBenchFakeGPUsEndToEnd(t *testing.T) {
	fakeGPUs(t, 3)
	old := benchTune
	t.Cleanup(func() { benchTune = old })
	benchTune = func(p *bench.Plan) {
		p.GemmN, p.CopyBytes, p.HostBytes, p.JitterIters = 64, 1<<20, 1<<20, 10
		p.SampleTarget = 0 // one operation per sample: the C products are slow
		p.P2PBytes, p.NCCLMaxBytes, p.NCCLStep = 1<<20, 1<<20, 4
	}
	tty := progressTTY
	t.Cleanup(func() { progressTTY = tty })
	progressTTY = func(io.Writer) bool { return true }
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, errOut, code := run(t, "bench", "--quick", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, stdout)
	}
	// Progress: one line per measurement, and one before the all-reduce
	// (creating the communicators takes seconds on eight GPUs).
	for _, want := range []string{"gpu2  gemm_fp16              2.048 TFLOP/s (0.2% of datasheet)\n", "gpu0>gpu1 p2p                    172 GB/s (38.2% of datasheet)\n",
		"node  NCCL all-reduce over every GPU, a sweep of message sizes ...\nnode  nccl_allreduce_busbw   87.81 GB/s (19.5% of datasheet)\n"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress has no %q:\n%s", want, errOut)
		}
	}
	doc := readReport(t, out)
	if len(doc.GPUs) != 3 || doc.GPUs[2].Name != "NVIDIA H200" || doc.GPUs[0].CanonicalGPU == nil {
		t.Fatalf("gpus %+v", doc.GPUs)
	}
	// The fingerprint the fake NVML gives (the recorded H200's): PCIe Gen5 x16, boost clock 1980 MHz.
	if g := doc.GPUs[0]; g.PCIe != "Gen5 x16" || g.MaxSMClockMHz != 1980 {
		t.Errorf("gpu0 fingerprint: pcie %q, max SM clock %d; want Gen5 x16, 1980", g.PCIe, g.MaxSMClockMHz)
	}
	const mib = 1 << 20
	for _, tc := range []struct {
		name, dev string
		want      float64
	}{
		{"gemm_fp32", "gpu0", 2 * 64 * 64 * 64 / 2048.0 / 1e3}, // 524288 FLOP in 2048 ns
		{"gemm_tf32", "gpu1", 1.024},
		{"gemm_bf16", "gpu2", 2.048},
		{"gemm_fp16", "gpu0", 2.048},
		{"hbm_copy", "gpu1", 2 * mib / (mib / 2048.0)}, // read + written in n/2048 ns: 4096 GB/s
		{"h2d", "gpu2", 64},
		{"d2h", "gpu0", 64},
		{"jitter_cv", "gpu0", 0}, // every fill takes 1 µs
		{"jitter_p99_p50", "gpu1", 1},
		{"p2p", "gpu0>gpu1", mib / (2000 + mib/256.0)}, // 1 MiB in 2 µs + n/256 ns: 172.0 GB/s
		{"p2p", "gpu2>gpu1", mib / (2000 + mib/256.0)},
		{"p2p_latency", "gpu1>gpu2", 2 + 8/256.0/1e3}, // 8 B: 2.00003 µs
		// 1 MiB over 3 GPUs in 5 µs + 4/3·n/128 ns; busbw = algbw × 4/3: 87.81 GB/s
		{"nccl_allreduce_busbw", "node", mib / (5000 + 4.0/3*mib/128) * 4 / 3},
		{"nccl_allreduce_latency", "node", 5 + 4.0/3*8/128/1e3}, // 8 B: 5.00008 µs
	} {
		m := doc.Find(tc.name, tc.dev)
		if m == nil || !m.OK() {
			t.Errorf("%s on %s: %+v, want %v", tc.name, tc.dev, m, tc.want)
			continue
		}
		if math.Abs(*m.Value-tc.want) > 1e-4*math.Max(tc.want, 1e-3) {
			t.Errorf("%s on %s = %v, want %v (%s)", tc.name, tc.dev, *m.Value, tc.want, m.Detail)
		}
	}
	if m := doc.Find("jitter_cv", "gpu2"); *m.Value != 0 || *m.CV != 0 {
		t.Errorf("jitter_cv of equal times = %v, want exactly 0", *m.Value)
	}
	// FP8 through the fake cuBLASLt: 2·64³ FLOP at 4096 FLOP/ns is 128 ns, 4.096 TFLOP/s
	// (0.207% of the H200's 1979 TFLOP/s dense FP8); E4M3 inputs, a bf16 output.
	if m := doc.Find("gemm_fp8", "gpu0"); m == nil || !m.OK() || math.Abs(*m.Value-4.096) > 1e-9 || m.Efficiency == nil || *m.Efficiency != 0.00207 ||
		!strings.Contains(m.Detail, "E4M3 inputs, fp32 accumulation, bf16 output") {
		t.Errorf("gemm_fp8: %+v, want 4.096 TFLOP/s through cuBLASLt, 0.00207 of the datasheet", m)
	}
	if m := doc.Find("gemm_bf16", "gpu0"); m.Efficiency == nil || !strings.Contains(m.Detail, "64³, 1 per sample; 8 outputs checked") {
		t.Errorf("gemm_bf16 %+v: want an efficiency against the H200 and the check in the detail", m)
	}
	pairs := 0
	for _, m := range doc.Measurements {
		if m.Name == "p2p" {
			pairs++
			// 172.0 GB/s of NVLink4's 450 GB/s one way (the catalog's H200)
			if m.Link != "NVLink" || !strings.HasPrefix(m.Detail, "NVLink, peer access; 1 MiB copies") || m.Efficiency == nil || *m.Efficiency != 0.3822 {
				t.Errorf("p2p %s: link %q, efficiency %v, %q", m.Device, m.Link, ptrText(m.Efficiency), m.Detail)
			}
		}
	}
	if bus := doc.Find("nccl_allreduce_busbw", "node"); pairs != 6 || len(bus.Sweep) != 10 || bus.Sweep[0].Bytes != 8 ||
		!strings.HasPrefix(bus.Detail, "fp32 sum over 3 GPUs (NCCL 2.27.3) of 1 MiB") {
		t.Errorf("%d pairs; sweep %+v; detail %q", pairs, bus.Sweep, bus.Detail)
	}
	for _, want := range []string{"gpu0>gpu1", "p2p_latency", "µs", "nccl_allreduce_busbw", "P2P links (NVML): NVLink between all 6 ordered pairs.",
		"NCCL all-reduce busbw by message size, GB/s: 8 B 0.002133, 32 B 0.008533"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table has no %q:\n%s", want, stdout)
		}
	}
	// advise --bench reads the all-reduce's bus bandwidth from this report.
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r, err := benchreport.Decode(bytes.NewReader(b))
	if err != nil || math.Abs(r.NCCLBusBWGBs-*doc.Find("nccl_allreduce_busbw", "node").Value) > 0 || r.GEMMTFLOPS["bf16"] != 2.048 {
		t.Errorf("advise reads %+v, %v", r, err)
	}
	adv, errOut, code := run(t, "advise", "--scenario", "llm-finetuning", "--gpu", "H200:8", "--for", "7d", "--bench", out, "-o", "json")
	if code != 0 || !strings.Contains(adv, "at 87.81 GB/s bus bandwidth (GPU link 87.81") || !strings.Contains(adv, "87.81 GB/s NCCL bus bandwidth (measured, "+out+")") {
		t.Errorf("advise --bench on the report: exit %d, %s; want the measured NCCL bus bandwidth as the GPU link", code, errOut)
	}
}

func ptrText(p *float64) string {
	if p == nil {
		return "null"
	}
	return render.Figure(*p)
}

// A driver call that hangs ends the process, but `bench --out` first
// writes what was measured, ending with the watchdog's entry: the report
// on disk at the moment the process would exit says where it stopped.
func TestBenchHangWritesThePartialReport(t *testing.T) {
	node := fakeGPUs(t, 1)
	out := filepath.Join(t.TempDir(), "r.json")
	atExit := make(chan []byte, 1)
	openGPUs = func() ([]gpu.Device, error) {
		return openCUDA(cuda.Options{Env: node.env, CallTimeout: 300 * time.Millisecond, Exit: func(string) {
			b, _ := os.ReadFile(out)
			atExit <- b
			node.cudaSet("hang_ms", 0) // let the hung call return: the test goes on
		}})
	}
	old := benchTune
	t.Cleanup(func() { benchTune = old })
	benchTune = func(p *bench.Plan) { p.GemmN, p.CopyBytes, p.HostBytes, p.SampleTarget = 64, 1<<20, 1<<20, 0 }
	node.cudaSet("hang_ms", 1500) // the first synchronisation hangs, five times the watchdog's 300 ms
	stdout, errOut, code := run(t, "bench", "--quick", "--only", "hbm", "--out", out)
	if code != 0 {
		t.Logf("exit %d: %s\n%s", code, errOut, stdout)
	}
	var b []byte
	select {
	case b = <-atExit:
	case <-time.After(30 * time.Second):
		t.Fatal("the watchdog did not fire")
	}
	doc, err := benchreport.DecodeDocument(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the report on disk at the exit: %v\n%s", err, b)
	}
	last := doc.Measurements[len(doc.Measurements)-1]
	if last.Name != bench.NameWatchdog || last.Status != benchreport.StatusFailed || !strings.Contains(last.Detail, "the run stopped in group hbm") {
		t.Errorf("the last entry is %+v; want the watchdog's, naming the group", last)
	}
	if doc.Host.CPUModel == "" && doc.Host.Cores == 0 {
		t.Errorf("the partial report does not say which machine it measured: %+v", doc.Host)
	}
}
