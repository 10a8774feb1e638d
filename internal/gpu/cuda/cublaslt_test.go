package cuda

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

// e4m3 encodes a value that E4M3 holds exactly (normal: ±(1 + m/8)·2^e,
// e in -6..8), for the tests' operands.
func e4m3(t *testing.T, v float64) byte {
	t.Helper()
	var sign byte
	if v < 0 {
		sign, v = 0x80, -v
	}
	frac, exp := math.Frexp(v) // v = frac·2^exp, frac in [0.5, 1)
	m := (2*frac - 1) * 8
	if m != math.Trunc(m) || exp-1 < -6 || exp-1 > 8 {
		t.Fatalf("%g is not an E4M3 normal", v)
	}
	return sign | byte(exp-1+7)<<3 | byte(m)
}

// bf16 rounds to bfloat16 (to nearest, ties to even) and widens it back.
func bf16(f float32) float32 {
	u := math.Float32bits(f)
	u = (u + 0x7fff + (u>>16)&1) >> 16
	return math.Float32frombits(u << 16)
}

func (f *fakes) lastLt() string {
	buf := make([]byte, 512)
	f.ltLast(&buf[0], int32(len(buf)))
	return cString(buf)
}

func (f *fakes) ltRefusal() (int32, string) {
	buf := make([]byte, 256)
	n := f.ltBad(&buf[0], int32(len(buf)))
	return n, cString(buf)
}

// fp8Operands uploads an m×k A, stored transposed (A[i][p] at p + i·k) as
// cuBLASLt's FP8 kernels read it, and a k×n B, of E4M3 values, and returns
// them with an m×n bf16 C and the exact product.
func fp8Operands(t *testing.T, d *Device, m, n, k int) (a, b, c gpu.Ptr, want []float64) {
	t.Helper()
	vals := []float64{0.25, -0.5, 0.75, 1, -1.5, 0.5, -0.25}
	A := func(i, p int) float64 { return vals[(3*i+p)%len(vals)] }
	B := func(p, j int) float64 { return vals[(p+2*j)%len(vals)] }
	ha, hb := make([]byte, k*m), make([]byte, k*n)
	for i := range m {
		for p := range k {
			ha[p+i*k] = e4m3(t, A(i, p))
		}
	}
	for j := range n {
		for p := range k {
			hb[p+j*k] = e4m3(t, B(p, j))
		}
	}
	want = make([]float64, m*n)
	for j := range n {
		for i := range m {
			var s float64
			for p := range k {
				s += A(i, p) * B(p, j)
			}
			want[i+j*m] = s
		}
	}
	var err error
	for _, x := range []struct {
		p    *gpu.Ptr
		size int
		host []byte
	}{{&a, k * m, ha}, {&b, k * n, hb}, {&c, 2 * m * n, nil}} {
		if *x.p, err = d.Alloc(int64(x.size)); err != nil {
			t.Fatal(err)
		}
		if x.host != nil {
			if err := d.Upload(*x.p, x.host); err != nil {
				t.Fatal(err)
			}
		}
	}
	return a, b, c, want
}

// Issue 26, item 6: an FP8 product on the H200 runs through cuBLASLt (it
// was "not implemented"): E4M3 A (transposed) and B, fp32 compute and
// scales, the TN layout, a bf16 C, the 32 MiB workspace; C is the exact
// product rounded to bf16. A repeated shape reuses its plan; another
// replaces it; Close leaves nothing of cuBLASLt's.
func TestGemmFP8(t *testing.T) {
	f := newFakes(t, true, false)
	d := f.open(t, Options{NoNVML: true})[0]
	libs := d.Info().Libraries
	if libs["cublaslt_version"] != "13.1.0" || !strings.HasSuffix(libs["cublaslt"], "/libcublasLt.so.13") || libs["cublaslt_error"] != "" {
		t.Errorf("Libraries: cublaslt %q, version %q, error %q", libs["cublaslt"], libs["cublaslt_version"], libs["cublaslt_error"])
	}
	if d.LtError() != nil {
		t.Fatal(d.LtError())
	}
	const m, n, k = 32, 16, 48
	a, b, c, want := fp8Operands(t, d, m, n, k)
	if err := d.Gemm(gpu.FP8, m, n, k, a, b, c); err != nil {
		t.Fatal(err)
	}
	const args = "transa=1 transb=0 m=32 n=16 k=48 atype=28 btype=28 ctype=14 dtype=14 lda=48 ldb=48 ldc=32 ldd=32 " +
		"compute=68 scale=0 ascale=1 bscale=1 dscale=unset fast_accum=0 workspace=33554432"
	if got := f.lastLt(); got != args {
		t.Errorf("cublasLtMatmul got\n %s\nwant\n %s", got, args)
	}
	out := make([]byte, 2*m*n)
	if err := d.Download(out, c); err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		got := math.Float32frombits(uint32(binary.LittleEndian.Uint16(out[2*i:])) << 16)
		if got != bf16(float32(w)) {
			t.Fatalf("C[%d] = %v, want %v (%v in bf16)", i, got, w, bf16(float32(w)))
		}
	}
	live := func() [4]int32 {
		var l [4]int32
		for i := range l {
			l[i] = f.ltLive(int32(i))
		}
		return l
	}
	if err := d.Gemm(gpu.FP8, m, n, k, a, b, c); err != nil {
		t.Fatal(err)
	}
	if l := live(); l != [4]int32{1, 1, 3, 0} {
		t.Errorf("after two products: handles, descriptors, layouts, preferences live = %v, want one plan: [1 1 3 0]", l)
	}
	if err := d.Gemm(gpu.FP8, 16, 16, 16, a, b, c); err != nil {
		t.Fatal(err)
	}
	if l := live(); l != [4]int32{1, 1, 3, 0} || !strings.Contains(f.lastLt(), "m=16 n=16 k=16") {
		t.Errorf("another shape: live %v, last %q; want its plan in place of the first", l, f.lastLt())
	}
	for _, p := range []gpu.Ptr{a, b, c} {
		d.Free(p)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if l := live(); l != [4]int32{} {
		t.Errorf("after Close: live %v, want nothing", l)
	}
}

// A GPU below compute capability 8.9 (an A100, 8.0) has no FP8 tensor
// cores: FP8 stays unsupported, and cuBLASLt is not even asked. The
// compute capability comes from NVML here, as on a real node.
func TestGemmFP8BelowAda(t *testing.T) {
	f := newFakes(t, true, true)
	f.set("cc", 80)
	d := f.open(t, Options{})[0]
	if cc := d.Info().ComputeCap; cc != "8.0" {
		t.Fatalf("compute capability %q, want 8.0", cc)
	}
	p, _ := d.Alloc(4096)
	defer d.Free(p)
	err := d.Gemm(gpu.FP8, 16, 16, 16, p, p, p)
	if !errors.Is(err, gpu.ErrUnsupported) || !strings.Contains(err.Error(), "compute capability 8.0 has no FP8 tensor cores") {
		t.Errorf("fp8 on 8.0: %v, want gpu.ErrUnsupported", err)
	}
	if got := f.lastLt(); got != "" {
		t.Errorf("cuBLASLt was asked for a product: %s", got)
	}
}

// ltTry builds one FP8 problem by hand, asks cuBLASLt's heuristic for it
// and, when it answers, runs it: what the fake says of layouts gpuscout
// never makes.
type ltTry struct {
	transA   int32
	lda      int64
	noScales bool
}

func (tc ltTry) run(t *testing.T, d *Device, a, b, c, scale, work gpu.Ptr) (heur, mm, returned int32) {
	t.Helper()
	const m, n, k = 32, 16, 32
	lt := &d.lt.f
	err := d.w.do("test", func() {
		var desc, la, lb, lc, pref uintptr
		defer func() {
			for _, l := range []uintptr{la, lb, lc} {
				if l != 0 {
					lt.layoutDestroy(l)
				}
			}
			if pref != 0 {
				lt.prefDestroy(pref)
			}
			if desc != 0 {
				lt.descDestroy(desc)
			}
		}()
		if rc := lt.descCreate(&desc, computeF32, cudaR32F); rc != 0 {
			t.Errorf("descCreate: %d", rc)
			return
		}
		ta, tb, sp := tc.transA, int32(opN), uint64(scale)
		lt.descSetAttr(desc, ltDescTransA, unsafe.Pointer(&ta), 4)
		lt.descSetAttr(desc, ltDescTransB, unsafe.Pointer(&tb), 4)
		if !tc.noScales {
			lt.descSetAttr(desc, ltDescAScalePointer, unsafe.Pointer(&sp), 8)
			lt.descSetAttr(desc, ltDescBScalePointer, unsafe.Pointer(&sp), 8)
		}
		rowsA, colsA := uint64(k), uint64(m)
		if tc.transA == opN {
			rowsA, colsA = m, k
		}
		lt.layoutCreate(&la, cudaR8FE4M3, rowsA, colsA, tc.lda)
		lt.layoutCreate(&lb, cudaR8FE4M3, k, n, k)
		lt.layoutCreate(&lc, cudaR16BF, m, n, m)
		lt.prefCreate(&pref)
		ws := uint64(1 << 20)
		lt.prefSetAttr(pref, ltPrefMaxWorkspaceBytes, unsafe.Pointer(&ws), 8)
		var res ltHeuristic
		heur = lt.heuristic(d.ltHandle, desc, la, lb, lc, lc, pref, 1, &res, &returned)
		if heur != 0 || returned < 1 {
			return
		}
		alpha, beta := float32(1), float32(0)
		mm = lt.matmul(d.ltHandle, desc, unsafe.Pointer(&alpha), uint64(a), la, uint64(b), lb, unsafe.Pointer(&beta),
			uint64(c), lc, uint64(c), lc, &res.algo, uint64(work), ws, d.stream)
	})
	if err != nil {
		t.Fatal(err)
	}
	return heur, mm, returned
}

// The fake cuBLASLt refuses what the real one refuses for FP8 (the NN
// layout, a leading dimension that is not a multiple of 16 bytes, a GPU
// below 8.9: CUBLAS_STATUS_NOT_SUPPORTED, no algorithm) and what gpuscout
// must never do (no scale pointers: CUBLAS_STATUS_INVALID_VALUE); and the
// device's own checks come first: a shape cuBLASLt cannot run is refused
// before it is asked, and cuBLASLt's NOT_SUPPORTED on a GPU that has FP8
// is a failure with the fix, never "unsupported".
func TestGemmFP8Refusals(t *testing.T) {
	f := newFakes(t, true, false)
	d := f.open(t, Options{NoNVML: true})[0]
	var ptrs []gpu.Ptr
	alloc := func(n int64) gpu.Ptr {
		p, err := d.Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		ptrs = append(ptrs, p)
		return p
	}
	defer func() {
		for _, p := range ptrs {
			d.Free(p)
		}
	}()
	a, b, c, scale, work := alloc(64*64), alloc(64*64), alloc(2*64*64), alloc(16), alloc(1<<20)
	if err := d.Upload(scale, binary.LittleEndian.AppendUint32(nil, math.Float32bits(1))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name              string
		try               ltTry
		cc                int64
		heur, mm, results int32
		why               string
	}{
		{"TN, aligned, scaled", ltTry{transA: opT, lda: 32}, 90, 0, 0, 1, ""},
		{"NN layout", ltTry{transA: opN, lda: 32}, 90, statusNotSupported, 0, 0, "FP8 needs the TN layout"},
		{"lda 40", ltTry{transA: opT, lda: 40}, 90, statusNotSupported, 0, 0, "not a multiple of 16 bytes"},
		{"no scale pointers", ltTry{transA: opT, lda: 32, noScales: true}, 90, 0, statusInvalidValue, 1, "no A or B scale pointer"},
		{"compute capability 8.6", ltTry{transA: opT, lda: 32}, 86, statusNotSupported, 0, 0, "compute capability 8.9 or later"},
	} {
		f.set("cc", tc.cc)
		heur, mm, got := tc.try.run(t, d, a, b, c, scale, work)
		n, why := f.ltRefusal()
		if heur != tc.heur || mm != tc.mm || got != tc.results {
			t.Errorf("%s: heuristic %d (%d results), matmul %d; want %d (%d), %d (%s)", tc.name, heur, got, mm, tc.heur, tc.results, tc.mm, why)
		}
		if (tc.why == "") != (n == 0) || !strings.Contains(why, tc.why) {
			t.Errorf("%s: the fake's refusals: %d, %q; want %q", tc.name, n, why, tc.why)
		}
		f.ltSet("reset", 0)
	}
	f.set("cc", 90)

	// The device refuses shapes and pointers cuBLASLt's FP8 kernels cannot take.
	for _, s := range []struct {
		m, n, k int
		a       gpu.Ptr
		want    string
	}{{24, 16, 16, a, "need m, n and k multiples of 16"}, {16, 16, 8, a, "multiples of 16"}, {16, 16, 16, a + 8, "not 16-byte aligned"}} {
		err := d.Gemm(gpu.FP8, s.m, s.n, s.k, s.a, b, c)
		if err == nil || !strings.Contains(err.Error(), s.want) || errors.Is(err, gpu.ErrUnsupported) {
			t.Errorf("fp8 %d×%d×%d at %#x: %v, want %q", s.m, s.n, s.k, uint64(s.a), err, s.want)
		}
	}
	if got := f.lastLt(); got != "" {
		t.Errorf("cuBLASLt was asked: %s", got)
	}

	// A cuBLASLt without FP8 kernels for this GPU (here: the fake told the
	// GPU is 8.6 after Open read 9.0): a failure naming the fix.
	f.set("cc", 86)
	err := d.Gemm(gpu.FP8, 32, 32, 32, a, b, c)
	f.set("cc", 90)
	var ce *Error
	if err == nil || errors.Is(err, gpu.ErrUnsupported) || !errors.As(err, &ce) || ce.Name != "CUBLAS_STATUS_NOT_SUPPORTED" ||
		!strings.Contains(err.Error(), "has no FP8 kernel for this GPU (compute capability 9.0): install a newer cuBLAS") {
		t.Errorf("NOT_SUPPORTED on an FP8 GPU: %v; want a failure with the fix, not unsupported", err)
	}
	f.ltSet("reset", 0)
}

// FP8 products complete asynchronously, as the others do: in the fake
// driver's real-time mode, with 100 µs of host cost per call, pipelined
// batches of three 32³ products (2·32³ FLOP at 4096 FLOP/ns × 100000:
// 1.6 ms each) take their products' GPU time.
func TestGemmFP8Async(t *testing.T) {
	_, devs := asyncFakes(t, 1, 100_000, 100_000, false)
	d := devs[0]
	const n = 32
	a, b, c, _ := fp8Operands(t, d, n, n, n)
	defer func() {
		for _, p := range []gpu.Ptr{a, b, c} {
			d.Free(p)
		}
	}()
	batch := func() error {
		for range 3 {
			if err := d.Gemm(gpu.FP8, n, n, n, a, b, c); err != nil {
				return err
			}
		}
		return nil
	}
	dltest.Timing(t, func(errorf func(string, ...any)) {
		times, err := d.Pipeline(batch, func(done int) bool { return done < 10 })
		if err != nil {
			t.Fatal(err)
		}
		exact := 0
		want := 3 * 1600 * time.Microsecond
		for _, tm := range times {
			if math.Abs(float64(tm-want)) <= 1e-3*float64(want) {
				exact++
			}
		}
		if exact < len(times)*3/4 {
			errorf("%d of %d batches took their products' 4.8 ms: %v", exact, len(times), times)
		}
	})
}

// cublasLtMatmulAlgo_t is 64 bytes and cublasLtMatmulHeuristicResult_t 96
// (cublasLt.h), laid out as the header's fields.
func TestLtStructSizes(t *testing.T) {
	var h ltHeuristic
	if s := unsafe.Sizeof(ltAlgo{}); s != 64 {
		t.Errorf("cublasLtMatmulAlgo_t: %d bytes, want 64", s)
	}
	if s := unsafe.Sizeof(h); s != 96 {
		t.Errorf("cublasLtMatmulHeuristicResult_t: %d bytes, want 96", s)
	}
	if o := [...]uintptr{unsafe.Offsetof(h.workspaceSize), unsafe.Offsetof(h.state), unsafe.Offsetof(h.wavesCount), unsafe.Offsetof(h.reserved)}; o != [4]uintptr{64, 72, 76, 80} {
		t.Errorf("field offsets %v, want [64 72 76 80]", o)
	}
}

// Without cuBLASLt on the machine (the fakes of newNode have none), an FP8
// product is not measured (gpu.ErrNoLibrary), with the fix, never
// unsupported; the other products run.
func TestGemmFP8WithoutCuBLASLt(t *testing.T) {
	n := newNode(t, 1, false)
	d := n.open(t, Options{NoNVML: true})[0].(*Device)
	if err := d.LtError(); !errors.Is(err, gpu.ErrNoLibrary) || !errors.Is(err, dl.ErrNotFound) {
		t.Errorf("LtError = %v, want gpu.ErrNoLibrary", err)
	}
	p, _ := d.Alloc(4096)
	defer d.Free(p)
	err := d.Gemm(gpu.FP8, 16, 16, 16, p, p, p)
	if !errors.Is(err, gpu.ErrNoLibrary) || errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("fp8 without cuBLASLt: %v", err)
	}
	mustContain(t, "Gemm's error", err.Error(), "gemm fp8 needs cuBLASLt", "install cuBLAS, which brings cuBLASLt")
	if err := d.Gemm(gpu.FP32, 4, 4, 4, p, p, p); err != nil {
		t.Errorf("fp32 without cuBLASLt: %v", err)
	}
	if !strings.Contains(d.Info().Libraries["cublaslt_error"], "cublasLt: no library loaded") {
		t.Errorf("Libraries[cublaslt_error] = %q", d.Info().Libraries["cublaslt_error"])
	}
}

// cuBLASLt is chosen against the driver as cuBLAS is: on a CUDA 12.4
// driver the CUDA 13 one is skipped for the CUDA 12 one; and the one beside
// the cuBLAS in use (its folder, its version) comes first.
func TestCuBLASLtMatchesTheDriver(t *testing.T) {
	n := newNode(t, 1, true)
	lt13 := dltest.Build(t, "testdata/fakecublaslt.c", "libcublasLt.so.13")
	lt12 := dltest.Build(t, "testdata/fakecublaslt.c", "libcublasLt.so.12", "-DCUDA_MAJOR=12")
	n.cuda("driver", 12040)
	env := n.env
	env.Dirs = append(slices.Clone(n.env.Dirs), lt13, lt12)
	d := n.open(t, Options{NoNVML: true, Env: &env})[0].(*Device)
	if v := d.Info().Libraries["cublaslt_version"]; v != "12.9.1" {
		t.Errorf("cuBLASLt %q on a CUDA 12.4 driver, want the CUDA 12 one (12.9.1); error: %v", v, d.LtError())
	}
	mustContain(t, "LtSkipped", strings.Join(d.LtSkipped(), "\n"), lt13+"/libcublasLt.so.13 skipped: built for CUDA 13")
	n.cuda("driver", 13000)

	// cuBLAS 12 and its cuBLASLt in one folder (as a toolkit has them),
	// a cuBLASLt 13 earlier on the path: the pair goes together.
	pair := t.TempDir()
	for src, dst := range map[string]string{
		n.env.Dirs[3] + "/libcublas.so.12": pair + "/libcublas.so.12", lt12 + "/libcublasLt.so.12": pair + "/libcublasLt.so.12",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env.Dirs = []string{n.env.Dirs[0], lt13, pair}
	d = n.open(t, Options{NoNVML: true, Env: &env})[0].(*Device)
	libs := d.Info().Libraries
	if libs["cublas_version"] != "12.9.1" || libs["cublaslt_version"] != "12.9.1" || filepath.Dir(libs["cublaslt"]) != filepath.Dir(libs["cublas"]) {
		t.Errorf("cuBLAS %s %s, cuBLASLt %s %s: want the cuBLASLt beside the cuBLAS", libs["cublas"], libs["cublas_version"], libs["cublaslt"], libs["cublaslt_version"])
	}
}

// A cuBLASLt that is there but whose cublasLtCreate fails: FP8 products
// fail, naming it and the fix (not "missing", not "unsupported").
func TestGemmFP8WhenCuBLASLtCannotStart(t *testing.T) {
	f := newFakes(t, true, false)
	f.ltSet("create_rc", 1)
	t.Cleanup(func() { f.ltSet("reset", 0) })
	d := f.open(t, Options{NoNVML: true})[0]
	err := d.LtError()
	if err == nil || errors.Is(err, gpu.ErrNoLibrary) {
		t.Fatalf("LtError = %v, want a failure that is not a missing library", err)
	}
	mustContain(t, "LtError", err.Error(), "no cuBLASLt could start", "(cuBLASLt 13.1.0) could not start: GPU 0: cublasLtCreate: CUBLAS_STATUS_NOT_INITIALIZED (1)",
		"fix: a cuBLASLt that loads but whose cublasLtCreate fails is broken or mismatched: reinstall cuBLAS")
	p, _ := d.Alloc(4096)
	defer d.Free(p)
	if err := d.Gemm(gpu.FP8, 16, 16, 16, p, p, p); err == nil || errors.Is(err, gpu.ErrNoLibrary) || errors.Is(err, gpu.ErrUnsupported) ||
		!strings.Contains(err.Error(), "gemm fp8 needs cuBLASLt: no cuBLASLt could start") {
		t.Errorf("fp8: %v", err)
	}
}
