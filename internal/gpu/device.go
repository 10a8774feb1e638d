// Package gpu is gpuscout's view of an accelerator: the small interface the
// benchmarks drive. The CUDA driver bindings (internal/gpu/cuda) implement it
// for NVIDIA GPUs, the host CPU implements it for `bench --device cpu`, and
// tests implement it with fakes. Everything a measurement computes (operands,
// FLOP and byte counts, medians, correctness) lives above it, in
// internal/bench; everything that talks to a vendor library lives below it.
package gpu

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DType is the element type of a matrix product.
type DType int

// The element types bench measures. TF32 is FP32 storage with TF32 tensor-core
// arithmetic (cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32).
const (
	FP32 DType = iota
	TF32
	BF16
	FP16
	FP8
	FP64
)

var dtypeNames = [...]string{"fp32", "tf32", "bf16", "fp16", "fp8", "fp64"}

// String is the name used in measurement names (gemm_bf16) and flags.
func (d DType) String() string {
	if d < 0 || int(d) >= len(dtypeNames) {
		return fmt.Sprintf("dtype(%d)", int(d))
	}
	return dtypeNames[d]
}

// ParseDType reads a dtype name (fp32, tf32, bf16, fp16, fp8, fp64).
func ParseDType(s string) (DType, error) {
	for i, n := range dtypeNames {
		if n == s {
			return DType(i), nil
		}
	}
	return 0, fmt.Errorf("dtype %q is not one of fp32, tf32, bf16, fp16, fp8, fp64", s)
}

// ElemBytes is the storage size of one element.
func (d DType) ElemBytes() int {
	switch d {
	case BF16, FP16:
		return 2
	case FP8:
		return 1
	case FP64:
		return 8
	}
	return 4
}

// Ptr is an address in a device's memory. Zero is never a valid allocation.
type Ptr uint64

// ErrUnsupported is returned (wrapped) by a device for an operation it cannot
// do, e.g. a BF16 product on a GPU without BF16 or on the CPU device: the
// measurement is reported as not applicable, not as a failure.
var ErrUnsupported = errors.New("not supported on this device")

// ErrNotImplemented is returned (wrapped) for an operation the device has
// but this gpuscout cannot drive yet: the measurement is reported as not
// measured, never as unsupported.
var ErrNotImplemented = errors.New("not implemented in this gpuscout")

// ErrNoLibrary is returned (wrapped) for an operation the device has but
// whose vendor library is not on this machine, e.g. an FP8 product on a
// GPU with FP8 tensor cores where no cuBLASLt is installed: the
// measurement is reported as not measured, with the fix, never as
// unsupported. A library that is present but fails is an ordinary error.
var ErrNoLibrary = errors.New("the library it needs is not installed")

// GemmOutput is the element type of the C a product of dt writes: bf16 for
// FP8 (E4M3 inputs, fp32 accumulation and a bf16 result, as FP8 training
// and inference use them; cuBLASLt's FP8 kernels write bf16, fp16, fp32 or
// FP8), dt for the others.
func (d DType) GemmOutput() DType {
	if d == FP8 {
		return BF16
	}
	return d
}

// GemmTransA reports whether Device.Gemm takes A transposed for dt: FP8,
// whose products cuBLASLt runs only in the "TN" layout (A transposed, B
// not; NVIDIA's cuBLAS documentation, cublasLtMatmul, FP8 requirements).
// A is then stored k×m column-major: each row of the m×k A is contiguous,
// as B's columns are.
func (d DType) GemmTransA() bool { return d == FP8 }

// HasFP8 reports whether a compute capability ("9.0") has FP8 (E4M3)
// tensor cores: 8.9 (Ada) and later. ok is false when it cannot be read.
func HasFP8(computeCap string) (has, ok bool) {
	major, minor, found := strings.Cut(computeCap, ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if !found || err1 != nil || err2 != nil {
		return false, false
	}
	return a > 8 || (a == 8 && b >= 9), true
}

// Info describes a device. Unknown fields are zero or empty and shown as
// unknown; a device fills what its library reports.
type Info struct {
	Index       int    // 0-based, as the driver numbers it
	Name        string // as the vendor names it: "NVIDIA H200"
	UUID        string
	MemoryBytes int64
	// MemoryFreeBytes is the memory free when the device was opened
	// (cuMemGetInfo): what measurements may size their buffers from; 0
	// when unknown.
	MemoryFreeBytes int64
	Driver          string // driver version: "580.159.04"
	Runtime         string // CUDA driver API version: "13.0"
	Multiprocs      int    // streaming multiprocessors (or CPU cores)
	ComputeCap      string // "9.0"
	ClockMHz        int    // SM clock now
	MaxClockMHz     int    // SM boost clock
	MemClockMHz     int
	PowerLimitW     float64
	PCIeGen         int
	PCIeWidth       int
	ECC             string // "enabled", "disabled" or ""
	MIG             string // "enabled" (a MIG instance, or a GPU in MIG mode), "disabled" or ""
	Virtualized     string // NVML's virtualization mode: "NONE", "PASSTHROUGH", "VGPU", ...
	NUMANode        int    // -1 when unknown
	// NUMABinding says how the device's host side was placed on NUMANode
	// (the thread that drives it bound to the node's CPUs, its pinned host
	// memory preferred there), or why not; "" when not attempted.
	NUMABinding  string
	Libraries    map[string]string
	IsCPU        bool // the host CPU device of `bench --device cpu`
	BusID        string
	Architecture string
}

// Device is one accelerator as bench drives it. Implementations serialise
// their calls onto whatever thread owns the device's context, so a Device may
// be called from any goroutine, but calls to one Device do not overlap.
//
// Asynchronous operations (Copy, Fill32, Gemm) are queued on the device's one
// stream; Time measures a region of them with the device's own clock (CUDA
// events on a GPU) and waits for it to finish; Sync waits for the stream.
type Device interface {
	Info() Info
	// Alloc reserves device memory; its contents are undefined.
	Alloc(bytes int64) (Ptr, error)
	Free(p Ptr) error
	// HostAlloc returns page-locked host memory for fast transfers (plain
	// memory on the CPU device); HostFree releases it.
	HostAlloc(bytes int64) ([]byte, error)
	HostFree(b []byte) error
	// Upload copies host bytes to the device, Download device bytes to the
	// host; both are synchronous.
	Upload(dst Ptr, src []byte) error
	Download(dst []byte, src Ptr) error
	// Copy queues a device-to-device copy of n bytes.
	Copy(dst, src Ptr, n int64) error
	// Fill32 queues setting n 32-bit words at dst to v.
	Fill32(dst Ptr, v uint32, n int64) error
	// Gemm queues C = A·B for column-major m×k A, k×n B and m×n C of element
	// type dt, accumulating in fp32 or wider; C's element type is
	// dt.GemmOutput() (bf16 for FP8). For FP8 (dt.GemmTransA()) A is given
	// transposed, stored k×m column-major, as cuBLASLt's FP8 kernels need.
	Gemm(dt DType, m, n, k int, a, b, c Ptr) error
	// Time runs f, which queues work, and returns the device time of what it
	// queued, after waiting for it.
	Time(f func() error) (time.Duration, error)
	Sync() error
	Close() error
}

// Sampler reads a device's telemetry now (NVML on a GPU): what bench and the
// agent record while work runs. Fields a device cannot read are NaN or -1.
type Sampler interface {
	Sample() (Sample, error)
}

// Sample is one reading of a device's telemetry.
type Sample struct {
	At            time.Time
	UtilGPU       float64 // 0..1
	UtilMemory    float64 // 0..1
	MemUsedBytes  int64
	PowerW        float64
	TempC         float64
	SMClockMHz    int
	MemClockMHz   int
	ClockReasons  uint64   // NVML clocks-event reason bits
	ReasonsActive []string // their names: "sw_power_cap", ...
}

// Process is another program's compute context on a device.
type Process struct {
	PID       int
	UsedBytes int64  // device memory it holds; -1 when the driver cannot say
	Name      string // its command, "" when unknown
}

// DescribeProcesses writes processes as "4242 (python3, 512 MiB), 4243":
// the words bench, doctor and the CUDA device errors name busy GPUs with.
func DescribeProcesses(ps []Process) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		var what []string
		if p.Name != "" {
			what = append(what, p.Name)
		}
		if p.UsedBytes >= 0 {
			what = append(what, fmt.Sprintf("%d MiB", p.UsedBytes>>20))
		}
		s := strconv.Itoa(p.PID)
		if len(what) > 0 {
			s += " (" + strings.Join(what, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// ProcessLister is a Device that can list the other programs computing on
// it (NVML on a GPU): bench refuses to measure a GPU another program uses,
// whose figures would be shared with it.
type ProcessLister interface {
	// OtherProcesses lists the compute processes on the device other than
	// this one.
	OtherProcesses() ([]Process, error)
}

// Unopened is a device the driver lists but that could not be opened: a GPU
// another job holds in EXCLUSIVE_PROCESS compute mode, one an Xid error left
// broken. It stands in the list of devices so that bench reports it, with
// Err (which names the cause and the fix), while the others are measured.
// Every operation returns Err.
type Unopened struct {
	Desc Info // what the driver and NVML said without opening it
	Err  error
}

var _ Device = (*Unopened)(nil)

// OpenError returns why d could not be opened, nil for a usable device.
func OpenError(d Device) error {
	if u, ok := d.(*Unopened); ok {
		return u.Err
	}
	return nil
}

// Info describes the device as far as it is known.
func (u *Unopened) Info() Info { return u.Desc }

// Error is Err's message.
func (u *Unopened) Error() string { return u.Err.Error() }

// Unwrap is Err.
func (u *Unopened) Unwrap() error { return u.Err }

// Alloc fails with Err, as every operation does.
func (u *Unopened) Alloc(int64) (Ptr, error)                       { return 0, u.Err }
func (u *Unopened) Free(Ptr) error                                 { return u.Err }
func (u *Unopened) HostAlloc(int64) ([]byte, error)                { return nil, u.Err }
func (u *Unopened) HostFree([]byte) error                          { return u.Err }
func (u *Unopened) Upload(Ptr, []byte) error                       { return u.Err }
func (u *Unopened) Download([]byte, Ptr) error                     { return u.Err }
func (u *Unopened) Copy(Ptr, Ptr, int64) error                     { return u.Err }
func (u *Unopened) Fill32(Ptr, uint32, int64) error                { return u.Err }
func (u *Unopened) Gemm(DType, int, int, int, Ptr, Ptr, Ptr) error { return u.Err }
func (u *Unopened) Time(func() error) (time.Duration, error)       { return 0, u.Err }
func (u *Unopened) Sync() error                                    { return u.Err }

// Close does nothing: nothing was opened.
func (u *Unopened) Close() error { return nil }
