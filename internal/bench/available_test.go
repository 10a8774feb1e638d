package bench

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/benchreport"
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
