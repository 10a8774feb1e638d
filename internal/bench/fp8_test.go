package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// runNode runs bench over a driver node's GPUs with the catalog, small
// products (32³, one per sample) and a short sustained run.
func runNode(t *testing.T, n *driverNode, req Request) *benchreport.Document {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	rn := &Runner{Catalog: c, Tune: func(p *Plan) {
		p.GemmN, p.Warmup, p.Samples, p.Checks = 32, 2, 3, 8
		p.SampleTarget, p.SampleEvery = 0, 50*time.Millisecond
	}}
	req.Device = DeviceGPU
	doc, err := rn.Run(context.Background(), n.devs, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	if fs := Failures(doc); len(fs) != 0 {
		t.Errorf("failures: %+v", fs)
	}
	return doc
}

// Issue 26, item 6: on the fake H200 (compute capability 9.0) gemm_fp8 is
// measured through cuBLASLt, like the other types: on the fake driver's
// virtual clock a 32³ FP8 product of 65536 FLOP takes 16 ns (4096
// FLOP/ns): 4.096 TFLOP/s, 0.2070% of the catalog's H200 FP8 figure (1979
// TFLOP/s dense); its outputs are checked; and the sustained run, left
// only FP8, sustains it. Before, gemm_fp8 was not_measured.
func TestFP8OnTheFakeH200(t *testing.T) {
	n := newDriverNode(t, 1, map[string]int64{"vclock": 1})
	doc := runNode(t, n, Request{Only: []string{GroupGEMM, GroupSustain}, Sustain: 200 * time.Millisecond, DTypes: []gpu.DType{gpu.FP8}})
	for _, name := range []string{"gemm_fp8", "gemm_fp8_burst", "gemm_fp8_sustained"} {
		m := find(t, doc, name, "gpu0")
		if m.Status != benchreport.StatusOK || m.Value == nil || !near(*m.Value, 4.096) {
			t.Errorf("%s: %s %v (%s), want 4.096 TFLOP/s", name, m.Status, ptr(m.Value), m.Detail)
			continue
		}
		if m.Efficiency == nil || *m.Efficiency != 0.00207 {
			t.Errorf("%s: efficiency %v, want 4.096 / 1979 = 0.00207", name, ptr(m.Efficiency))
		}
	}
	if d := find(t, doc, "gemm_fp8", "gpu0").Detail; !strings.HasPrefix(d, "32³, 1 per sample; 8 outputs checked, max relative error ") ||
		!strings.HasSuffix(d, "; E4M3 inputs, fp32 accumulation, bf16 output, A transposed (cuBLASLt's TN layout)") {
		t.Errorf("gemm_fp8 detail %q", d)
	}
}

// A GPU below compute capability 8.9 (the fake at 8.0, as an A100) stays
// unsupported for FP8, and the sustained run takes bf16.
func TestFP8BelowAdaStaysUnsupported(t *testing.T) {
	n := newDriverNode(t, 1, map[string]int64{"vclock": 1, "cc": 80})
	doc := runNode(t, n, Request{Only: []string{GroupGEMM, GroupSustain}, Sustain: 100 * time.Millisecond, DTypes: []gpu.DType{gpu.FP8, gpu.BF16}})
	if g := doc.GPUs[0]; g.ComputeCap != "8.0" {
		t.Errorf("compute capability %q, want 8.0", g.ComputeCap)
	}
	if m := find(t, doc, "gemm_fp8", "gpu0"); m.Status != benchreport.StatusUnsupported || !strings.Contains(m.Detail, "compute capability 8.0 has no FP8 tensor cores") {
		t.Errorf("gemm_fp8: %s %q, want unsupported", m.Status, m.Detail)
	}
	if m := find(t, doc, "gemm_bf16_sustained", "gpu0"); m.Status != benchreport.StatusOK {
		t.Errorf("gemm_bf16_sustained: %s %q", m.Status, m.Detail)
	}
	if doc.Find("gemm_fp8_sustained", "gpu0") != nil {
		t.Error("an unsupported type was sustained")
	}
}

// Without cuBLASLt on the machine the H200's FP8 is not measured (the
// GPU has it; the library is missing), with the fix, and nothing fails.
func TestFP8WithoutCuBLASLtIsNotMeasured(t *testing.T) {
	n := newDriverNodeLibs(t, 1, map[string]int64{"vclock": 1}, false)
	doc := runNode(t, n, Request{Only: []string{GroupGEMM}, DTypes: []gpu.DType{gpu.FP8, gpu.BF16}})
	m := find(t, doc, "gemm_fp8", "gpu0")
	if m.Status != benchreport.StatusNotMeasured || !strings.Contains(m.Detail, "gemm fp8 needs cuBLASLt") || !strings.Contains(m.Detail, "fix: install cuBLAS, which brings cuBLASLt") {
		t.Errorf("gemm_fp8: %s %q, want not_measured with the fix", m.Status, m.Detail)
	}
	if m := find(t, doc, "gemm_bf16", "gpu0"); m.Status != benchreport.StatusOK {
		t.Errorf("gemm_bf16: %s %q", m.Status, m.Detail)
	}
}

// The FP8 check reads A transposed, as the device takes it: a device that
// read it untransposed (the layout cuBLASLt refuses for FP8) fails the
// check, and one that reads it right passes with bf16's bound.
func TestFP8CheckReadsATransposed(t *testing.T) {
	for _, plain := range []bool{false, true} {
		f := newFake("NVIDIA H200")
		f.plainA = plain
		doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Only: []string{GroupGEMM}, DTypes: []gpu.DType{gpu.FP8}}, func(p *Plan) { p.GemmN, p.SampleTarget = 32, 0 })
		m := find(t, doc, "gemm_fp8", "gpu0")
		switch {
		case !plain && m.Status != benchreport.StatusOK:
			t.Errorf("A read transposed: %s %q", m.Status, m.Detail)
		case plain && (m.Status != benchreport.StatusFailed || !strings.Contains(m.Detail, "wrong result")):
			t.Errorf("A read untransposed: %s %q, want a wrong result", m.Status, m.Detail)
		}
	}
	if b := ErrorBound(gpu.FP8); b != ErrorBound(gpu.BF16) {
		t.Errorf("ErrorBound(fp8) = %g, want bf16's %g: FP8 writes bf16", b, ErrorBound(gpu.BF16))
	}
}

// FP8's efficiency is against the catalog's dense FP8 figure where the GPU
// has one (the H200's 1979 TFLOP/s) and unknown where the catalog has none
// (the L20, an Ada GPU with FP8 tensor cores but no FP8 figure sourced):
// never invented.
func TestFP8EfficiencyNeedsTheDatasheet(t *testing.T) {
	for _, tc := range []struct {
		gpu  string
		want *float64
	}{{"NVIDIA H200", benchreport.F(3.312e-5)}, {"NVIDIA L20", nil}} {
		f := newFake(tc.gpu)
		f.gemmTime = func(gpu.DType, int) time.Duration { return time.Microsecond }
		doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Only: []string{GroupGEMM}, DTypes: []gpu.DType{gpu.FP8}}, func(p *Plan) { p.GemmN, p.SampleTarget = 32, 0 })
		m := find(t, doc, "gemm_fp8", "gpu0")
		// 2·32³ FLOP in 1 µs: 0.065536 TFLOP/s
		if m.Status != benchreport.StatusOK || !near(*m.Value, 0.065536) {
			t.Errorf("%s: %s %v (%s)", tc.gpu, m.Status, ptr(m.Value), m.Detail)
		}
		if (m.Efficiency == nil) != (tc.want == nil) || (m.Efficiency != nil && *m.Efficiency != *tc.want) {
			t.Errorf("%s: efficiency %v, want %v", tc.gpu, ptr(m.Efficiency), ptr(tc.want))
		}
	}
}
