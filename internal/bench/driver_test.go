package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

func TestMain(m *testing.M) { dltest.Main(m) }

// driverNode is the CUDA binding over the fake libcuda, libcublas,
// libcublasLt and NVML of internal/gpu, in the fake driver's real-time
// mode: each call costs the host time, work runs asynchronously after what
// is queued before it, and events read when the GPU reaches them, so that
// bench's own way of timing is what is tested.
type driverNode struct {
	env   dl.Env
	cuda  func(key string, v int64) int32
	nvml  func(key string, v int64) int32
	lt    func(key string, v int32) int32 // the fake cuBLASLt's settings; nil without it
	devs  []gpu.Device
	check func()
}

func newDriverNode(t *testing.T, gpus int64, settings map[string]int64) *driverNode {
	t.Helper()
	return newDriverNodeLibs(t, gpus, settings, true)
}

// newDriverNodeLibs is newDriverNode, with or without the fake cuBLASLt,
// and with the libraries of extra (folders: a fake libnccl's) found too.
func newDriverNodeLibs(t *testing.T, gpus int64, settings map[string]int64, withLt bool, extra ...string) *driverNode {
	t.Helper()
	dirs := []string{
		dltest.Build(t, "../gpu/cuda/testdata/fakecuda.c", "libcuda.so.1"),
		dltest.Build(t, "../gpu/cuda/testdata/fakecublas.c", "libcublas.so.13"),
		dltest.Build(t, "../gpu/nvml/testdata/fakenvml.c", "libnvidia-ml.so.1"),
	}
	dirs = append(dirs, extra...)
	if withLt {
		dirs = append(dirs, dltest.Build(t, "../gpu/cuda/testdata/fakecublaslt.c", "libcublasLt.so.13"))
	}
	n := &driverNode{env: dltest.Env(dirs...)}
	var cudaBad, nvBad, ltBad func(buf *byte, n int32) int32
	ltReset := func() {}
	libs := []struct {
		lib  dl.Lib
		syms []dl.Symbol
	}{
		{dl.CUDA, []dl.Symbol{dl.Sym(&n.cuda, "fake_cuda_set"), dl.Sym(&cudaBad, "fake_cuda_bad")}},
		{dl.NVML, []dl.Symbol{dl.Sym(&n.nvml, "fake_nvml_set"), dl.Sym(&nvBad, "fake_nvml_bad")}},
	}
	if withLt {
		libs = append(libs, struct {
			lib  dl.Lib
			syms []dl.Symbol
		}{dl.CUBLASLt, []dl.Symbol{dl.Sym(&ltBad, "fake_cublaslt_bad"), dl.Sym(&n.lt, "fake_cublaslt_set")}})
		ltReset = func() { n.lt("reset", 0) }
	}
	for _, b := range libs {
		lib, err := dl.OpenEnv(b.lib, n.env)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lib.Bind(b.syms); err != nil {
			t.Fatal(err)
		}
	}
	n.cuda("reset", 0)
	n.nvml("reset", 0)
	ltReset()
	n.cuda("gpus", gpus)
	n.nvml("gpus", gpus)
	for k, v := range settings {
		if n.cuda(k, v) != 0 && n.nvml(k, v) != 0 {
			t.Fatalf("no fake knows %s", k)
		}
	}
	devs, err := cuda.Open(cuda.Options{Env: &n.env, Exit: func(msg string) { t.Errorf("watchdog: %s", msg) }})
	if err != nil {
		t.Fatal(err)
	}
	n.devs = devs
	t.Cleanup(func() {
		for _, d := range devs {
			d.Close()
		}
		buf := make([]byte, 256)
		bads := map[string]func(*byte, int32) int32{"libcuda": cudaBad, "NVML": nvBad}
		if withLt {
			bads["libcublasLt"] = ltBad
		}
		for name, bad := range bads {
			if k := bad(&buf[0], int32(len(buf))); k != 0 {
				t.Errorf("the fake %s saw %d bad calls; last: %s", name, k, strings.TrimRight(string(buf), "\x00"))
			}
		}
		n.cuda("reset", 0)
		n.nvml("reset", 0)
		ltReset()
	})
	return n
}

// A sustained run on a GPU that slows down by a quarter once it has been
// busy 90% of 50 ms (its power cap), with calls that cost the host 200 µs:
// fp32 32³ products of 2.048 ms. Burst is the cool GPU's 3.2e-5 TFLOP/s
// (65536 FLOP in 2.048 ms), sustained the capped one's 2.56e-5 (2.56 ms),
// at 700 W, with the clocks down to 1584 MHz. Timing one product at a
// time, with a wait and the host's calls between products, let the GPU
// cool in the gaps and read the cool figure as sustained: 25% high, at
// lower power and utilisation.
func TestSustainKeepsTheGPUBusy(t *testing.T) {
	n := newDriverNode(t, 1, map[string]int64{"async": 1, "call_ns": 200_000, "scale": 8000, "throttle_pct": 25, "heat_ms": 50})
	rn := &Runner{Tune: func(p *Plan) {
		p.GemmN, p.Warmup, p.Checks = 32, 2, 4
		p.SampleEvery, p.SampleTarget = 50*time.Millisecond, 5*time.Millisecond
	}}
	dltest.Timing(t, func(errorf func(string, ...any)) {
		time.Sleep(100 * time.Millisecond) // idle: the fake GPU cools between tries
		doc, err := rn.Run(context.Background(), n.devs, Request{Device: DeviceGPU, Only: []string{GroupSustain}, Sustain: 600 * time.Millisecond, DTypes: []gpu.DType{gpu.FP32}})
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Validate(); err != nil {
			t.Fatal(err)
		}
		burst, sust := find(t, doc, "gemm_fp32_burst", "gpu0"), find(t, doc, "gemm_fp32_sustained", "gpu0")
		within := func(got *float64, want, tol float64) bool {
			return got != nil && *got >= want*(1-tol) && *got <= want*(1+tol)
		}
		if !within(sust.Value, 2.56e-5, 0.02) {
			errorf("sustained %v TFLOP/s, want the capped GPU's 2.56e-5 ± 2%% (%s)", ptr(sust.Value), sust.Detail)
		}
		if !within(burst.Value, 3.2e-5, 0.03) {
			errorf("burst %v TFLOP/s, want the cool GPU's 3.2e-5 ± 3%% (%s)", ptr(burst.Value), burst.Detail)
		}
		if u := find(t, doc, "sustain_gpu_util", "gpu0"); u.Value == nil || *u.Value < 85 {
			errorf("utilisation %v%% under sustained load, want at least 85%%", ptr(u.Value))
		}
		if p := find(t, doc, "sustain_power_w", "gpu0"); p.Value == nil || *p.Value < 600 {
			errorf("power %v W under sustained load, want near the 700 W cap", ptr(p.Value))
		}
		if c := find(t, doc, "sustain_temp_c", "gpu0"); c.Value == nil || *c.Value < 70 || c.Unit != "°C" {
			errorf("temperature %v %s under sustained load, want about 78 °C", ptr(c.Value), c.Unit)
		}
		if !strings.Contains(strings.Join(sust.ClockReasons, ","), "sw_power_cap") {
			errorf("clock reasons %v, want sw_power_cap", sust.ClockReasons)
		}
	})
}

// Sustained on every GPU at once: each GPU's figures say so, and the node
// gets the sum of their power.
func TestSustainAllAtOnce(t *testing.T) {
	n := newDriverNode(t, 2, map[string]int64{"async": 1, "call_ns": 50_000, "scale": 4000})
	rn := &Runner{Tune: func(p *Plan) {
		p.GemmN, p.Warmup, p.Checks = 32, 1, 2
		p.SampleEvery, p.SampleTarget = 40*time.Millisecond, 4*time.Millisecond
	}}
	doc, err := rn.Run(context.Background(), n.devs, Request{Device: DeviceGPU, Only: []string{GroupSustain}, Sustain: 300 * time.Millisecond,
		DTypes: []gpu.DType{gpu.FP32}, SustainAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range doc.Measurements {
		names = append(names, m.Name+"@"+m.Device)
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"gemm_fp32_sustained@gpu0", "gemm_fp32_sustained@gpu1", "sustain_power_w@gpu1", "sustain_node_power_w@node"} {
		if !strings.Contains(got, want) {
			t.Errorf("measurements %s lack %s", got, want)
		}
	}
	if !strings.HasPrefix(names[0], "gemm_fp32_burst@gpu0") || !strings.HasSuffix(got, "sustain_node_power_w@node") {
		t.Errorf("order %s: want gpu0's, gpu1's, then the node's", got)
	}
	p0, p1, node := find(t, doc, "sustain_power_w", "gpu0"), find(t, doc, "sustain_power_w", "gpu1"), find(t, doc, "sustain_node_power_w", "node")
	if !near(*node.Value, *p0.Value+*p1.Value) || node.Unit != "W" {
		t.Errorf("node power %v, want %v + %v", *node.Value, *p0.Value, *p1.Value)
	}
	if d := find(t, doc, "gemm_fp32_sustained", "gpu1").Detail; !strings.Contains(d, "all 2 GPUs at once") {
		t.Errorf("detail %q does not say the GPUs ran together", d)
	}
	if err := (Request{Device: DeviceGPU, SustainAll: true}).Validate(); err == nil || err.Error() != "--sustain-all needs --sustain above 0 (e.g. --sustain 30s)" {
		t.Errorf("--sustain-all without --sustain: %v", err)
	}
	_ = benchreport.DeviceNode
}

// A driver call that hangs ends the process (the watchdog cannot interrupt
// it), but first the report of what was measured is handed to OnHang,
// ending with a failed watchdog entry that names the call and the group.
func TestHangWritesWhatWasMeasured(t *testing.T) {
	n := newDriverNode(t, 1, nil)
	for _, d := range n.devs {
		d.Close()
	}
	exits := make(chan string, 4)
	// A deadline far above any call's time on a busy machine, far below the hang.
	devs, err := cuda.Open(cuda.Options{Env: &n.env, CallTimeout: 300 * time.Millisecond, Exit: func(msg string) { exits <- msg }})
	if err != nil {
		t.Fatal(err)
	}
	defer devs[0].Close()
	partials := make(chan *benchreport.Document, 4)
	rn := &Runner{
		Tune:   func(p *Plan) { tiny(p); p.CopyBytes, p.HostBytes = 1<<20, 1<<20 },
		OnHang: func(d *benchreport.Document) { partials <- d; n.cuda("hang_ms", 0) },
		Progress: func(e Event) {
			if e.M != nil && e.M.Name == "hbm_copy" {
				n.cuda("hang_ms", 1500) // the next synchronisation hangs, five times the watchdog's deadline
			}
		},
	}
	doc, err := rn.Run(context.Background(), devs, Request{Device: DeviceGPU, Only: []string{GroupMemory, GroupH2D}})
	n.cuda("hang_ms", 0)
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	select {
	case msg = <-exits:
	case <-time.After(30 * time.Second):
		t.Fatal("the watchdog did not fire")
	}
	var partial *benchreport.Document
	select {
	case partial = <-partials:
	default:
		t.Fatal("OnHang was not called before the exit")
	}
	if err := partial.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range partial.Measurements {
		got = append(got, m.Name+"@"+m.Device+"="+m.Status)
	}
	if strings.Join(got, " ") != "hbm_copy@gpu0=ok watchdog@gpu0=failed" {
		t.Errorf("partial report %v; want the copy measured, then the watchdog's entry", got)
	}
	last := partial.Measurements[len(partial.Measurements)-1]
	if !strings.HasPrefix(last.Detail, msg) || !strings.Contains(last.Detail, "has not returned after 300ms") || !strings.HasSuffix(last.Detail, "the run stopped in group h2d: what follows was not measured") {
		t.Errorf("watchdog detail %q (exit message %q)", last.Detail, msg)
	}
	if len(partial.GPUs) != 1 || partial.GPUs[0].Name != "NVIDIA H200" {
		t.Errorf("partial GPUs %+v", partial.GPUs)
	}
	if len(doc.Measurements) < 2 || doc.Find(NameWatchdog, "gpu0") != nil {
		t.Errorf("the run's own report: %+v", doc.Measurements)
	}
}

// Every tenth wait for the GPU returns 20 ms late (the host thread kept off
// its CPU, as a hypervisor or a noisy neighbour does): the GPU's clock
// sees nothing of it, the host's launch-to-completion times do, and the
// report has both, each saying which clock it is.
func TestJitterOnBothClocks(t *testing.T) {
	n := newDriverNode(t, 1, map[string]int64{"async": 1, "call_ns": 20_000, "scale": 1, "stall_every": 10, "stall_us": 20_000})
	rn := &Runner{Tune: func(p *Plan) { tiny(p); p.Warmup, p.JitterIters = 0, 50 }}
	dltest.Timing(t, func(errorf func(string, ...any)) {
		doc, err := rn.Run(context.Background(), n.devs, Request{Device: DeviceGPU, Only: []string{GroupJitter}})
		if err != nil {
			t.Fatal(err)
		}
		gpuTail, hostTail := find(t, doc, "jitter_p99_p50", "gpu0"), find(t, doc, "jitter_host_p99_p50", "gpu0")
		if *gpuTail.P99US >= 10_000 || !strings.Contains(gpuTail.Detail, "on the GPU's clock (CUDA events)") {
			errorf("GPU clock: p99 %v µs (%s); want none of the 20 ms stalls: they are the host's", *gpuTail.P99US, gpuTail.Detail)
		}
		if *hostTail.P99US < 20_000 || !strings.Contains(hostTail.Detail, "on the host's monotonic clock") {
			errorf("host clock: p99/p50 %v, p99 %v µs (%s); want the 20 ms stalls in the tail", *hostTail.Value, *hostTail.P99US, hostTail.Detail)
		}
	})
}
