package nvml

import (
	"errors"
	"fmt"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Return is an nvmlReturn_t.
type Return int32

// The NVML return codes gpuscout names (nvml.h).
const (
	Success              Return = 0
	ErrorUninitialized   Return = 1
	ErrorInvalidArgument Return = 2
	ErrorNotSupported    Return = 3
	ErrorNoPermission    Return = 4
	ErrorNotFound        Return = 6
	ErrorInsufficientSz  Return = 7
	ErrorDriverNotLoaded Return = 9
	ErrorTimeout         Return = 10
	ErrorFunctionMissing Return = 13 // NVML_ERROR_FUNCTION_NOT_FOUND
	ErrorGPUIsLost       Return = 15
	ErrorLibRMMismatch   Return = 18
	ErrorNoData          Return = 21
	ErrorUnknown         Return = 999
)

var returnNames = map[Return]string{
	0: "NVML_SUCCESS", 1: "NVML_ERROR_UNINITIALIZED", 2: "NVML_ERROR_INVALID_ARGUMENT",
	3: "NVML_ERROR_NOT_SUPPORTED", 4: "NVML_ERROR_NO_PERMISSION", 5: "NVML_ERROR_ALREADY_INITIALIZED",
	6: "NVML_ERROR_NOT_FOUND", 7: "NVML_ERROR_INSUFFICIENT_SIZE", 8: "NVML_ERROR_INSUFFICIENT_POWER",
	9: "NVML_ERROR_DRIVER_NOT_LOADED", 10: "NVML_ERROR_TIMEOUT", 11: "NVML_ERROR_IRQ_ISSUE",
	12: "NVML_ERROR_LIBRARY_NOT_FOUND", 13: "NVML_ERROR_FUNCTION_NOT_FOUND", 14: "NVML_ERROR_CORRUPTED_INFOROM",
	15: "NVML_ERROR_GPU_IS_LOST", 16: "NVML_ERROR_RESET_REQUIRED", 17: "NVML_ERROR_OPERATING_SYSTEM",
	18: "NVML_ERROR_LIB_RM_VERSION_MISMATCH", 19: "NVML_ERROR_IN_USE", 20: "NVML_ERROR_MEMORY",
	21: "NVML_ERROR_NO_DATA", 22: "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", 23: "NVML_ERROR_INSUFFICIENT_RESOURCES",
	24: "NVML_ERROR_FREQ_NOT_SUPPORTED", 25: "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", 26: "NVML_ERROR_DEPRECATED",
	27: "NVML_ERROR_NOT_READY", 28: "NVML_ERROR_GPU_NOT_FOUND", 29: "NVML_ERROR_INVALID_STATE",
	999: "NVML_ERROR_UNKNOWN",
}

// String is the code's name in nvml.h: "NVML_ERROR_NOT_SUPPORTED".
func (r Return) String() string {
	if n, ok := returnNames[r]; ok {
		return n
	}
	return fmt.Sprintf("NVML_ERROR_%d", int32(r))
}

// Error is a failed NVML call: the function and its return code.
type Error struct {
	Func string
	Code Return
}

// Error writes "nvmlDeviceGetNvLinkState: NVML_ERROR_NOT_SUPPORTED (3)".
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (%d)", e.Func, e.Code, int32(e.Code))
}

// Is makes a NOT_SUPPORTED answer, or a function this driver's NVML lacks,
// match gpu.ErrUnsupported and ErrNotSupported: a fact about the device, not
// a failure.
func (e *Error) Is(target error) bool {
	return (target == gpu.ErrUnsupported || target == ErrNotSupported) &&
		(e.Code == ErrorNotSupported || e.Code == ErrorFunctionMissing)
}

// ErrNotSupported matches (errors.Is) NVML's NOT_SUPPORTED answers.
var ErrNotSupported = errors.New("not supported by this GPU or driver")

// IsNotSupported reports whether err is NVML saying "not supported".
func IsNotSupported(err error) bool { return errors.Is(err, ErrNotSupported) }

func check(fn string, rc int32) error {
	if Return(rc) == Success {
		return nil
	}
	return &Error{Func: fn, Code: Return(rc)}
}
