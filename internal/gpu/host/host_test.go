package host

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Products across block edges (m > mc, k > kc, k not a multiple of 4) equal
// a float64 triple loop, on one thread and on three.
func TestGemmMatchesTripleLoop(t *testing.T) {
	for _, tc := range []struct {
		dt      gpu.DType
		m, n, k int
		threads int
		tol     float64
	}{
		{gpu.FP64, 130, 7, 261, 1, 1e-12},
		{gpu.FP64, 130, 7, 261, 3, 1e-12},
		{gpu.FP32, 5, 9, 3, 2, 1e-6},
		{gpu.FP32, 129, 17, 300, 3, 1e-5},
	} {
		d := New(Config{Threads: tc.threads})
		eb := tc.dt.ElemBytes()
		av, bv := seq(tc.m*tc.k, 1), seq(tc.k*tc.n, 2)
		a, b, c := mustAlloc(t, d, tc.m*tc.k*eb), mustAlloc(t, d, tc.k*tc.n*eb), mustAlloc(t, d, tc.m*tc.n*eb)
		upload(t, d, tc.dt, a, av)
		upload(t, d, tc.dt, b, bv)
		if err := d.Gemm(tc.dt, tc.m, tc.n, tc.k, a, b, c); err != nil {
			t.Fatal(err)
		}
		got := download(t, d, tc.dt, c, tc.m*tc.n)
		for j := range tc.n {
			for i := range tc.m {
				var want, scale float64
				for p := range tc.k {
					want += av[i+p*tc.m] * bv[p+j*tc.k]
					scale += math.Abs(av[i+p*tc.m] * bv[p+j*tc.k])
				}
				if e := math.Abs(got[i+j*tc.m]-want) / scale; e > tc.tol {
					t.Fatalf("%s %dx%dx%d threads %d: C[%d,%d] = %g, want %g (relative error %g)", tc.dt, tc.m, tc.n, tc.k, tc.threads, i, j, got[i+j*tc.m], want, e)
				}
			}
		}
	}
}

// seq is a deterministic sequence of non-zero values of both signs.
func seq(n int, salt int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64((i*7+salt*13)%23-11) + 0.5
	}
	return out
}

func mustAlloc(t *testing.T, d *Device, n int) gpu.Ptr {
	t.Helper()
	p, err := d.Alloc(int64(n))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func upload(t *testing.T, d *Device, dt gpu.DType, p gpu.Ptr, v []float64) {
	t.Helper()
	b := make([]byte, len(v)*dt.ElemBytes())
	for i, x := range v {
		if dt == gpu.FP32 {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		} else {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
	}
	if err := d.Upload(p, b); err != nil {
		t.Fatal(err)
	}
}

func download(t *testing.T, d *Device, dt gpu.DType, p gpu.Ptr, n int) []float64 {
	t.Helper()
	b := make([]byte, n*dt.ElemBytes())
	if err := d.Download(b, p); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, n)
	for i := range out {
		if dt == gpu.FP32 {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		} else {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	return out
}

// Copy, Fill32, Upload and Download work on pointers inside an allocation
// and refuse ranges that leave it.
func TestMemory(t *testing.T) {
	d := New(Config{Threads: 2})
	const size = 3 << 20 // above minParallelCopy, so the copy runs split
	src, dst := mustAlloc(t, d, size), mustAlloc(t, d, size)
	if err := d.Fill32(src, 0xdeadbeef, size/4); err != nil {
		t.Fatal(err)
	}
	if err := d.Fill32(src+8, 7, 1); err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(dst, src, size); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 16)
	if err := d.Download(got, dst); err != nil {
		t.Fatal(err)
	}
	want := []uint32{0xdeadbeef, 0xdeadbeef, 7, 0xdeadbeef}
	for i, w := range want {
		if g := binary.LittleEndian.Uint32(got[4*i:]); g != w {
			t.Errorf("word %d = %#x, want %#x", i, g, w)
		}
	}
	tail := make([]byte, 4)
	if err := d.Download(tail, dst+size-4); err != nil || binary.LittleEndian.Uint32(tail) != 0xdeadbeef {
		t.Errorf("last word: %x, %v; want deadbeef", tail, err)
	}
	for name, err := range map[string]error{
		"copy past the end":     d.Copy(dst+1, src, size),
		"download past end":     d.Download(make([]byte, 8), dst+size-4),
		"upload to nowhere":     d.Upload(5, []byte{1}),
		"fill unaligned":        d.Fill32(src+1, 1, 1),
		"free inside":           d.Free(src + 8),
		"alloc zero":            errOf(d.Alloc(0)),
		"alloc above the cap":   errOf(d.Alloc(MaxAlloc + 1)),
		"gemm with no columns":  d.Gemm(gpu.FP32, 4, 0, 4, src, src, dst),
		"gemm over its operand": d.Gemm(gpu.FP32, 4, 4, 4, src, dst, src+32),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := d.Free(src); err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(dst, src, 4); err == nil || !strings.Contains(err.Error(), "not inside one allocation") {
		t.Errorf("copy from freed memory: got %v", err)
	}
}

func errOf(_ gpu.Ptr, err error) error { return err }

// Types the CPU does not multiply are gpu.ErrUnsupported, not failures.
func TestGemmUnsupported(t *testing.T) {
	d := New(Config{})
	p := mustAlloc(t, d, 64)
	for _, dt := range []gpu.DType{gpu.TF32, gpu.BF16, gpu.FP16, gpu.FP8} {
		if err := d.Gemm(dt, 2, 2, 2, p, p, p); !errors.Is(err, gpu.ErrUnsupported) {
			t.Errorf("%s: got %v, want gpu.ErrUnsupported", dt, err)
		}
	}
}

// Time counts the operations run inside it, and Info says it is the CPU.
func TestTimeAndInfo(t *testing.T) {
	d := New(Config{Name: "AMD EPYC", MemoryBytes: 8 << 30, Threads: 2})
	a, c := mustAlloc(t, d, 64*64*4), mustAlloc(t, d, 64*64*4)
	dur, err := d.Time(func() error { return d.Gemm(gpu.FP32, 64, 64, 64, a, a, c) })
	if err != nil || dur <= 0 {
		t.Errorf("Time: %v, %v; want a positive duration", dur, err)
	}
	if info := d.Info(); !info.IsCPU || info.Multiprocs != 2 || info.Name != "AMD EPYC" || info.MemoryBytes != 8<<30 {
		t.Errorf("Info = %+v", info)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Alloc(8); err == nil {
		t.Error("Alloc after Close: no error")
	}
}
