package doctor

import (
	"fmt"
	"strings"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// driverBound are the libraries bench loads whose CUDA release must be one
// the driver supports: a newer one loads, then fails at its first call.
var driverBound = map[string]struct {
	lib dl.Lib
	pip string // the pip wheel, without its -cuNN
	pkg string
}{
	"cublas":   {dl.CUBLAS, "nvidia-cublas", "the CUDA %d toolkit's libcublas"},
	"cublaslt": {dl.CUBLASLt, "nvidia-cublas", "the CUDA %d toolkit's libcublas, which brings libcublasLt"},
	"nccl":     {dl.NCCL, "nvidia-nccl", "libnccl2 for CUDA %d from NVIDIA's repository"},
}

// builtFor is the CUDA major release a library was built for: the file's
// name or folder, else (cuBLAS, cuBLASLt) its own version's major; 0 when
// unknown.
func builtFor(l Library) int {
	b, ok := driverBound[l.Key]
	if !ok {
		return 0
	}
	if n := dl.BuiltFor(b.lib, l.Path); n > 0 {
		return n
	}
	if l.Key == "cublas" || l.Key == "cublaslt" {
		if v := parseVersion(l.ShownVersion()); len(v) > 0 && v[0] >= 11 {
			return v[0]
		}
	}
	return 0
}

// driverCUDANum is the driver's CUDA version as cuDriverGetVersion writes
// it (12040), 0 when unknown.
func (f Facts) driverCUDANum() int {
	_, c := f.driverVersions()
	if f.Runtime != nil && f.Runtime.DriverCUDA != "" {
		c = f.Runtime.DriverCUDA
	}
	v := parseVersion(c)
	if len(v) < 2 {
		return 0
	}
	return v[0]*1000 + v[1]*10
}

// tooNewFix says how to get a library the driver can run, or a driver that
// runs the library.
func tooNewFix(key string, driverCUDA, built int) string {
	b := driverBound[key]
	major := driverCUDA / 1000
	fix := fmt.Sprintf("install the CUDA %d build (pip install %s-cu%d, or %s)", major, b.pip, major, fmt.Sprintf(b.pkg, major))
	if f := dl.MinDriver(built); f != "" {
		fix += fmt.Sprintf(", or upgrade the NVIDIA driver to %s or newer (CUDA %d's minimum; source: %s)", f, built, dl.CompatSource)
	}
	return fix
}

// libDriverCheck amends an ok check of cuBLAS, cuBLASLt or NCCL with the
// driver's view: a library built for a newer CUDA than the driver supports
// (bench cannot use it), the newer files bench passes over, and a cuBLAS
// or cuBLASLt that loads but cannot start on a GPU (the runtime probe).
func libDriverCheck(f Facts, l Library, c Check) Check {
	if _, ok := driverBound[l.Key]; !ok {
		return c
	}
	drv := f.driverCUDANum()
	if built := builtFor(l); built > 0 && !dl.Runs(built, drv) {
		c.Status = StatusWarn
		c.Detail += fmt.Sprintf(", built for CUDA %d, but the driver supports CUDA %s: it loads, then fails at its first call", built, dl.CUDAVersion(drv))
		c.Fix = tooNewFix(l.Key, drv, built)
		return c
	}
	if len(l.Skipped) > 0 {
		c.Detail += "; passed over as too new for the driver: " + strings.Join(l.Skipped, "; ")
	}
	if (l.Key == "cublas" || l.Key == "cublaslt") && f.Runtime != nil {
		// What the runtime probe saw of this library on each GPU.
		seen := func(g RuntimeGPU) (lib, failed string, skipped []string) {
			if l.Key == "cublaslt" {
				return g.Lt, g.LtError, g.LtSkipped
			}
			return g.BLAS, g.BLASError, g.BLASSkipped
		}
		for _, g := range f.Runtime.GPUs {
			if _, failed, _ := seen(g); failed != "" {
				d, fix := splitFix(failed)
				c.Status, c.Fix = StatusWarn, fix
				c.Detail += fmt.Sprintf("; but on GPU %d %s", g.Index, d)
				return c
			}
		}
		for _, g := range f.Runtime.GPUs {
			if lib, _, skipped := seen(g); len(skipped) > 0 && lib != "" {
				c.Detail += fmt.Sprintf("; bench uses %s (passed over: %s)", lib, strings.Join(skipped, "; "))
				break
			}
		}
	}
	return c
}

// tooNewCheck is a cuBLAS or NCCL found only in builds the driver cannot
// run.
func tooNewCheck(f Facts, l Library) Check {
	drv := f.driverCUDANum()
	built := builtFor(l)
	what := "bench's matrix products cannot run"
	switch l.Key {
	case "nccl":
		what = "bench's all-reduce cannot run"
	case "cublaslt":
		what = "bench's FP8 products cannot run"
	}
	c := checkf(l.Key, StatusWarn, "", "%s found at %s, but only built for a newer CUDA than the driver supports, so %s: %s", l.Name, l.Path, what, l.LoadError)
	if built == 0 {
		built = drv/1000 + 1
	}
	c.Fix = tooNewFix(l.Key, drv, built)
	return c
}
