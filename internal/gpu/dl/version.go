package dl

import (
	"errors"
	"fmt"
)

// ErrNoVersion: the library has no version call gpuscout uses without
// initialising it (NVML: use the nvml package).
var ErrNoVersion = errors.New("no version query for this library")

// Version asks the library for its own version, "13.1.0" style: CUDA
// (cuDriverGetVersion: the driver API version, "13.0"), cuBLAS
// (cublasGetProperty), cuBLASLt (cublasLtGetVersion), NCCL (ncclGetVersion),
// cuDNN (cudnnGetVersion) and the CUDA runtime (cudaRuntimeGetVersion).
// None of these needs the library initialised or a GPU.
func (l *Library) Version() (string, error) {
	switch l.Lib {
	case CUDA, CUDART:
		var get func(*int32) int32
		name := "cuDriverGetVersion"
		if l.Lib == CUDART {
			name = "cudaRuntimeGetVersion"
		}
		if _, err := l.Bind([]Symbol{Sym(&get, name)}); err != nil {
			return "", err
		}
		var v int32
		if rc := get(&v); rc != 0 {
			return "", fmt.Errorf("%s returned %d", name, rc)
		}
		return CUDAVersion(int(v)), nil
	case CUBLAS:
		var get func(typ int32, v *int32) int32
		if _, err := l.Bind([]Symbol{Sym(&get, "cublasGetProperty")}); err != nil {
			return "", err
		}
		var p [3]int32 // MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2 (libraryPropertyType)
		for i := range p {
			if rc := get(int32(i), &p[i]); rc != 0 {
				return "", fmt.Errorf("cublasGetProperty(%d) returned %d", i, rc)
			}
		}
		return fmt.Sprintf("%d.%d.%d", p[0], p[1], p[2]), nil
	case CUBLASLt:
		var get func() uintptr
		if _, err := l.Bind([]Symbol{Sym(&get, "cublasLtGetVersion")}); err != nil {
			return "", err
		}
		v := int(get())
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100), nil
	case NCCL:
		var get func(*int32) int32
		if _, err := l.Bind([]Symbol{Sym(&get, "ncclGetVersion")}); err != nil {
			return "", err
		}
		var v int32
		if rc := get(&v); rc != 0 {
			return "", fmt.Errorf("ncclGetVersion returned %d", rc)
		}
		return NCCLVersion(int(v)), nil
	case CUDNN:
		var get func() uintptr
		if _, err := l.Bind([]Symbol{Sym(&get, "cudnnGetVersion")}); err != nil {
			return "", err
		}
		return CUDNNVersion(int(get())), nil
	}
	return "", fmt.Errorf("%s: %w", l.Lib, ErrNoVersion)
}

// CUDAVersion writes a CUDA version number (1000·major + 10·minor, as
// cuDriverGetVersion and nvmlSystemGetCudaDriverVersion give it) as "13.0".
func CUDAVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// NCCLVersion writes NCCL's version code: 10000·major + 100·minor + patch
// since 2.9, 1000·major + 100·minor + patch before.
func NCCLVersion(v int) string {
	if v >= 20900 {
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
}

// CUDNNVersion writes cuDNN's version code: 10000·major + 100·minor + patch
// from 9, 1000·major + 100·minor + patch before.
func CUDNNVersion(v int) string {
	if v >= 90000 {
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
}
