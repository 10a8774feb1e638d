package bench

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// tiny shrinks a plan to sizes a fake computes in microseconds.
func tiny(p *Plan) {
	p.GemmN, p.CopyBytes, p.HostBytes, p.SmallCopyBytes = 8, 1<<20, 1<<20, 4096
	p.Samples, p.Warmup, p.JitterIters = 5, 2, 4
}

func runFake(t *testing.T, dev gpu.Device, now func() time.Time, req Request, tune func(*Plan)) *benchreport.Document {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	rn := &Runner{Catalog: c, Now: now, Tune: func(p *Plan) {
		tiny(p)
		if tune != nil {
			tune(p)
		}
	}}
	doc, err := rn.Run(context.Background(), []gpu.Device{dev}, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(); err != nil {
		t.Fatalf("the report breaks its schema: %v", err)
	}
	return doc
}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }

func find(t *testing.T, d *benchreport.Document, name, dev string) benchreport.Measurement {
	t.Helper()
	m := d.Find(name, dev)
	if m == nil {
		t.Fatalf("no %s on %s in %+v", name, dev, d.Measurements)
	}
	return *m
}

// On a fake H200 each figure is the hand-computed one: 2·8³ FLOP in 1 µs
// is 0.001024 TFLOP/s; 1 MiB read and written in 1 ms is 2.097152 GB/s; a
// 1 MiB upload in 1 ms 1.048576 GB/s. Efficiency divides by the catalog's
// H200 datasheet figure; fp8 unsupported, fp16 wrong.
func TestRunArithmetic(t *testing.T) {
	f := newFake("NVIDIA H200")
	f.gemmTime = func(dt gpu.DType, call int) time.Duration { return time.Microsecond }
	f.hostTime = func(n int64) time.Duration {
		if n < 1<<20 {
			return 0 // operand uploads and sampled read-backs
		}
		return time.Millisecond
	}
	f.unsupported = map[gpu.DType]bool{gpu.FP8: true}
	f.wrong = map[gpu.DType]bool{gpu.FP16: true}
	doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Quick: true}, nil)

	c, _ := catalog.Default()
	h200 := c.GPU("H200-SXM-141GB")
	if len(doc.GPUs) != 1 || doc.GPUs[0].CanonicalGPU == nil || *doc.GPUs[0].CanonicalGPU != h200.Name {
		t.Fatalf("gpus = %+v, want the H200 resolved to %s", doc.GPUs, h200.Name)
	}
	for _, tc := range []struct {
		name, status string
		value        float64
		datasheet    float64
	}{
		{"gemm_bf16", "ok", 0.001024, h200.BF16.Value},
		{"gemm_fp32", "ok", 0.001024, h200.FP32.Value},
		{"gemm_tf32", "ok", 0.001024, h200.TF32.Value},
		{"gemm_fp16", "failed", 0, 0},
		{"gemm_fp8", "unsupported", 0, 0},
		{"hbm_copy", "ok", 2.097152, h200.MemoryBandwidth.Value},
		{"h2d", "ok", 1.048576, 0},
		{"d2h", "ok", 1.048576, 0},
	} {
		m := find(t, doc, tc.name, "gpu0")
		if m.Status != tc.status {
			t.Errorf("%s: status %s (%s), want %s", tc.name, m.Status, m.Detail, tc.status)
			continue
		}
		if tc.status != "ok" {
			if m.Value != nil || m.Efficiency != nil {
				t.Errorf("%s: %s with a value %v / efficiency %v", tc.name, m.Status, m.Value, m.Efficiency)
			}
			continue
		}
		if !near(*m.Value, tc.value) {
			t.Errorf("%s = %v, want %v", tc.name, *m.Value, tc.value)
		}
		if tc.datasheet == 0 {
			if m.Efficiency != nil {
				t.Errorf("%s: efficiency %v, want null (no datasheet figure)", tc.name, *m.Efficiency)
			}
		} else if m.Efficiency == nil || math.Abs(*m.Efficiency-tc.value/tc.datasheet) > 1e-3*tc.value/tc.datasheet {
			t.Errorf("%s: efficiency %v, want %v", tc.name, m.Efficiency, tc.value/tc.datasheet)
		}
		if m.Samples != 5 {
			t.Errorf("%s: %d samples, want 5", tc.name, m.Samples)
		}
	}
	// A 1 µs product repeats 5000 times... capped at maxReps per sample.
	if d := find(t, doc, "gemm_bf16", "gpu0").Detail; !strings.Contains(d, "8³, 32 per sample; 8 outputs checked") {
		t.Errorf("gemm detail %q", d)
	}
	if d := find(t, doc, "gemm_fp16", "gpu0").Detail; !strings.Contains(d, "wrong result: C[0,0]") {
		t.Errorf("fp16 detail %q, want the wrong element named", d)
	}
	if fs := Failures(doc); len(fs) != 1 || fs[0].Name != "gemm_fp16" {
		t.Errorf("failures %+v, want gemm_fp16 only (unsupported is not a failure)", fs)
	}
	// One GPU: P2P and NCCL are not applicable, on the node.
	for _, name := range []string{"p2p", "nccl_allreduce_busbw"} {
		if m := find(t, doc, name, "node"); m.Status != "unsupported" || !strings.Contains(m.Detail, "needs two or more") {
			t.Errorf("%s: %s %q", name, m.Status, m.Detail)
		}
	}
	if want := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC); !doc.CreatedAt.Equal(want) {
		t.Errorf("created_at %v, want the clock at the start, %v", doc.CreatedAt, want)
	}
}

// Jitter: fills timed 1, 2, 3, 4 µs: mean 2.5, population sd √1.25, so CV
// 0.4472; p50 2.5 µs, p99 3.97 µs (interpolated), p99/p50 1.588; on the
// GPU's clock and on the host's.
func TestJitterArithmetic(t *testing.T) {
	f := newFake("NVIDIA H200")
	f.fillTime = func(call int) time.Duration { return time.Duration(call%4+1) * time.Microsecond }
	doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Only: []string{"jitter"}}, func(p *Plan) { p.Warmup = 0 })
	// The buffer fill before the loop is call 0; the timed fills are calls 1..4.
	cv, tail := find(t, doc, "jitter_cv", "gpu0"), find(t, doc, "jitter_p99_p50", "gpu0")
	if !near(*cv.Value, math.Sqrt(1.25)/2.5) || !near(*cv.P50US, 2.5) || !near(*cv.P99US, 3.97) {
		t.Errorf("jitter_cv %v p50 %v p99 %v; want 0.4472, 2.5, 3.97", *cv.Value, *cv.P50US, *cv.P99US)
	}
	if !near(*tail.Value, 3.97/2.5) || tail.Unit != "ratio" || tail.Samples != 4 {
		t.Errorf("jitter_p99_p50 %v %s n=%d; want 1.588 ratio n=4", *tail.Value, tail.Unit, tail.Samples)
	}
	if !strings.HasSuffix(cv.Detail, "4 single-word fills, each timed on the GPU's clock (CUDA events): the device's own spread") {
		t.Errorf("jitter_cv detail %q", cv.Detail)
	}
	// The host's clock, launch to completion: the fake's clock moves by
	// each fill's time (calls 5..8: 2, 3, 4, 1 µs), so the same figures.
	hcv, htail := find(t, doc, "jitter_host_cv", "gpu0"), find(t, doc, "jitter_host_p99_p50", "gpu0")
	if !near(*hcv.Value, math.Sqrt(1.25)/2.5) || !near(*hcv.P50US, 2.5) || !near(*htail.Value, 3.97/2.5) || hcv.Samples != 4 ||
		!strings.Contains(hcv.Detail, "each timed on the host's monotonic clock from its launch to the return of the wait for it") {
		t.Errorf("jitter_host_cv %v p50 %v, p99/p50 %v (%s)", *hcv.Value, *hcv.P50US, *htail.Value, hcv.Detail)
	}
	if len(doc.Measurements) != 6 {
		t.Errorf("--only jitter gave %d measurements, want 6", len(doc.Measurements))
	}
}

// Sustained: products take 1 ms for the first 100 (two of them warm-up),
// then 1.25 ms (the power cap); a batch is five products (5 ms, the
// sample target), and the fake takes each product's time on the wall clock
// too, so that the sampler's goroutine, every 100 ms, sees the load. The
// run is 1 s of device time: 19 batches of 1 ms products, one of three 1 ms
// and two 1.25 ms, then 144 of 1.25 ms (820 products). Burst is the median
// of the first two batches (ten products at 1 ms: 1024 FLOP → 1.024e-6
// TFLOP/s), sustained the last quarter's (41 batches at 1.25 ms:
// 8.192e-7 TFLOP/s).
func TestSustain(t *testing.T) {
	f := newFake("NVIDIA H200")
	f.sleep = true
	f.hostTime = func(int64) time.Duration { return 0 }
	f.gemmTime = func(dt gpu.DType, call int) time.Duration {
		if call < 100 {
			return time.Millisecond
		}
		return 1250 * time.Microsecond
	}
	s := &fakeSampler{fakeDev: f, script: []gpu.Sample{
		{UtilGPU: 0.96, SMClockMHz: 1500, PowerW: 690, TempC: 61, ReasonsActive: []string{"sw_power_cap"}},
		{UtilGPU: 0.98, SMClockMHz: 1530, PowerW: math.NaN(), TempC: math.NaN()},
		{UtilGPU: 0.99, SMClockMHz: -1, PowerW: 700, TempC: 64, ReasonsActive: []string{"hw_thermal_slowdown", "sw_power_cap"}},
	}}
	began := time.Now()
	doc := runFake(t, s, f.now, Request{Device: DeviceGPU, Only: []string{"sustain"}, Sustain: time.Second, DTypes: []gpu.DType{gpu.FP8, gpu.BF16}}, nil)
	ticks := int(time.Since(began) / (100 * time.Millisecond)) // the wall clock's (sleeps run long)
	burst, sust := find(t, doc, "gemm_bf16_burst", "gpu0"), find(t, doc, "gemm_bf16_sustained", "gpu0")
	if !near(*burst.Value, 1.024e-6) || burst.Samples != 2 {
		t.Errorf("burst %v over %d, want 1.024e-6 over 2 batches", *burst.Value, burst.Samples)
	}
	if !near(*sust.Value, 8.192e-7) || sust.Samples != 41 || !strings.Contains(sust.Detail, "median of the last 41 batches of 5 products (of 820 products)") {
		t.Errorf("sustained %v over %d, want 8.192e-7 over 41 (%s)", *sust.Value, sust.Samples, sust.Detail)
	}
	s.mu.Lock()
	taken := s.taken
	s.mu.Unlock()
	if taken < 5 || taken > ticks+2 {
		t.Errorf("%d telemetry samples in %d periods of 100 ms, want one a period and one at the end", taken, ticks)
	}
	if strings.Join(sust.ClockReasons, ",") != "sw_power_cap,hw_thermal_slowdown" {
		t.Errorf("clock reasons %v", sust.ClockReasons)
	}
	// The samples the fake handed out, summarised by hand.
	var util, clock, power, temp []float64
	for i := range taken {
		x := s.script[i%3]
		util = append(util, 100*x.UtilGPU)
		if x.SMClockMHz > 0 {
			clock = append(clock, float64(x.SMClockMHz))
		}
		if !math.IsNaN(x.PowerW) {
			power = append(power, x.PowerW)
		}
		if !math.IsNaN(x.TempC) {
			temp = append(temp, x.TempC)
		}
	}
	mean := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	m := mean(util)
	var ss float64
	for _, u := range util {
		ss += (u - m) * (u - m)
	}
	for _, tc := range []struct {
		name, unit string
		want       float64
		n          int
	}{
		{"sustain_gpu_util", "%", m, len(util)},
		{"sustain_gpu_util_stdev", "%", math.Sqrt(ss / float64(len(util))), len(util)},
		{"sustain_sm_clock_mhz", "MHz", mean(clock), len(clock)},
		{"sustain_power_w", "W", mean(power), len(power)},
		{"sustain_temp_c", "°C", mean(temp), len(temp)},
	} {
		got := find(t, doc, tc.name, "gpu0")
		if !near(*got.Value, tc.want) || got.Samples != tc.n || got.Unit != tc.unit {
			t.Errorf("%s = %v %s over %d, want %v %s over %d", tc.name, *got.Value, got.Unit, got.Samples, tc.want, tc.unit, tc.n)
		}
	}
	if d := find(t, doc, "sustain_temp_c", "gpu0").Detail; !strings.Contains(d, "hottest sample 64 °C") {
		t.Errorf("temperature detail %q", d)
	}
	// bf16 goes before fp8 whatever the order of --dtypes: one sustained type only.
	if doc.Find("gemm_fp8_sustained", "gpu0") != nil {
		t.Error("an unsupported type left a sustained entry")
	}
}

// Two GPUs: each is measured under its own name. These fakes offer neither
// peer copies nor a communicator, so the multi-GPU figures are entries on
// the node saying why they are not measured (not failures).
func TestTwoGPUs(t *testing.T) {
	a, b := newFake("NVIDIA H200"), newFake("NVIDIA H200")
	b.info.Index = 1
	rn := &Runner{Tune: tiny}
	doc, err := rn.Run(context.Background(), []gpu.Device{a, b}, Request{Device: DeviceGPU, Only: []string{"hbm", "p2p", "nccl"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range doc.Measurements {
		got = append(got, m.Name+"@"+m.Device+"="+m.Status)
	}
	if s := strings.Join(got, " "); s != "hbm_copy@gpu0=ok hbm_copy@gpu1=ok p2p@node=not_measured nccl_allreduce_busbw@node=not_measured" {
		t.Errorf("measurements: %s", s)
	}
	if m := doc.Find("nccl_allreduce_busbw", "node"); !strings.HasPrefix(m.Detail, "not measured: an NCCL all-reduce over 2 GPUs needs a collective library") {
		t.Errorf("detail %q", m.Detail)
	}
	if m := doc.Find("p2p", "node"); m.Detail != "not measured: a peer-to-peer copy over 2 GPUs needs peer copies, which gpu0's driver binding does not offer" {
		t.Errorf("detail %q", m.Detail)
	}
	if len(doc.GPUs) != 2 || doc.GPUs[1].Index != 1 || len(Failures(doc)) != 0 {
		t.Errorf("gpus %+v, failures %v", doc.GPUs, Failures(doc))
	}
	if err := doc.Validate(); err != nil {
		t.Error(err)
	}
}

// NVIDIA_TF32_OVERRIDE=0 turns TF32 off in cuBLAS whatever bench asks:
// the report records it on the fp32 and tf32 figures and says that the
// tf32 one is then an fp32 figure; other measurements are untouched.
func TestTF32OverrideRecorded(t *testing.T) {
	t.Setenv("NVIDIA_TF32_OVERRIDE", "0")
	f := newFake("NVIDIA H200")
	doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Only: []string{"gemm", "hbm"}, DTypes: []gpu.DType{gpu.FP32, gpu.TF32, gpu.BF16}}, nil)
	for _, name := range []string{"gemm_fp32", "gemm_tf32"} {
		m := find(t, doc, name, "gpu0")
		if m.Settings["NVIDIA_TF32_OVERRIDE"] != "0" || len(m.Settings) != 1 {
			t.Errorf("%s settings %v, want NVIDIA_TF32_OVERRIDE=0", name, m.Settings)
		}
	}
	if d := find(t, doc, "gemm_tf32", "gpu0").Detail; !strings.HasSuffix(d, "NVIDIA_TF32_OVERRIDE=0: the libraries computed this TF32 product in full fp32, so it is an fp32 figure") {
		t.Errorf("tf32 detail %q", d)
	}
	for _, name := range []string{"gemm_bf16", "hbm_copy"} {
		if m := find(t, doc, name, "gpu0"); m.Settings != nil {
			t.Errorf("%s settings %v, want none", name, m.Settings)
		}
	}
}

// The host copies say where their pinned buffer was: on the GPU's NUMA
// node (the driving thread bound there), or why not; the GPU entry has
// the node.
func TestHostCopyNUMA(t *testing.T) {
	f := newFake("NVIDIA H200")
	f.info.NUMANode, f.info.NUMABinding = 1, "the GPU's thread bound to NUMA node 1's CPUs 16-31, its pinned host memory preferred on node 1"
	doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Only: []string{"h2d", "d2h"}}, nil)
	for _, name := range []string{"h2d", "d2h"} {
		if d := find(t, doc, name, "gpu0").Detail; !strings.HasSuffix(d, "pinned host memory, 5 per sample; "+f.info.NUMABinding) {
			t.Errorf("%s detail %q", name, d)
		}
	}
	if n := doc.GPUs[0].NUMANode; n == nil || *n != 1 {
		t.Errorf("gpu entry numa_node %v, want 1", n)
	}
}

// A type the GPU has but gpuscout cannot drive yet (FP8 without cuBLASLt)
// is not measured, never unsupported, and the sustained run takes the next
// type.
func TestNotImplementedIsNotMeasured(t *testing.T) {
	f := newFake("NVIDIA H200")
	f.notImplemented = map[gpu.DType]bool{gpu.FP8: true}
	doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Only: []string{"gemm"}, DTypes: []gpu.DType{gpu.FP8, gpu.BF16}}, nil)
	if m := find(t, doc, "gemm_fp8", "gpu0"); m.Status != benchreport.StatusNotMeasured || m.Value != nil || !strings.Contains(m.Detail, "not implemented") {
		t.Errorf("gemm_fp8: %s %q, want not_measured", m.Status, m.Detail)
	}
	if fs := Failures(doc); len(fs) != 0 {
		t.Errorf("failures %v", fs)
	}
}
