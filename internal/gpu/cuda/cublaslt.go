package cuda

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// FP8 products run through cuBLASLt (libcublasLt): cublasGemmEx has no FP8
// types. Every value below was checked against NVIDIA's headers as the
// CUDA 12.6.3 toolkit ships them (include/cublasLt.h, include/cublas_api.h,
// include/library_types.h) and the cuBLAS documentation's cublasLtMatmul
// section (https://docs.nvidia.com/cuda/cublas/index.html#cublasltmatmul).

// cudaDataType_t (library_types.h).
const (
	cudaR8FE4M3 = 28 // CUDA_R_8F_E4M3 = 28, "real as a nv_fp8_e4m3"
	// cudaR32F (CUDA_R_32F = 0) and cudaR16BF (CUDA_R_16BF = 14) are in
	// cublas.go.
)

// cublasOperation_t (cublas_api.h): CUBLAS_OP_N = 0 (opN in cublas.go),
// CUBLAS_OP_T = 1.
const opT = 1

// cublasLtMatmulDescAttributes_t (cublasLt.h), with the type of each
// attribute's value as the header gives it.
const (
	ltDescTransA = 3 // CUBLASLT_MATMUL_DESC_TRANSA = 3: int32_t (cublasOperation_t)
	ltDescTransB = 4 // CUBLASLT_MATMUL_DESC_TRANSB = 4: int32_t
	// CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17: const void * (a device
	// pointer to one value of the compute type's width: fp32 here).
	ltDescAScalePointer = 17
	ltDescBScalePointer = 18 // CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18
	// CUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20: the scale that converts the
	// result to D's range, "assumed to be 1" when unset. It serves an FP8
	// D; gpuscout's D is bf16, so it is left unset.
	ltDescDScalePointer = 20
)

// cublasLtMatmulPreferenceAttributes_t (cublasLt.h):
// CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1, a uint64_t ("default: 0 -
// no workspace allowed").
const ltPrefMaxWorkspaceBytes = 1

// ltWorkspaceBytes is the workspace cublasLtMatmul may use: 32 MiB, what
// the cuBLAS documentation (cublasSetWorkspace) recommends for Hopper, and
// more than the 4 MiB it recommends for the other architectures.
const ltWorkspaceBytes = 32 << 20

// ltAlign is the alignment, in bytes, that cuBLASLt's FP8 kernels need of
// the matrices' pointers and leading dimensions ("All matrix dimensions
// must meet the optimal requirements listed in Tensor Core Usage (i.e.
// pointers and matrix dimension must support 16-byte alignment)", the
// cuBLAS documentation's FP8 requirements of cublasLtMatmul).
const ltAlign = 16

// ltAlgo is cublasLtMatmulAlgo_t: "typedef struct { uint64_t data[8]; }"
// (cublasLt.h), 64 bytes.
type ltAlgo [8]uint64

// ltHeuristic is cublasLtMatmulHeuristicResult_t (cublasLt.h): the algo,
// size_t workspaceSize, cublasStatus_t state, float wavesCount and int
// reserved[4]: 64 + 8 + 4 + 4 + 16 = 96 bytes on LP64.
type ltHeuristic struct {
	algo          ltAlgo
	workspaceSize uint64
	state         int32
	wavesCount    float32
	reserved      [4]int32
}

// ltFuncs are the cuBLASLt functions gpuscout binds, with cublasLt.h's
// signatures: handles and descriptors are pointers (uintptr), device
// pointers uint64, cudaDataType_t and the enums int32, rows and columns
// uint64_t, leading dimensions int64_t, sizes size_t (uint64).
type ltFuncs struct {
	create        func(h *uintptr) int32
	destroy       func(h uintptr) int32
	descCreate    func(d *uintptr, compute, scale int32) int32
	descDestroy   func(d uintptr) int32
	descSetAttr   func(d uintptr, attr int32, buf unsafe.Pointer, size uint64) int32
	layoutCreate  func(l *uintptr, typ int32, rows, cols uint64, ld int64) int32
	layoutDestroy func(l uintptr) int32
	prefCreate    func(p *uintptr) int32
	prefSetAttr   func(p uintptr, attr int32, buf unsafe.Pointer, size uint64) int32
	prefDestroy   func(p uintptr) int32
	heuristic     func(h, desc, a, b, c, d, pref uintptr, requested int32, results *ltHeuristic, returned *int32) int32
	matmul        func(h, desc uintptr, alpha unsafe.Pointer, a uint64, la uintptr, b uint64, lb uintptr, beta unsafe.Pointer,
		c uint64, lc uintptr, d uint64, ld uintptr, algo *ltAlgo, work uint64, workSize uint64, stream uintptr) int32
}

func (f *ltFuncs) table() []dl.Symbol {
	return []dl.Symbol{
		dl.Sym(&f.create, "cublasLtCreate"),
		dl.Sym(&f.destroy, "cublasLtDestroy"),
		dl.Sym(&f.descCreate, "cublasLtMatmulDescCreate"),
		dl.Sym(&f.descDestroy, "cublasLtMatmulDescDestroy"),
		dl.Sym(&f.descSetAttr, "cublasLtMatmulDescSetAttribute"),
		dl.Sym(&f.layoutCreate, "cublasLtMatrixLayoutCreate"),
		dl.Sym(&f.layoutDestroy, "cublasLtMatrixLayoutDestroy"),
		dl.Sym(&f.prefCreate, "cublasLtMatmulPreferenceCreate"),
		dl.Sym(&f.prefSetAttr, "cublasLtMatmulPreferenceSetAttribute"),
		dl.Sym(&f.prefDestroy, "cublasLtMatmulPreferenceDestroy"),
		dl.Sym(&f.heuristic, "cublasLtMatmulAlgoGetHeuristic"),
		dl.Sym(&f.matmul, "cublasLtMatmul"),
	}
}

// blasLt is a loaded and bound libcublasLt.
type blasLt struct {
	boundLib // its version is cublasLtGetVersion's, "13.1.0"
	f        ltFuncs
}

func bindLt(lib *dl.Library) (*blasLt, error) {
	b := &blasLt{}
	var err error
	b.boundLib, err = bindLib(lib, dl.CUBLASLt, "cuBLASLt", b.f.table())
	if err != nil {
		return nil, err
	}
	return b, nil
}

// newLtPicker chooses the cuBLASLt the GPUs use, as newBLASPicker chooses
// cuBLAS; cuBLASLt ships with cuBLAS (the same wheels and toolkits).
// cuBLASLt missing altogether matches gpu.ErrNoLibrary (Device.Gemm): an
// FP8 product is then not measured rather than failed.
func newLtPicker(env dl.Env) *libPicker[*blasLt] {
	return &libPicker[*blasLt]{lib: dl.CUBLASLt, name: "cuBLASLt", env: env, cands: dl.Candidates(dl.CUBLASLt, env), bind: bindLt,
		fixes: pickerFixes{
			missing: "install cuBLAS, which brings cuBLASLt (libcublasLt): a CUDA build of PyTorch brings both (pip install nvidia-cublas-cu12 or -cu13), or the CUDA toolkit's libcublas",
			noStart: "a cuBLASLt that loads but whose cublasLtCreate fails is broken or mismatched: reinstall cuBLAS (" +
				"pip install --force-reinstall nvidia-cublas-cu12 or -cu13, or the CUDA toolkit's libcublas)",
			tooNew: func(major int) string {
				return fmt.Sprintf("install a cuBLAS for CUDA %d, which brings its cuBLASLt (pip install nvidia-cublas-cu%d, or the CUDA %d toolkit's libcublas)", major, major, major)
			},
		}}
}

// companion is the libcublasLt loaded beside this cuBLAS (from its folder,
// with its version suffix), "" when none was.
func (b *blas) companion() string {
	if b == nil || len(b.lib.Companions) == 0 {
		return ""
	}
	return b.lib.Companions[0]
}

// startLt creates a cuBLASLt handle of lt for the device; on a failure
// nothing of it is left.
func (d *Device) startLt(lt *blasLt) error {
	var rc int32
	err := d.w.do("cublasLtCreate", func() {
		if rc = lt.f.create(&d.ltHandle); rc != 0 {
			d.ltHandle = 0
		}
	})
	if err != nil {
		return err
	}
	return blasErr(int(d.ord), "cublasLtCreate", rc)
}

// ltPlan is what one shape's FP8 product needs, made once and kept while
// the shape repeats: the operation and layout descriptors and the
// algorithm cuBLASLt's heuristic chose, with the fp32 alpha and beta it
// reads from host memory. Owned by the device's thread.
type ltPlan struct {
	m, n, k        int
	desc           uintptr
	la, lb, lc     uintptr // A (k×m, read transposed), B (k×n), C and D (m×n, bf16)
	algo           ltAlgo
	workspaceBytes uint64
	alpha, beta    float32
}

// ltStep is a cuBLASLt call that failed: its name and status.
type ltStep struct {
	fn string
	rc int32
}

// destroyPlan frees a plan's descriptors; the first failure is returned.
func (d *Device) destroyPlan(p *ltPlan) ltStep {
	var first ltStep
	note := func(fn string, rc int32) {
		if rc != 0 && first.rc == 0 {
			first = ltStep{fn, rc}
		}
	}
	for _, l := range []uintptr{p.la, p.lb, p.lc} {
		if l != 0 {
			note("cublasLtMatrixLayoutDestroy", d.lt.f.layoutDestroy(l))
		}
	}
	if p.desc != 0 {
		note("cublasLtMatmulDescDestroy", d.lt.f.descDestroy(p.desc))
	}
	return first
}

// ltPrepare runs on the device's thread: the fp32 scale (1.0) that A and
// B are read with and the workspace, once per device; then the plan for
// an m×n×k product, unless the last one fits.
func (d *Device) ltPrepare(m, n, k int) (*ltPlan, ltStep) {
	f, lt := &d.drv.f, &d.lt.f
	if d.ltScale == 0 {
		var p uint64
		if rc := f.memAlloc(&p, ltAlign); rc != 0 {
			return nil, ltStep{"cuMemAlloc_v2", rc}
		}
		one := new(uint32)
		*one = math.Float32bits(1)
		rc := f.memcpyHtoD(p, unsafe.Pointer(one), 4, d.stream)
		if rc == 0 {
			rc = f.streamSync(d.stream)
		}
		if rc != 0 {
			f.memFree(p)
			return nil, ltStep{"cuMemcpyHtoDAsync_v2+cuStreamSynchronize", rc}
		}
		d.ltScale = p
	}
	if d.ltWork == 0 {
		var p uint64
		if rc := f.memAlloc(&p, ltWorkspaceBytes); rc != 0 {
			return nil, ltStep{"cuMemAlloc_v2", rc}
		}
		d.ltWork = p
	}
	if p := d.ltPlan; p != nil && p.m == m && p.n == n && p.k == k {
		return p, ltStep{}
	}
	if d.ltPlan != nil {
		if s := d.destroyPlan(d.ltPlan); s.rc != 0 {
			d.ltPlan = nil
			return nil, s
		}
		d.ltPlan = nil
	}
	p := &ltPlan{m: m, n: n, k: k, alpha: 1}
	fail := func(fn string, rc int32) (*ltPlan, ltStep) {
		d.destroyPlan(p)
		return nil, ltStep{fn, rc}
	}
	// The compute type is fp32 (CUBLAS_COMPUTE_32F), and so are alpha,
	// beta and the scales (CUDA_R_32F): what the FP8 kernels require.
	if rc := lt.descCreate(&p.desc, computeF32, cudaR32F); rc != 0 {
		p.desc = 0
		return fail("cublasLtMatmulDescCreate", rc)
	}
	transA, transB := new(int32), new(int32)
	*transA, *transB = opT, opN
	scale := new(uint64)
	*scale = d.ltScale
	for _, a := range []struct {
		name string
		attr int32
		buf  unsafe.Pointer
		size uint64
	}{
		{"TRANSA", ltDescTransA, unsafe.Pointer(transA), 4},
		{"TRANSB", ltDescTransB, unsafe.Pointer(transB), 4},
		{"A_SCALE_POINTER", ltDescAScalePointer, unsafe.Pointer(scale), 8},
		{"B_SCALE_POINTER", ltDescBScalePointer, unsafe.Pointer(scale), 8},
	} {
		if rc := lt.descSetAttr(p.desc, a.attr, a.buf, a.size); rc != 0 {
			return fail("cublasLtMatmulDescSetAttribute("+a.name+")", rc)
		}
	}
	for _, l := range []struct {
		out        *uintptr
		typ        int32
		rows, cols int
	}{{&p.la, cudaR8FE4M3, k, m}, {&p.lb, cudaR8FE4M3, k, n}, {&p.lc, cudaR16BF, m, n}} {
		if rc := lt.layoutCreate(l.out, l.typ, uint64(l.rows), uint64(l.cols), int64(l.rows)); rc != 0 {
			*l.out = 0
			return fail("cublasLtMatrixLayoutCreate", rc)
		}
	}
	var pref uintptr
	if rc := lt.prefCreate(&pref); rc != 0 {
		return fail("cublasLtMatmulPreferenceCreate", rc)
	}
	ws := new(uint64)
	*ws = ltWorkspaceBytes
	rc := lt.prefSetAttr(pref, ltPrefMaxWorkspaceBytes, unsafe.Pointer(ws), 8)
	fn := "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)"
	res := new(ltHeuristic)
	returned := new(int32)
	if rc == 0 {
		fn = "cublasLtMatmulAlgoGetHeuristic"
		rc = lt.heuristic(d.ltHandle, p.desc, p.la, p.lb, p.lc, p.lc, pref, 1, res, returned)
	}
	if r := lt.prefDestroy(pref); rc == 0 && r != 0 {
		fn, rc = "cublasLtMatmulPreferenceDestroy", r
	}
	switch {
	case rc != 0:
		return fail(fn, rc)
	case *returned < 1:
		return fail("cublasLtMatmulAlgoGetHeuristic (no algorithm)", statusNotSupported)
	case res.state != 0:
		return fail("cublasLtMatmulAlgoGetHeuristic (its algorithm's state)", res.state)
	case res.workspaceSize > ltWorkspaceBytes:
		return fail("cublasLtMatmulAlgoGetHeuristic (an algorithm wanting more workspace than allowed)", statusInvalidValue)
	}
	p.algo, p.workspaceBytes = res.algo, ltWorkspaceBytes
	d.ltPlan = p
	return p, ltStep{}
}

// cublasStatus_t values (cublas_api.h) gpuscout sets itself.
const (
	statusInvalidValue = 7  // CUBLAS_STATUS_INVALID_VALUE = 7
	statusNotSupported = 15 // CUBLAS_STATUS_NOT_SUPPORTED = 15
)

// fp8Unsupported is the error of an FP8 product on a GPU without FP8
// tensor cores: gpu.ErrUnsupported.
func (d *Device) fp8Unsupported() error {
	return fmt.Errorf("GPU %d: gemm fp8: compute capability %s has no FP8 tensor cores (8.9 and later do): %w", d.ord, d.info.ComputeCap, gpu.ErrUnsupported)
}

// gemmFP8 queues C = A·B with E4M3 A and B, fp32 accumulation and a bf16
// C, through cublasLtMatmul in the TN layout FP8 kernels require: A is
// stored transposed (k×m column-major, leading dimension k), B k×n (k), C
// m×n (m); A and B are read with a scale of 1, alpha = 1, beta = 0.
//
// A GPU of compute capability below 8.9 has no FP8 tensor cores:
// gpu.ErrUnsupported, without asking cuBLASLt. On one that has them, no
// cuBLASLt on the machine is gpu.ErrNoLibrary (not measured), and
// cuBLASLt's CUBLAS_STATUS_NOT_SUPPORTED an ordinary failure with the fix,
// never "unsupported".
func (d *Device) gemmFP8(m, n, k int, a, b, c gpu.Ptr) error {
	has, known := gpu.HasFP8(d.info.ComputeCap)
	if known && !has {
		return d.fp8Unsupported()
	}
	if err := checkGemmDims(m, n, k); err != nil {
		return err
	}
	if m%ltAlign != 0 || n%ltAlign != 0 || k%ltAlign != 0 {
		return fmt.Errorf("GPU %d: gemm fp8 %d×%d×%d: cuBLASLt's FP8 kernels need m, n and k multiples of %d (16-byte-aligned leading dimensions)", d.ord, m, n, k, ltAlign)
	}
	for _, p := range []gpu.Ptr{a, b, c} {
		if p%ltAlign != 0 {
			return fmt.Errorf("GPU %d: gemm fp8: operand at %#x is not 16-byte aligned, as cuBLASLt's FP8 kernels need", d.ord, uint64(p))
		}
	}
	if d.lt == nil {
		return fmt.Errorf("GPU %d: gemm fp8 needs cuBLASLt: %w", d.ord, d.ltErr)
	}
	var step ltStep
	err := d.w.do("cublasLtMatmul", func() {
		p, s := d.ltPrepare(m, n, k)
		if s.rc != 0 {
			step = s
			return
		}
		step.fn = "cublasLtMatmul"
		step.rc = d.lt.f.matmul(d.ltHandle, p.desc, unsafe.Pointer(&p.alpha), uint64(a), p.la, uint64(b), p.lb, unsafe.Pointer(&p.beta),
			uint64(c), p.lc, uint64(c), p.lc, &p.algo, d.ltWork, p.workspaceBytes, d.stream)
	})
	if err != nil {
		return err
	}
	if step.rc == 0 {
		return nil
	}
	if step.fn == "cuMemAlloc_v2" || step.fn == "cuMemcpyHtoDAsync_v2+cuStreamSynchronize" {
		return cuErr(d.drv, int(d.ord), step.fn, step.rc)
	}
	e := blasErr(int(d.ord), step.fn, step.rc).(*Error)
	if e.Name == "CUBLAS_STATUS_NOT_SUPPORTED" || e.Name == "CUBLAS_STATUS_ARCH_MISMATCH" {
		e.Fix = fmt.Sprintf("this cuBLASLt (%s) has no FP8 kernel for this GPU (compute capability %s): install a newer cuBLAS "+
			"(pip install -U nvidia-cublas-cu12 or -cu13, or a newer CUDA toolkit)", d.lt.describe(), orUnknownCC(d.info.ComputeCap))
		if !known {
			return e // the GPU may have no FP8 at all: matches gpu.ErrUnsupported
		}
		return &fp8Failure{e}
	}
	return e
}

func orUnknownCC(cc string) string {
	if cc == "" {
		return "unknown"
	}
	return cc
}

// fp8Failure is cuBLASLt refusing an FP8 product on a GPU that has FP8
// tensor cores: a failure, which errors.Is must not take for
// gpu.ErrUnsupported (as it would the bare CUBLAS_STATUS_NOT_SUPPORTED).
// errors.As still finds the *Error.
type fp8Failure struct{ e *Error }

func (f *fp8Failure) Error() string { return f.e.Error() }

// As gives the *Error to errors.As.
func (f *fp8Failure) As(target any) bool {
	if p, ok := target.(**Error); ok {
		*p = f.e
		return true
	}
	return false
}

// closeLt frees the device's cuBLASLt plan, scale, workspace and handle,
// on its thread; the errors are the calls that failed.
func (d *Device) closeLt() []error {
	if d.lt == nil {
		return nil
	}
	var errs []error
	_ = d.w.do("cuBLASLt teardown", func() {
		if d.ltPlan != nil {
			if s := d.destroyPlan(d.ltPlan); s.rc != 0 {
				errs = append(errs, blasErr(int(d.ord), s.fn, s.rc))
			}
			d.ltPlan = nil
		}
		for _, p := range []*uint64{&d.ltScale, &d.ltWork} {
			if *p != 0 {
				errs = append(errs, cuErr(d.drv, int(d.ord), "cuMemFree_v2", d.drv.f.memFree(*p)))
				*p = 0
			}
		}
		if d.ltHandle != 0 {
			errs = append(errs, blasErr(int(d.ord), "cublasLtDestroy", d.lt.f.destroy(d.ltHandle)))
			d.ltHandle = 0
		}
	})
	return errs
}

// LtError says why FP8 products cannot run on this GPU (no cuBLASLt
// starts: each library tried and why, and the fix); nil when cuBLASLt
// works. It matches gpu.ErrNoLibrary when none is on the machine.
func (d *Device) LtError() error { return d.ltErr }

// LtSkipped lists the cuBLASLt libraries passed over before the one in
// use, and why.
func (d *Device) LtSkipped() []string { return append([]string(nil), d.ltNotes...) }

// ltNoneError is the picker's error, which also matches gpu.ErrNoLibrary
// when no cuBLASLt is on the machine at all (none loaded, none passed over
// as too new for the driver): one that is there but does not start is a
// failure.
func ltNoneError(p *libPicker[*blasLt], driverCUDA int) error {
	err := p.noneError(driverCUDA)
	if len(p.skipped()) == 0 && errors.Is(err, dl.ErrNotFound) {
		return fmt.Errorf("%w (%w)", err, gpu.ErrNoLibrary)
	}
	return err
}
