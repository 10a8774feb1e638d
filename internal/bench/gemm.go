package bench

import (
	"errors"
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
	}
	return 0.3 // FP8 E4M3: 3 mantissa bits
}

// operands are a GEMM's matrices on the device and their host copies.
type operands struct {
	dt      gpu.DType
	n       int
	a, b, c gpu.Ptr
	ha, hb  []byte // A and B as uploaded (dt's bits)
	dev     gpu.Device
}

// newOperands allocates n×n A, B and C, fills A and B with random values and
// uploads them.
func (r *run) newOperands(dt gpu.DType, n int) (*operands, error) {
	o := &operands{dt: dt, n: n, dev: r.dev}
	size := int64(n) * int64(n) * int64(dt.ElemBytes())
	var err error
	for _, p := range []*gpu.Ptr{&o.a, &o.b, &o.c} {
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
// rounded to the type. The same seed gives the same values.
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
// dot product of the host operands; it returns the largest relative error,
// or an error for one beyond ErrorBound.
func (o *operands) check(count int) (float64, error) {
	n, eb := o.n, o.dt.ElemBytes()
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
			t := at(o.dt, o.ha, i+p*n) * at(o.dt, o.hb, p+j*n)
			want += t
			ss += t * t
		}
		if err := o.dev.Download(cell, o.c+gpu.Ptr((i+j*n)*eb)); err != nil {
			return worst, fmt.Errorf("reading C[%d,%d] back: %w", i, j, err)
		}
		got := at(o.dt, cell, 0)
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
		if errors.Is(err, gpu.ErrUnsupported) || errors.Is(err, gpu.ErrNotImplemented) {
			r.unsupp[dt] = true // the sustained run takes another type
		}
		return r.failure(name, UnitTFLOPS, err)
	}
	worst, err := o.check(r.plan.Checks)
	if err != nil {
		return r.failure(name, UnitTFLOPS, err)
	}
	m := r.rate(name, UnitTFLOPS, GEMMFLOPs(n, n, n)/1e12, perOp)
	m.Detail = fmt.Sprintf("%d³, %d per sample; %d outputs checked, max relative error %.1e", n, reps, max(r.plan.Checks, 2), worst)
	return m
}
