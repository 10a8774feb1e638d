package nvml

import (
	"fmt"
	"os"
)

// ComputeMode is an nvmlComputeMode_t: who may create a CUDA context on
// the GPU.
type ComputeMode int32

// The compute modes (nvml.h).
const (
	ComputeDefault          ComputeMode = 0 // any number of contexts
	ComputeExclusiveThread  ComputeMode = 1 // removed since CUDA 4.0
	ComputeProhibited       ComputeMode = 2 // no context at all
	ComputeExclusiveProcess ComputeMode = 3 // one process at a time
)

// String is nvidia-smi's name for the mode ("Default",
// "Exclusive_Process"), the one `nvidia-smi -c` takes.
func (m ComputeMode) String() string {
	switch m {
	case ComputeDefault:
		return "Default"
	case ComputeExclusiveThread:
		return "Exclusive_Thread"
	case ComputeProhibited:
		return "Prohibited"
	case ComputeExclusiveProcess:
		return "Exclusive_Process"
	}
	return fmt.Sprintf("mode %d", int32(m))
}

// ComputeMode reads the GPU's compute mode (nvmlDeviceGetComputeMode).
func (d *Device) ComputeMode() (ComputeMode, error) {
	if d.n.f.computeMode == nil {
		return 0, missing("nvmlDeviceGetComputeMode")
	}
	var m int32
	if err := check("nvmlDeviceGetComputeMode", d.n.f.computeMode(d.Parent().h, &m)); err != nil {
		return 0, err
	}
	return ComputeMode(m), nil
}

// RemappedRows is the GPU's memory row remapping (Ampere and newer): rows
// replaced by spares after correctable and uncorrectable errors, a
// remapping waiting for a GPU reset, and whether one ever failed (no spare
// left: the memory is failing).
type RemappedRows struct {
	Correctable, Uncorrectable int
	Pending, Failure           bool
}

// RemappedRows reads nvmlDeviceGetRemappedRows. Older GPUs and GPUs with MIG
// on answer NOT_SUPPORTED (IsNotSupported).
func (d *Device) RemappedRows() (RemappedRows, error) {
	if d.n.f.remappedRows == nil {
		return RemappedRows{}, missing("nvmlDeviceGetRemappedRows")
	}
	var corr, unc, pending, failure uint32
	if err := check("nvmlDeviceGetRemappedRows", d.n.f.remappedRows(d.Parent().h, &corr, &unc, &pending, &failure)); err != nil {
		return RemappedRows{}, err
	}
	return RemappedRows{Correctable: int(corr), Uncorrectable: int(unc), Pending: pending != 0, Failure: failure != 0}, nil
}

// ProcessName is the name NVML gives a process (its command, as the driver
// sees it; a full path for most programs); "" when NVML cannot say.
func (n *NVML) ProcessName(pid int) string {
	if n.f.processName == nil || pid <= 0 || pid > 1<<31-1 {
		return ""
	}
	buf := make([]byte, 256)
	if n.f.processName(uint32(pid), &buf[0], uint32(len(buf))) != int32(Success) {
		return ""
	}
	return cString(buf)
}

// OtherProcesses lists the compute processes on the device other than this
// one (which appears there once it has opened the GPU), with their names
// where NVML gives them. For a MIG instance, those of the instance.
func (d *Device) OtherProcesses() ([]Process, error) {
	ps, err := d.ComputeProcesses()
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var out []Process
	for _, p := range ps {
		if p.PID == self {
			continue
		}
		p.Name = d.n.ProcessName(p.PID)
		out = append(out, p)
	}
	return out, nil
}
