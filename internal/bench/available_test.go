package bench

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// busyPeer is a fake GPU other programs compute on.
type busyPeer struct {
	*fakePeer
	procs []gpu.Process
	err   error
}

func (b *busyPeer) OtherProcesses() ([]gpu.Process, error) { return b.procs, b.err }

// Issue 26, item 1 in bench: GPU 1 did not open (the binding lists it as a
// gpu.Unopened). It is in the report with its error and the fix; GPUs 0
// and 2 are measured, and the peer matrix is theirs.
func TestUnopenedGPUReportedOthersMeasured(t *testing.T) {
	ps := newPeers(3)
	openErr := errors.New("GPU 1 could not be opened: GPU 1: cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICE_UNAVAILABLE (46); fix: sudo nvidia-smi -i 1 -c DEFAULT")
	devs := []gpu.Device{ps[0], &gpu.Unopened{Desc: gpu.Info{Index: 1, Name: "NVIDIA H200", UUID: "GPU-1", NUMANode: -1}, Err: openErr}, ps[2]}
	rn := &Runner{Tune: multiPlan}
	doc, err := rn.Run(context.Background(), devs, Request{Device: DeviceGPU, Only: []string{GroupMemory, GroupP2P}})
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range doc.Measurements {
		got = append(got, m.Name+"@"+m.Device+":"+m.Status)
	}
	want := []string{"hbm_copy@gpu0:ok", "gpu_open@gpu1:failed", "hbm_copy@gpu2:ok",
		"p2p@gpu0>gpu2:ok", "p2p_latency@gpu0>gpu2:ok", "p2p@gpu2>gpu0:ok", "p2p_latency@gpu2>gpu0:ok"}
	if !slices.Equal(got, want) {
		t.Errorf("measurements\n got %v\nwant %v", got, want)
	}
	if m := doc.Find(NameOpen, "gpu1"); m == nil || m.Detail != "not measured: "+openErr.Error() {
		t.Errorf("gpu1's entry: %+v", m)
	}
	if len(doc.GPUs) != 3 || doc.GPUs[1].Name != "NVIDIA H200" || doc.GPUs[1].UUID != "GPU-1" {
		t.Errorf("gpus: %+v, want all three listed", doc.GPUs)
	}
	if fails := Failures(doc); len(fails) != 1 || fails[0].Name != NameOpen {
		t.Errorf("failures: %+v, want the unopened GPU's alone", fails)
	}
}

// Issue 26, item 10: a GPU another program computes on is not measured
// (its figures would be shared), naming the processes and the way out;
// --allow-busy measures it and every figure says so. A GPU whose processes
// cannot be listed is measured, and the first figure says why it was not
// checked.
func TestBusyGPURefusedUnlessAllowed(t *testing.T) {
	procs := []gpu.Process{{PID: 4242, UsedBytes: 512 << 20, Name: "python3"}, {PID: 4243, UsedBytes: -1}}
	mk := func() []gpu.Device {
		ps := newPeers(2)
		return []gpu.Device{&busyPeer{fakePeer: ps[0]}, &busyPeer{fakePeer: ps[1], procs: procs}}
	}
	rn := &Runner{Tune: multiPlan}
	req := Request{Device: DeviceGPU, Only: []string{GroupMemory}}
	doc, err := rn.Run(context.Background(), mk(), req)
	if err != nil {
		t.Fatal(err)
	}
	if m := doc.Find("hbm_copy", "gpu0"); m == nil || m.Status != benchreport.StatusOK || strings.Contains(m.Detail, "allow-busy") {
		t.Errorf("idle gpu0: %+v", m)
	}
	if doc.Find("hbm_copy", "gpu1") != nil {
		t.Error("the busy GPU was measured")
	}
	m := doc.Find(NameIdle, "gpu1")
	if m == nil || m.Status != benchreport.StatusFailed {
		t.Fatalf("busy gpu1: %+v", m)
	}
	for _, w := range []string{"processes 4242 (python3, 512 MiB), 4243 compute on it", "--allow-busy", "CUDA_VISIBLE_DEVICES"} {
		if !strings.Contains(m.Detail, w) {
			t.Errorf("detail %q lacks %q", m.Detail, w)
		}
	}

	req.AllowBusy = true
	doc, err = rn.Run(context.Background(), mk(), req)
	if err != nil {
		t.Fatal(err)
	}
	m = doc.Find("hbm_copy", "gpu1")
	if m == nil || m.Status != benchreport.StatusOK ||
		!strings.HasSuffix(m.Detail, "; measured while processes 4242 (python3, 512 MiB), 4243 used the GPU (--allow-busy): the figures are shared with them") {
		t.Errorf("gpu1 with --allow-busy: %+v", m)
	}

	ps := newPeers(1)
	doc, err = rn.Run(context.Background(), []gpu.Device{&busyPeer{fakePeer: ps[0], err: errors.New("nvmlDeviceGetComputeRunningProcesses_v3: NVML_ERROR_NO_PERMISSION (4)")}},
		Request{Device: DeviceGPU, Only: []string{GroupMemory}})
	if err != nil {
		t.Fatal(err)
	}
	if m := doc.Find("hbm_copy", "gpu0"); m == nil || m.Status != benchreport.StatusOK || !strings.Contains(m.Detail, "other programs on the GPU not checked: nvmlDevice") {
		t.Errorf("unlisted processes: %+v", m)
	}
}

// Buffers are sized from the memory free at open (cuMemGetInfo), not the
// total: an 80 GB GPU with 6 GiB free gets the plan of a 6 GiB one.
func TestPlanSizesFromFreeMemory(t *testing.T) {
	full := PlanFor(gpu.Info{Name: "A100", MemoryBytes: 80 << 30, Multiprocs: 108}, Request{Device: DeviceGPU})
	tight := PlanFor(gpu.Info{Name: "A100", MemoryBytes: 80 << 30, MemoryFreeBytes: 6 << 30, Multiprocs: 108}, Request{Device: DeviceGPU})
	asIf := PlanFor(gpu.Info{Name: "A100", MemoryBytes: 6 << 30, Multiprocs: 108}, Request{Device: DeviceGPU})
	if tight != asIf {
		t.Errorf("80 GB with 6 GiB free: %+v\nwant the 6 GiB plan %+v", tight, asIf)
	}
	if tight.CopyBytes >= full.CopyBytes || tight.NCCLMaxBytes >= full.NCCLMaxBytes {
		t.Errorf("free memory did not shrink the plan: %+v vs %+v", tight, full)
	}
}

// A MIG slice is named and sized as the slice, and rated against its share
// of its GPU's datasheet: a 1g.18gb instance of an H200 has 16 of the 132
// SMs, so its bf16 GEMM compares with 989 × 16/132 TFLOP/s. Its memory
// bandwidth has no datasheet figure (its share of the memory system is not
// its share of the SMs), and the report names no catalog GPU for it, so
// that no reader rates it against the whole H200.
func TestMIGSliceRatedAgainstItsShare(t *testing.T) {
	f := newFake("NVIDIA H200 MIG 1g.18gb")
	f.info.MIG, f.info.Multiprocs, f.info.MemoryBytes, f.info.MemoryFreeBytes = "enabled", 16, 17716740096, 17179869184
	f.gemmTime = func(gpu.DType, int) time.Duration { return time.Microsecond }
	doc := runFake(t, f, f.now, Request{Device: DeviceGPU, Only: []string{"gemm", "hbm"}, DTypes: []gpu.DType{gpu.BF16}}, nil)
	c, _ := catalog.Default()
	h200 := c.GPU("H200-SXM-141GB")
	g := doc.GPUs[0]
	if g.Name != "NVIDIA H200 MIG 1g.18gb" || g.MemoryGiB != 16.5 || g.CanonicalGPU != nil || g.Multiprocs != 16 || g.MIG != "enabled" {
		t.Errorf("gpu entry %+v: want the slice's name and 16.5 GiB, no canonical GPU", g)
	}
	bf16 := find(t, doc, "gemm_bf16", "gpu0")
	want := *bf16.Value / (h200.BF16.Value * 16 / 132)
	if bf16.Efficiency == nil || math.Abs(*bf16.Efficiency-want) > 1e-3*want {
		t.Errorf("gemm_bf16 efficiency %v, want %v (against 16/132 of %v TFLOP/s)", ptr(bf16.Efficiency), want, h200.BF16.Value)
	}
	if !strings.HasSuffix(bf16.Detail, "MIG instance 1g.18gb of H200-SXM-141GB: efficiency against 16 of its 132 SMs' share of the datasheet") {
		t.Errorf("gemm_bf16 detail %q", bf16.Detail)
	}
	hbm := find(t, doc, "hbm_copy", "gpu0")
	if hbm.Efficiency != nil || !strings.HasSuffix(hbm.Detail, "its share of the memory bandwidth is not known, so no efficiency (not comparable with the whole GPU's datasheet)") {
		t.Errorf("hbm_copy efficiency %v, detail %q", ptr(hbm.Efficiency), hbm.Detail)
	}
	// A GPU whose SM count bench does not know is not rated at all.
	f2 := newFake("NVIDIA B200 MIG 1g.23gb")
	f2.info.MIG, f2.info.Multiprocs = "enabled", 18
	doc = runFake(t, f2, f2.now, Request{Device: DeviceGPU, Only: []string{"gemm"}, DTypes: []gpu.DType{gpu.BF16}}, nil)
	if m := find(t, doc, "gemm_bf16", "gpu0"); m.Efficiency != nil || !strings.Contains(m.Detail, "its share of the GPU's SMs is not known, so no efficiency") {
		t.Errorf("B200 slice: efficiency %v, detail %q", ptr(m.Efficiency), m.Detail)
	}
}
