package dl

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// CompatSource is where the driver floors below come from.
//
// NVIDIA CUDA Compatibility guide, "Minor Version Compatibility", Table 1
// "CUDA Toolkit 11.x, 12.x, and 13.x Driver Version Ranges"
// (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html):
// CUDA 13.x needs driver ≥ 580, CUDA 12.x ≥ 525, CUDA 11.x ≥ 450 (450.80.02
// on Linux, per the note under the table). Within a major release a library
// runs on any driver from that floor on (minor version compatibility); a
// library of a newer major release than the driver's CUDA version does not
// run at all: it loads, then its first call fails (cuBLAS 13 on a 550 driver:
// cublasCreate returns CUBLAS_STATUS_NOT_INITIALIZED).
const CompatSource = "NVIDIA CUDA Compatibility guide, Minor Version Compatibility, Table 1: https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"

// driverFloors are the minimum Linux drivers of CUDA major releases.
var driverFloors = map[int]string{13: "580", 12: "525", 11: "450.80.02"}

// MinDriver is the oldest Linux driver that runs libraries built for CUDA
// major release major ("580" for 13), "" when gpuscout does not know it.
func MinDriver(major int) string { return driverFloors[major] }

// Runs reports whether a library built for CUDA major release built runs on
// a driver whose CUDA version (cuDriverGetVersion's 1000·major + 10·minor)
// is driverCUDA: the driver must support that major release. Either 0
// (unknown) runs.
func Runs(built, driverCUDA int) bool {
	return built == 0 || driverCUDA == 0 || built <= driverCUDA/1000
}

// BuiltFor says which CUDA major release the library file path was built
// for, 0 when neither its name nor its folder says: the soname of the
// libraries versioned with CUDA (libcublas.so.13, libcublasLt.so.12,
// libcudart.so.13), else a wheel folder (site-packages/nvidia/cu13/lib) or a
// versioned toolkit (/usr/local/cuda-12.4). NCCL (libnccl.so.2) and cuDNN
// carry their own versions in their names, so only their folder can tell;
// the cu12-era wheels (nvidia/nccl/lib, nvidia/cublas/lib) do not.
func BuiltFor(lib Lib, path string) int {
	base := filepath.Base(path)
	switch lib {
	case CUBLAS, CUBLASLt, CUDART:
		if rest, ok := strings.CutPrefix(base, "lib"+string(lib)+".so."); ok {
			major, _, _ := strings.Cut(rest, ".")
			if n, err := strconv.Atoi(major); err == nil && n >= 9 && n < 100 {
				return n
			}
		}
	}
	parts := strings.Split(filepath.ToSlash(filepath.Dir(path)), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if v, ok := strings.CutPrefix(p, "cu"); ok && i > 0 && parts[i-1] == "nvidia" {
			if n, err := strconv.Atoi(v); err == nil && n >= 11 && n < 100 {
				return n
			}
		}
		if v, ok := strings.CutPrefix(p, "cuda-"); ok {
			if ver, ok := parseVersion(v); ok && ver[0] >= 9 && ver[0] < 100 {
				return ver[0]
			}
		}
	}
	return 0
}

// DriverTooOld says that a library is built for a newer CUDA major release
// than the driver supports: it would load, then fail at its first call.
type DriverTooOld struct {
	Lib        Lib
	Path       string
	Built      int // the library's CUDA major release
	DriverCUDA int // cuDriverGetVersion's value
}

// Error names the library, the CUDA release it needs and the driver's.
func (e *DriverTooOld) Error() string {
	need := fmt.Sprintf("a driver supporting CUDA %d", e.Built)
	if f := MinDriver(e.Built); f != "" {
		need += " (Linux driver ≥ " + f + ")"
	}
	return fmt.Sprintf("built for CUDA %d, which needs %s; this driver supports CUDA %s", e.Built, need, CUDAVersion(e.DriverCUDA))
}
