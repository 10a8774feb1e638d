package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// GEMMFLOPs is the floating-point operations of an m×k by k×n product:
// a multiply and an add per term, 2·m·n·k.
func GEMMFLOPs(m, n, k int) float64 { return 2 * float64(m) * float64(n) * float64(k) }

// ErrorBound is the largest relative error a sampled GEMM output element may
// have for its type, against a float64 dot product of the same (rounded)
// operands, relative to the root sum of squares of the dot product's terms
// (the typical size of an output element). Rounding the output to the type
// and accumulating in fp32 stay well inside it; a wrong result (zeros,
// transposed operands, garbage) is off by about 1.
func ErrorBound(dt gpu.DType) float64 {
	switch dt {
	case gpu.FP64:
		return 1e-9
	case gpu.FP32:
		return 1e-3
	case gpu.TF32, gpu.FP16:
		return 1e-2 // TF32 rounds the operands to 10 mantissa bits; fp16 output has 11
	case gpu.BF16:
		return 3e-2 // output rounded to 8 mantissa bits, up to 4 typical sizes large
	case gpu.FP8:
		// The E4M3 operands are exact (the host computes with the same
		// values), their products exact in fp32; what is left is fp32
		// accumulation and the bf16 output (gpu.FP8.GemmOutput()): bf16's
		// bound.
		return 3e-2
	}
	return 0.3
}

// operands are a GEMM's matrices on the device and their host copies.
type operands struct {
	dt      gpu.DType
	n       int
	a, b, c gpu.Ptr
	ha, hb  []byte // A and B as uploaded (dt's bits; A transposed where dt.GemmTransA())
	dev     gpu.Device
}

// newOperands allocates n×n A, B and C (C of dt.GemmOutput(): bf16 for
// FP8), fills A and B with random values and uploads them. A random A
// is as random transposed: for FP8, whose A the device takes transposed,
// the same bytes stand for Aᵀ (check reads them so).
func (r *run) newOperands(dt gpu.DType, n int) (*operands, error) {
	o := &operands{dt: dt, n: n, dev: r.dev}
	size := int64(n) * int64(n) * int64(dt.ElemBytes())
	csize := int64(n) * int64(n) * int64(dt.GemmOutput().ElemBytes())
	var err error
	for _, x := range []struct {
		p    *gpu.Ptr
		size int64
	}{{&o.a, size}, {&o.b, size}, {&o.c, csize}} {
		p, size := x.p, x.size
		if *p, err = r.dev.Alloc(size); err != nil {
			o.free()
			return nil, fmt.Errorf("allocating %d MiB for a %d×%d %s matrix: %w", size>>20, n, n, dt, err)
		}
	}
	o.ha = RandomOperand(dt, n*n, 1)
	o.hb = RandomOperand(dt, n*n, 2)
	if err := r.dev.Upload(o.a, o.ha); err != nil {
		o.free()
		return nil, err
	}
	if err := r.dev.Upload(o.b, o.hb); err != nil {
		o.free()
		return nil, err
	}
	return o, nil
}

func (o *operands) free() {
	for _, p := range []gpu.Ptr{o.a, o.b, o.c} {
		if p != 0 {
			_ = o.dev.Free(p)
		}
	}
}

func (o *operands) gemm() error { return o.dev.Gemm(o.dt, o.n, o.n, o.n, o.a, o.b, o.c) }

// RandomOperand returns count random values of dt's storage: magnitudes
// uniform in [0.25, 1) of either sign (never zero: zeros multiply faster),
// rounded to the type. The same seed gives the same values. For FP8 (E4M3)
// they are the magnitudes 0.25 to 1 that E4M3 holds (steps of 1/32 below
// 0.5, 1/16 above): their products are multiples of 1/1024 with at most 8
// significant bits, so the products and their sums up to 16384 in
// magnitude are exact in fp32, and the check sees the device's bf16
// output, not the host's rounding.
func RandomOperand(dt gpu.DType, count int, seed uint64) []byte {
	buf := make([]byte, count*dt.ElemBytes())
	const chunk = 1 << 20
	chunks := (count + chunk - 1) / chunk
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for c := range chunks {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			for i := c * chunk; i < min(count, (c+1)*chunk); i++ {
				u := rng.Uint64()
				v := float32(0.25 + 0.75*float64(u&(1<<52-1))/(1<<52))
				if u>>63 == 1 {
					v = -v
				}
				put(dt, buf, i, v)
			}
		})
	}
	wg.Wait()
	return buf
}

// check downloads sampled elements of C and compares each with a float64
// dot product of the host operands (A read transposed where the device
// takes it so, C in dt.GemmOutput()); it returns the largest relative
// error, or an error for one beyond ErrorBound.
func (o *operands) check(count int) (float64, error) {
	out := o.dt.GemmOutput()
	n, eb := o.n, out.ElemBytes()
	aAt := func(i, p int) int { return i + p*n }
	if o.dt.GemmTransA() {
		aAt = func(i, p int) int { return p + i*n }
	}
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	cell := make([]byte, eb)
	var worst float64
	for s := range max(count, 2) {
		i, j := 0, 0 // the first and last elements, then random ones
		switch s {
		case 0:
		case 1:
			i, j = n-1, n-1
		default:
			i, j = rng.IntN(n), rng.IntN(n)
		}
		var want, ss float64
		for p := range n {
			t := at(o.dt, o.ha, aAt(i, p)) * at(o.dt, o.hb, p+j*n)
			want += t
			ss += t * t
		}
		if err := o.dev.Download(cell, o.c+gpu.Ptr((i+j*n)*eb)); err != nil {
			return worst, fmt.Errorf("reading C[%d,%d] back: %w", i, j, err)
		}
		got := at(out, cell, 0)
		rel := math.Abs(got-want) / math.Sqrt(ss)
		if !(rel <= ErrorBound(o.dt)) { // NaN fails too
			return rel, fmt.Errorf("wrong result: C[%d,%d] = %g, want %g (relative error %.2g, above %s's bound %.0e)", i, j, got, want, rel, o.dt, ErrorBound(o.dt))
		}
		worst = max(worst, rel)
	}
	return worst, nil
}

// gemm measures one type's n×n×n product: TFLOP/s from the median time,
// then a correctness check of sampled outputs.
func (r *run) gemm(dt gpu.DType) benchreport.Measurement {
	name, n := "gemm_"+dt.String(), r.plan.GemmN
	o, err := r.newOperands(dt, n)
	if err != nil {
		return r.failure(name, UnitTFLOPS, err)
	}
	defer o.free()
	perOp, reps, err := r.timeOp(o.gemm)
	if err != nil {
		if skipType(err) {
			r.unsupp[dt] = true // the sustained run takes another type
		}
		return r.failure(name, UnitTFLOPS, err)
	}
	worst, err := o.check(r.plan.Checks)
	if err != nil {
		return r.failure(name, UnitTFLOPS, err)
	}
	m := r.rate(name, UnitTFLOPS, GEMMFLOPs(n, n, n)/1e12, perOp)
	m.Detail = fmt.Sprintf("%d³, %d per sample; %d outputs checked, max relative error %.1e", n, reps, max(r.plan.Checks, 2), worst) + typeNote(dt)
	return m
}

// typeNote says, in a GEMM's detail, what its type's product is where the
// name does not say it all: FP8's inputs, output and layout.
func typeNote(dt gpu.DType) string {
	if dt == gpu.FP8 {
		return "; E4M3 inputs, fp32 accumulation, bf16 output, A transposed (cuBLASLt's TN layout)"
	}
	return ""
}
