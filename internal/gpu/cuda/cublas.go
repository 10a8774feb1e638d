package cuda

import (
	"fmt"
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

// boundLib is a vendor library loaded and bound for the picker
// (libPicker): its path, the version it reports and the CUDA release it is
// built for. cuBLAS and cuBLASLt embed it.
type boundLib struct {
	lib     *dl.Library
	name    string // "cuBLAS", for describe
	version string // the library's own, "13.1.0"; "" when it gives none
	built   int    // the CUDA major release it is built for; 0 when unknown
}

// bindLib binds table from lib and reads the version lib reports (the
// CUDA release it is built for follows the version's major, else the
// file name's).
func bindLib(lib *dl.Library, which dl.Lib, name string, table []dl.Symbol) (boundLib, error) {
	b := boundLib{lib: lib, name: name, built: dl.BuiltFor(which, lib.Candidate)}
	if _, err := lib.Bind(table); err != nil {
		return b, err
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
func (b *boundLib) describe() string {
	if b.version == "" {
		return b.lib.Path
	}
	return b.lib.Path + " (" + b.name + " " + b.version + ")"
}

// The picker's view of a library.
func (b *boundLib) library() *dl.Library { return b.lib }
func (b *boundLib) builtFor() int        { return b.built }

func leadingNumber(v string) (int, bool) {
	n, i := 0, 0
	for ; i < len(v) && v[i] >= '0' && v[i] <= '9' && i < 4; i++ {
		n = n*10 + int(v[i]-'0')
	}
	return n, i > 0
}

// blas is a loaded and bound libcublas.
type blas struct {
	boundLib
	f blasFuncs
}

func bindBLAS(lib *dl.Library) (*blas, error) {
	b := &blas{}
	var err error
	b.boundLib, err = bindLib(lib, dl.CUBLAS, "cuBLAS", b.f.table())
	if err != nil {
		return nil, err
	}
	return b, nil
}

// newBLASPicker chooses the cuBLAS the GPUs use (libPicker): the fix when
// none starts names the cuBLAS to install or the driver to upgrade.
func newBLASPicker(env dl.Env) *libPicker[*blas] {
	return &libPicker[*blas]{lib: dl.CUBLAS, name: "cuBLAS", env: env, cands: dl.Candidates(dl.CUBLAS, env), bind: bindBLAS,
		fixes: pickerFixes{
			missing: "install cuBLAS: a CUDA build of PyTorch brings it (pip install nvidia-cublas-cu12 or -cu13), or the CUDA toolkit's libcublas",
			noStart: "a cuBLAS that loads but whose cublasCreate fails misses GPU memory or a matching libcublasLt: free the GPU, or reinstall cuBLAS (" +
				"pip install --force-reinstall nvidia-cublas-cu12 or -cu13, or the CUDA toolkit's libcublas)",
			tooNew: func(major int) string {
				return fmt.Sprintf("install a cuBLAS for CUDA %d (pip install nvidia-cublas-cu%d, or the CUDA %d toolkit's libcublas)", major, major, major)
			},
		}}
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
