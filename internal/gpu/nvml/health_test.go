package nvml

import (
	"github.com/gpuscout/gpuscout/internal/gpu"
	"testing"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// gpuSet binds the fake's per-GPU control.
func (f *fake) gpuSet(t *testing.T) func(gpu int32, key string, v int64) int32 {
	t.Helper()
	var set func(gpu int32, key string, v int64) int32
	if _, err := f.Library().Bind([]dl.Symbol{dl.Sym(&set, "fake_nvml_gpu")}); err != nil {
		t.Fatal(err)
	}
	return set
}

// Compute mode, remapped rows, other processes with their names: what
// doctor reports and bench checks before measuring.
func TestHealthQueries(t *testing.T) {
	n := openFake(t)
	n.set("gpus", 2)
	set := n.gpuSet(t)
	set(1, "compute_mode", int64(ComputeExclusiveProcess))
	set(1, "procs", 2)
	set(1, "remap_unc", 3)
	set(1, "remap_pending", 1)
	d0, _ := n.Device(0)
	d1, _ := n.Device(1)
	if m, err := d0.ComputeMode(); err != nil || m != ComputeDefault || m.String() != "Default" {
		t.Errorf("GPU 0 compute mode %v, %v", m, err)
	}
	if m, err := d1.ComputeMode(); err != nil || m.String() != "Exclusive_Process" {
		t.Errorf("GPU 1 compute mode %v, %v", m, err)
	}
	if r, err := d1.RemappedRows(); err != nil || r != (RemappedRows{Uncorrectable: 3, Pending: true}) {
		t.Errorf("GPU 1 remapped rows %+v, %v", r, err)
	}
	ps, err := d1.OtherProcesses()
	if err != nil || gpu.DescribeProcesses(ps) != "4342 (python3, 512 MiB), 4343 (python3)" {
		t.Errorf("GPU 1 processes %v, %v", ps, err)
	}
	if n.ProcessName(1) != "" {
		t.Error("a process NVML does not know has a name")
	}
	if got := ComputeMode(9).String(); got != "mode 9" {
		t.Errorf("unknown mode: %s", got)
	}
}

// A CUDA device's UUID finds its NVML device: a GPU's directly, a MIG
// instance's ("GPU-" as cuDeviceGetUuid is formatted, "MIG-" in NVML) as a
// MIG device whose Parent is the GPU; modes and rows are read from the
// parent, where NVML answers them (remapped rows: NOT_SUPPORTED under MIG).
func TestDeviceByUUIDAndMIG(t *testing.T) {
	n := openFake(t)
	n.set("gpus", 2)
	set := n.gpuSet(t)
	d, err := n.DeviceByUUID("GPU-00000000-0000-0000-0000-000000000001")
	if err != nil || d.Index() != 1 || d.IsMIG() {
		t.Fatalf("GPU 1 by UUID: %+v, %v", d, err)
	}
	if _, err := n.DeviceByUUID("GPU-b3a15e0d-9c4f-5e1a-8f2c-000000000000"); err == nil {
		t.Error("a MIG UUID found with MIG off")
	}
	set(0, "mig", 1)
	m, err := n.DeviceByUUID("GPU-b3a15e0d-9c4f-5e1a-8f2c-000000000000")
	if err != nil || !m.IsMIG() || m.Parent().Index() != 0 || m.Index() != 0 {
		t.Fatalf("MIG instance by its CUDA UUID: %+v, %v", m, err)
	}
	if u, err := m.UUID(); err != nil || u != "MIG-b3a15e0d-9c4f-5e1a-8f2c-000000000000" {
		t.Errorf("MIG UUID %q, %v", u, err)
	}
	if mode, err := m.ComputeMode(); err != nil || mode != ComputeDefault {
		t.Errorf("MIG compute mode %v, %v", mode, err)
	}
	if _, err := m.RemappedRows(); !IsNotSupported(err) {
		t.Errorf("remapped rows under MIG: %v, want NOT_SUPPORTED", err)
	}
	if got, err := n.FindDevice("GPU-b3a15e0d-9c4f-5e1a-8f2c-000000000000", "0000:00:06.0"); err != nil || !got.IsMIG() {
		t.Errorf("FindDevice of the MIG instance: %+v, %v", got, err)
	}
	if mem, err := m.Memory(); err != nil || mem.Total != 17716740096 {
		t.Errorf("MIG instance memory %+v, %v", mem, err)
	}
	if mode, err := m.Parent().MIG(); err != nil || mode != "enabled" {
		t.Errorf("the parent's MIG mode: %q, %v", mode, err)
	}
}
