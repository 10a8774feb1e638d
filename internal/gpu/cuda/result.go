package cuda

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Result is a CUresult, the driver API's return code.
type Result int32

var resultNames = map[Result]string{
	0: "CUDA_SUCCESS", 1: "CUDA_ERROR_INVALID_VALUE", 2: "CUDA_ERROR_OUT_OF_MEMORY",
	3: "CUDA_ERROR_NOT_INITIALIZED", 4: "CUDA_ERROR_DEINITIALIZED", 34: "CUDA_ERROR_STUB_LIBRARY",
	46: "CUDA_ERROR_DEVICE_UNAVAILABLE", 100: "CUDA_ERROR_NO_DEVICE", 101: "CUDA_ERROR_INVALID_DEVICE",
	102: "CUDA_ERROR_DEVICE_NOT_LICENSED", 200: "CUDA_ERROR_INVALID_IMAGE", 201: "CUDA_ERROR_INVALID_CONTEXT",
	214: "CUDA_ERROR_ECC_UNCORRECTABLE", 304: "CUDA_ERROR_OPERATING_SYSTEM", 400: "CUDA_ERROR_INVALID_HANDLE",
	500: "CUDA_ERROR_NOT_FOUND", 600: "CUDA_ERROR_NOT_READY", 700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	719: "CUDA_ERROR_LAUNCH_FAILED", 800: "CUDA_ERROR_NOT_PERMITTED", 801: "CUDA_ERROR_NOT_SUPPORTED",
	802: "CUDA_ERROR_SYSTEM_NOT_READY", 803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", 999: "CUDA_ERROR_UNKNOWN",
}

// String is the code's name in cuda.h: "CUDA_ERROR_NO_DEVICE".
func (r Result) String() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("CUDA_ERROR_%d", int32(r))
}

// Status is a cublasStatus_t.
type Status int32

var statusNames = map[Status]string{
	0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
	7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
	13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

// String is the status's name in cublas_api.h.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("CUBLAS_STATUS_%d", int32(s))
}

// Error is a failed driver, cuBLAS or NCCL call.
type Error struct {
	Func   string
	Device int // -1 for calls not about one device
	Code   int32
	Name   string // the code's name: "CUDA_ERROR_OUT_OF_MEMORY"
	// Message is the library's own description (cuGetErrorString,
	// ncclGetLastError): "out of memory"; empty when it gives none.
	Message string
	// Fix says what to do, where the code has a known cause; empty
	// otherwise.
	Fix string
}

// Error says which call failed, on which GPU, with which code, what the
// library says about it and, when known, the fix.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s (%d)", e.Func, e.Name, e.Code)
	if e.Device >= 0 {
		s = fmt.Sprintf("GPU %d: %s", e.Device, s)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Fix != "" {
		s += "; fix: " + e.Fix
	}
	return s
}

// ErrNoDevice matches (errors.Is) the driver saying there is no GPU.
var ErrNoDevice = errors.New("no CUDA GPU")

// Is: CUDA_ERROR_NO_DEVICE matches ErrNoDevice; CUDA_ERROR_NOT_SUPPORTED
// and CUBLAS_STATUS_NOT_SUPPORTED match gpu.ErrUnsupported.
//
// (A code's name alone decides: cuBLAS and NCCL codes overlap the driver's
// numbers.)
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNoDevice:
		return e.Name == "CUDA_ERROR_NO_DEVICE"
	case gpu.ErrUnsupported:
		return e.Name == "CUDA_ERROR_NOT_SUPPORTED" || e.Name == "CUBLAS_STATUS_NOT_SUPPORTED"
	}
	return false
}

// cuErr describes a failed driver call: the code's name and message from
// the driver itself (cuGetErrorName, cuGetErrorString) where drv has them,
// else from resultNames, and the fix for the codes with a known cause.
func cuErr(drv *driver, dev int, fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	e := &Error{Func: fn, Device: dev, Code: rc, Name: Result(rc).String(), Fix: Result(rc).Fix()}
	if drv != nil {
		if n := drv.errorText(drv.f.getErrorName, rc); n != "" {
			e.Name = n
		}
		e.Message = drv.errorText(drv.f.getErrorString, rc)
	}
	return e
}

func blasErr(dev int, fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	return &Error{Func: fn, Device: dev, Code: rc, Name: Status(rc).String()}
}

// eventDuration converts cuEventElapsedTime's milliseconds to a Duration,
// rounded to the nearest nanosecond (truncation would shorten every timed
// region by up to 1 ns, and a sum of identical operations would no longer
// divide evenly).
func eventDuration(ms float32) time.Duration {
	return time.Duration(math.Round(float64(ms) * float64(time.Millisecond)))
}
