package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/host"
)

// The same measurements run for real on the host CPU (at small sizes): every
// figure measured, checked against float64, with no efficiency (no datasheet)
// and no GPU in the report.
func TestCPUDeviceForReal(t *testing.T) {
	dev := host.New(host.Config{Name: "test CPU", Threads: 2})
	rn := &Runner{Tune: func(p *Plan) { p.GemmN, p.CopyBytes, p.Samples, p.JitterIters = 64, 4<<20, 3, 20 }}
	doc, err := rn.Run(context.Background(), []gpu.Device{dev}, Request{Device: DeviceCPU, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.GPUs) != 0 {
		t.Errorf("gpus = %+v, want none", doc.GPUs)
	}
	var names []string
	for _, m := range doc.Measurements {
		names = append(names, m.Name)
		if m.Device != "cpu" || !m.OK() || *m.Value < 0 || m.Efficiency != nil {
			t.Errorf("%s: device %s status %s (%s) value %v efficiency %v", m.Name, m.Device, m.Status, m.Detail, m.Value, m.Efficiency)
		}
	}
	if got := strings.Join(names, ","); got != "gemm_fp32,gemm_fp64,cpu_mem_copy,jitter_cv,jitter_p99_p50,jitter_copy_cv,jitter_copy_p99_p50,jitter_host_cv,jitter_host_p99_p50" {
		t.Errorf("measurements %s", got)
	}
	if m := doc.Find("gemm_fp32", "cpu"); m == nil || *m.Value <= 0 || !strings.Contains(m.Detail, "64³") {
		t.Errorf("gemm_fp32 = %+v", m)
	}
	// What the CPU cannot do is not applicable, not failed.
	doc, err = rn.Run(context.Background(), []gpu.Device{dev}, Request{Device: DeviceCPU, Only: []string{"gemm", "h2d", "nccl"}, DTypes: []gpu.DType{gpu.BF16}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range doc.Measurements {
		if m.Status != benchreport.StatusUnsupported {
			t.Errorf("%s on the CPU: %s, want unsupported", m.Name, m.Status)
		}
	}
	if len(doc.Measurements) != 3 || len(Failures(doc)) != 0 {
		t.Errorf("got %+v", doc.Measurements)
	}
}

// A step that fails is recorded as failed and the run goes on.
func TestFailedStepsAreRecorded(t *testing.T) {
	f := newFake("NVIDIA H200")
	f.allocLimit = 1 << 10 // the 8×8 fp32 matrices fit, the 1 MiB copy buffers do not
	doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Only: []string{"gemm", "hbm", "h2d"}, DTypes: []gpu.DType{gpu.FP32}}, nil)
	var failed []string
	for _, m := range Failures(doc) {
		failed = append(failed, m.Name+": "+m.Detail)
	}
	if got := strings.Join(failed, "; "); got != "hbm_copy: out of memory; h2d: out of memory" {
		t.Errorf("failures: %s", got)
	}
	if m := doc.Find("gemm_fp32", "gpu0"); m == nil || !m.OK() {
		t.Errorf("gemm_fp32 = %+v, want measured", m)
	}
	// A cancelled run stops and says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&Runner{Tune: tiny}).Run(ctx, []gpu.Device{newFake("x")}, Request{Device: DeviceGPU}); err == nil {
		t.Error("a cancelled run returned no error")
	}
}
