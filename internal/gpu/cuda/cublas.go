package cuda

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// blasFuncs are the cuBLAS functions gpuscout binds.
type blasFuncs struct {
	create  func(h *uintptr) int32
	destroy func(h uintptr) int32
	setStrm func(h, s uintptr) int32
	setMath func(h uintptr, mode int32) int32
	gemmEx  func(h uintptr, transa, transb int32, m, n, k int32, alpha unsafe.Pointer, a uint64, atype int32, lda int32, b uint64, btype int32, ldb int32, beta unsafe.Pointer, c uint64, ctype int32, ldc int32, compute int32, algo int32) int32
}

func (f *blasFuncs) table() []dl.Symbol {
	return []dl.Symbol{
		dl.Sym(&f.create, "cublasCreate_v2"),
		dl.Sym(&f.destroy, "cublasDestroy_v2"),
		dl.Sym(&f.setStrm, "cublasSetStream_v2"),
		dl.OptSym(&f.setMath, "cublasSetMathMode"),
		dl.Sym(&f.gemmEx, "cublasGemmEx"),
	}
}

// blas is a loaded and bound libcublas.
type blas struct {
	lib     *dl.Library
	f       blasFuncs
	version string
	built   int // the CUDA major release it is built for; 0 when unknown
}

func bindBLAS(lib *dl.Library) (*blas, error) {
	b := &blas{lib: lib, built: dl.BuiltFor(dl.CUBLAS, lib.Candidate)}
	if _, err := lib.Bind(b.f.table()); err != nil {
		return nil, err
	}
	if v, err := lib.Version(); err == nil {
		b.version = v
		if major, ok := leadingNumber(v); ok {
			b.built = major
		}
	}
	return b, nil
}

// describe names the library: "/…/libcublas.so.13.1.0.3 (cuBLAS 13.1.0)".
func (b *blas) describe() string {
	if b.version == "" {
		return b.lib.Path
	}
	return b.lib.Path + " (cuBLAS " + b.version + ")"
}

func leadingNumber(v string) (int, bool) {
	n, i := 0, 0
	for ; i < len(v) && v[i] >= '0' && v[i] <= '9' && i < 4; i++ {
		n = n*10 + int(v[i]-'0')
	}
	return n, i > 0
}

// blasPicker chooses the cuBLAS the GPUs use. Candidates built for a newer
// CUDA release than the driver's are skipped before they load (dl.Env's
// DriverCUDA); one that loads but whose cublasCreate fails is dropped for
// the next candidate, so a working older soname on disk is still found.
// Nothing is swallowed: every library passed over is remembered with why.
type blasPicker struct {
	env   dl.Env
	cands []string

	mu      sync.Mutex
	started bool
	cur     *blas
	openErr error    // why no further library loaded
	notes   []string // the libraries passed over, and why
	// tooNew: a library was passed over for being built for a newer CUDA
	// than the driver's.
	tooNew bool
}

func newBLASPicker(env dl.Env) *blasPicker {
	return &blasPicker{env: env, cands: dl.Candidates(dl.CUBLAS, env)}
}

// current is the library to try, nil when none is left.
func (p *blasPicker) current() *blas {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		p.started = true
		p.load(0)
	}
	return p.cur
}

// drop records that b could not start (why) and moves on to the next
// candidate after it, unless another GPU already did.
func (p *blasPicker) drop(b *blas, why error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != b {
		return
	}
	p.notes = append(p.notes, fmt.Sprintf("%s could not start: %v", b.describe(), why))
	if !dl.Runs(b.built, p.env.DriverCUDA) {
		p.tooNew = true
	}
	next := len(p.cands)
	for i, c := range p.cands {
		if c == b.lib.Candidate {
			next = i + 1
			break
		}
	}
	p.load(next)
}

// load opens the first candidate from index i on that loads and binds.
func (p *blasPicker) load(i int) {
	p.cur = nil
	for i <= len(p.cands) {
		lib, err := dl.OpenFrom(dl.CUBLAS, p.env, p.cands[i:])
		if lib != nil {
			for _, a := range lib.Tried {
				if a.TooOld != nil {
					p.notes = append(p.notes, fmt.Sprintf("%s skipped: %s", a.Path, a.Err))
					p.tooNew = true
				}
			}
		}
		if err != nil {
			var oe *dl.OpenError
			if errors.As(err, &oe) {
				for _, a := range oe.TooOld() {
					p.notes = append(p.notes, fmt.Sprintf("%s skipped: %s", a.Path, a.Error()))
					p.tooNew = true
				}
			}
			p.openErr = err
			return
		}
		b, err := bindBLAS(lib)
		if err == nil {
			p.cur = b
			return
		}
		p.notes = append(p.notes, fmt.Sprintf("%s: %v", lib.Path, err))
		k := slices.Index(p.cands[i:], lib.Candidate)
		if k < 0 {
			return
		}
		i += k + 1
	}
}

// skipped lists the libraries passed over so far.
func (p *blasPicker) skipped() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.notes)
}

// noneError says why no cuBLAS works on this GPU, with the fix. It
// matches dl.ErrNotFound when none was found at all.
func (p *blasPicker) noneError(driverCUDA int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	parts := slices.Clone(p.notes)
	fix := "install cuBLAS: a CUDA build of PyTorch brings it (pip install nvidia-cublas-cu12 or -cu13), or the CUDA toolkit's libcublas"
	if len(p.notes) > 0 && !p.tooNew {
		fix = "a cuBLAS that loads but whose cublasCreate fails misses GPU memory or a matching libcublasLt: free the GPU, or reinstall cuBLAS (" +
			"pip install --force-reinstall nvidia-cublas-cu12 or -cu13, or the CUDA toolkit's libcublas)"
	}
	if p.tooNew && driverCUDA > 0 {
		major := driverCUDA / 1000
		fix = fmt.Sprintf("this driver supports CUDA %s: install a cuBLAS for CUDA %d (pip install nvidia-cublas-cu%d, or the CUDA %d toolkit's libcublas), "+
			"or upgrade the NVIDIA driver (CUDA 13 needs ≥ %s; source: %s)", dl.CUDAVersion(driverCUDA), major, major, major, dl.MinDriver(13), dl.CompatSource)
	}
	msg := "no cuBLAS could start"
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, "; ")
	}
	if p.openErr != nil && len(p.notes) == 0 {
		return fmt.Errorf("%w; fix: %s", p.openErr, fix)
	}
	if p.openErr != nil {
		return fmt.Errorf("%s; no other cuBLAS found (%w); fix: %s", msg, p.openErr, fix)
	}
	return fmt.Errorf("%s; fix: %s", msg, fix)
}

// cudaDataType_t and cublasComputeType_t values (library_types.h,
// cublas_api.h).
const (
	cudaR32F  = 0
	cudaR64F  = 1
	cudaR16F  = 2
	cudaR16BF = 14

	computeF32     = 68
	computeF64     = 70
	computeF32TF32 = 77

	opN         = 0  // CUBLAS_OP_N
	gemmDefault = -1 // CUBLAS_GEMM_DEFAULT
	mathDefault = 0  // CUBLAS_DEFAULT_MATH
)

// gemmTypes maps a dtype to cublasGemmEx's element and compute types;
// ok is false for a type this binding does not run (fp8 needs cublasLt).
func gemmTypes(dt gpu.DType) (elem, compute int32, ok bool) {
	switch dt {
	case gpu.FP32:
		return cudaR32F, computeF32, true
	case gpu.TF32:
		return cudaR32F, computeF32TF32, true
	case gpu.BF16:
		return cudaR16BF, computeF32, true
	case gpu.FP16:
		return cudaR16F, computeF32, true
	case gpu.FP64:
		return cudaR64F, computeF64, true
	}
	return 0, 0, false
}

// checkGemmDims bounds m, n, k to what cuBLAS's int arguments hold.
func checkGemmDims(m, n, k int) error {
	for _, d := range []struct {
		name string
		v    int
	}{{"m", m}, {"n", n}, {"k", k}} {
		if d.v < 1 || d.v > 1<<31-1 {
			return fmt.Errorf("gemm: %s = %d is not in 1..2147483647", d.name, d.v)
		}
	}
	return nil
}
