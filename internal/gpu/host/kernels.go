package host

import "sync"

// Block sizes of the product: an mc×kc panel of A (128×256 fp32 = 128 KiB)
// stays in a core's L2 cache while every column of C the goroutine owns
// passes over it.
const (
	mc = 128
	kc = 256
)

// gemm computes C = A·B for column-major m×k A, k×n B and m×n C, splitting
// the columns of C over up to threads goroutines. Each C element accumulates
// in T, four products of the k sum at a time.
func gemm[T float32 | float64](m, n, k int, a, b, c []T, threads int) {
	clear(c[:m*n])
	parallel(n, threads, func(j0, j1 int) {
		for i0 := 0; i0 < m; i0 += mc {
			i1 := min(i0+mc, m)
			for p0 := 0; p0 < k; p0 += kc {
				p1 := min(p0+kc, k)
				for j := j0; j < j1; j++ {
					cj := c[j*m+i0 : j*m+i1]
					bj := b[j*k : j*k+k]
					p := p0
					for ; p+4 <= p1; p += 4 {
						b0, b1, b2, b3 := bj[p], bj[p+1], bj[p+2], bj[p+3]
						a0 := a[p*m+i0 : p*m+i1]
						a1 := a[(p+1)*m+i0 : (p+1)*m+i1]
						a2 := a[(p+2)*m+i0 : (p+2)*m+i1]
						a3 := a[(p+3)*m+i0 : (p+3)*m+i1]
						a0, a1, a2, a3 = a0[:len(cj)], a1[:len(cj)], a2[:len(cj)], a3[:len(cj)]
						for i := range cj {
							cj[i] += a0[i]*b0 + a1[i]*b1 + a2[i]*b2 + a3[i]*b3
						}
					}
					for ; p < p1; p++ {
						bp := bj[p]
						ap := a[p*m+i0 : p*m+i1]
						ap = ap[:len(cj)]
						for i := range cj {
							cj[i] += ap[i] * bp
						}
					}
				}
			}
		}
	})
}

// minParallelCopy is the size below which a copy runs on one goroutine.
const minParallelCopy = 1 << 20

// parallelCopy copies src into dst (equal lengths) in threads pieces.
func parallelCopy(dst, src []byte, threads int) {
	if len(src) < minParallelCopy || threads < 2 {
		copy(dst, src)
		return
	}
	parallel(len(src), threads, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// parallel splits [0, n) into up to threads contiguous ranges and runs f on
// each in its own goroutine, returning when all are done.
func parallel(n, threads int, f func(lo, hi int)) {
	threads = max(1, min(threads, n))
	if threads == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for t := range threads {
		lo, hi := n*t/threads, n*(t+1)/threads
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}
