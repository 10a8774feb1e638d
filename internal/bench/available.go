package bench

import (
	"errors"
	"fmt"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// The measurements that stand for a GPU that was not measured.
const (
	// NameOpen is a GPU the driver lists but that could not be opened
	// (gpu.Unopened): failed, its detail the driver's error and the fix.
	NameOpen = "gpu_open"
	// NameIdle is a GPU other programs compute on: failed, naming them,
	// unless --allow-busy.
	NameIdle = "gpu_idle"
)

// unavailable says whether the GPU must be left out, and the measurement
// that says why: it did not open, or other processes use it (unless
// allowBusy, when it is measured and each figure says so). A GPU whose
// processes cannot be listed (no NVML) is measured.
func (r *run) unavailable(allowBusy bool) (benchreport.Measurement, bool) {
	if err := gpu.OpenError(r.dev); err != nil {
		return benchreport.Measurement{Name: NameOpen, Device: r.name, Status: benchreport.StatusFailed,
			Detail: "not measured: " + err.Error()}, true
	}
	pl, ok := r.dev.(gpu.ProcessLister)
	if !ok {
		return benchreport.Measurement{}, false
	}
	ps, err := pl.OtherProcesses()
	if err != nil || len(ps) == 0 {
		if err != nil && !errors.Is(err, gpu.ErrUnsupported) {
			r.unchecked = "other programs on the GPU not checked: " + err.Error()
		}
		return benchreport.Measurement{}, false
	}
	who := describeProcesses(ps)
	if allowBusy {
		r.shared = fmt.Sprintf("measured while %s used the GPU (--allow-busy): the figures are shared with %s", who, them(len(ps)))
		return benchreport.Measurement{}, false
	}
	return benchreport.Measurement{Name: NameIdle, Device: r.name, Status: benchreport.StatusFailed,
		Detail: fmt.Sprintf("not measured: %s %s on it, so its figures would be shared with %s; "+
			"fix: wait for %s or stop %s, measure the other GPUs (CUDA_VISIBLE_DEVICES), or pass --allow-busy to measure it anyway",
			who, map[bool]string{true: "computes", false: "compute"}[len(ps) == 1], them(len(ps)), them(len(ps)), them(len(ps)))}, true
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// describeProcesses writes "process 4242 (python3, 512 MiB)" or
// "processes 4242 (python3), 4243".
func describeProcesses(ps []gpu.Process) string {
	if len(ps) == 1 {
		return "process " + gpu.DescribeProcesses(ps)
	}
	return "processes " + gpu.DescribeProcesses(ps)
}
