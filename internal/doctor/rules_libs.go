package doctor

import (
	"fmt"
	"strings"
)

// libraryFix says how to get a library that is missing.
var libraryFix = map[string]string{
	"libcuda":  "libcuda.so.1 comes with the NVIDIA driver: install the driver's user-space libraries (Ubuntu: libnvidia-compute-<branch>), or in a container use the NVIDIA Container Toolkit (docker run --gpus all)",
	"cudart":   "install the CUDA runtime (a CUDA toolkit, or a pip wheel such as nvidia-cuda-runtime-cu12); a CUDA build of PyTorch brings its own in site-packages/nvidia",
	"cublas":   "bench's matrix products need cuBLAS: install the CUDA toolkit's cuBLAS (Ubuntu: libcublas-<version> from NVIDIA's repository), or a CUDA build of PyTorch, whose wheels bring it",
	"cublaslt": "bench's FP8 products need cuBLASLt (libcublasLt), which comes with cuBLAS: install the CUDA toolkit's cuBLAS (Ubuntu: libcublas-<version> from NVIDIA's repository), or a CUDA build of PyTorch, whose wheels bring it",
	"cudnn":    "only PyTorch workloads need cuDNN: a CUDA build of PyTorch brings it (pip wheels such as nvidia-cudnn-cu12); or install cuDNN from NVIDIA's repository",
	"nccl":     "bench's all-reduce needs NCCL (libnccl.so.2): a CUDA build of PyTorch brings it (pip wheels such as nvidia-nccl-cu12), or install libnccl2 from NVIDIA's repository",
}

// libraryChecks reports each library; on a machine without a GPU where none
// is present, one line says so instead of five.
func libraryChecks(f Facts) []Check {
	var names []string
	for _, l := range f.Libraries {
		if l.Found() || len(l.Stubs) > 0 || f.hasGPU() {
			var cs []Check
			for _, l := range f.Libraries {
				cs = append(cs, libraryCheck(f, l))
			}
			return cs
		}
		names = append(names, l.Name)
	}
	if len(names) == 0 {
		return nil
	}
	return []Check{checkf("cuda-libraries", StatusMissing, "only needed on a GPU node",
		"no CUDA libraries found (%s)", strings.Join(names, ", "))}
}

func libraryCheck(f Facts, l Library) Check {
	name := l.Key
	gpu := f.hasGPU()
	fix := libraryFix[l.Key]
	switch {
	case l.Found() && l.TooNew:
		return tooNewCheck(f, l)
	case l.Found() && l.LoadError != "":
		st := StatusWarn
		if l.Key == "libcuda" && gpu {
			st = StatusFail
		}
		return checkf(name, st, "a library that is present but does not load usually misses a companion library or is for another architecture: "+fix,
			"%s found at %s, but it does not load: %s", l.Name, l.Path, l.LoadError)
	case l.Found():
		what := l.Name
		if v := l.ShownVersion(); v != "" {
			what += " " + v
		}
		if l.Key == "libcuda" && l.APIVersion != "" {
			what += " (driver API " + l.APIVersion + ")"
		}
		c := checkf(name, StatusOK, "", "%s at %s", what, l.Path)
		if l.Key == "libcuda" && f.SMI != nil {
			if lv, dv := parseVersion(l.Version), parseVersion(f.SMI.Driver); len(lv) >= 2 && len(dv) >= 2 && !versionAtLeast(lv, dv) {
				c.Status = StatusWarn
				c.Detail += fmt.Sprintf(", older than the kernel driver %s: programs that load it fail with \"driver/library version mismatch\"", f.SMI.Driver)
				c.Fix = "remove the stale libcuda (an old driver's files, or a folder on LD_LIBRARY_PATH) so the one installed with driver " + f.SMI.Driver + " loads"
			} else if len(lv) >= 2 && len(dv) >= 2 && !versionAtLeast(dv, lv) {
				c.Detail += fmt.Sprintf(", newer than the kernel driver %s: CUDA forward compatibility (the cuda-compat package), which NVIDIA supports on datacenter GPUs only", f.SMI.Driver)
			}
		}
		if l.Key == "cudart" && f.SMI != nil && len(parseVersion(l.ShownVersion())) >= 2 {
			if s, d := cudaFits(f.SMI.Driver, f.SMI.CUDA, majorMinor(l.ShownVersion())); s != StatusOK {
				c.Status, c.Detail = s, fmt.Sprintf("%s at %s is %s", what, l.Path, d)
				c.Fix = fmt.Sprintf("programs that use this runtime need a newer driver: upgrade the NVIDIA driver, or use a CUDA %s runtime (e.g. the one a matching PyTorch wheel brings)", orUnknown(f.SMI.CUDA))
			}
		}
		return libDriverCheck(f, l, c)
	case len(l.Stubs) > 0:
		st := StatusWarn
		if l.Key == "libcuda" && gpu {
			st = StatusFail
		}
		return checkf(name, st, fix+"; never put a stubs/ folder on LD_LIBRARY_PATH",
			"%s: only the link-time stub %s, which fails at run time", l.Name, l.Stubs[0])
	case l.Key == "libcuda" && gpu:
		return checkf(name, StatusFail, fix, "%s not found in the loader's folders: CUDA programs cannot start", l.Name)
	}
	where := "in the loader's folders, CUDA toolkits or PyTorch/NVIDIA wheel folders"
	if l.Key == "libcuda" {
		where = "in the loader's folders"
	}
	if !gpu {
		fix = "only needed on a GPU node"
	}
	return checkf(name, StatusMissing, fix, "%s not found %s", l.Name, where)
}

// majorMinor keeps the first two parts of a version: 12.4.127 → 12.4.
func majorMinor(v string) string {
	p := strings.Split(v, ".")
	return strings.Join(p[:min(2, len(p))], ".")
}
