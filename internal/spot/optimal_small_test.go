package spot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestOptimumFastSmall: the fast optimum equals the reference on 3,000
// small random grids: any work, deadline, delays (0 to 6 steps), price
// series (some steps dearer than on-demand) and offsets.
func TestOptimumFastSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	fails := 0
	for seed := range 3000 {
		n := 10 + rng.IntN(150)
		tr := &Trace{Name: "markov", GapSeconds: 360, Data: make([]int, n)}
		up := rng.IntN(2)
		stay := 0.3 + 0.69*rng.Float64()
		for i := range tr.Data {
			if rng.Float64() > stay {
				up = 1 - up
			}
			tr.Data[i] = up
		}
		if rng.IntN(2) == 1 {
			tr.Prices = make([]float64, len(tr.Data))
			p := 0.5
			for i := range tr.Prices {
				if rng.IntN(1+rng.IntN(10)) == 0 {
					p = 0.1 + 1.5*rng.Float64()
				}
				tr.Prices[i] = p
			}
		}
		h := 0.1
		D := 1 + rng.IntN(n)
		W := 1 + rng.IntN(D)
		job := Job{Work: float64(W) * h, Deadline: float64(D) * h, Nodes: 1, Restart: float64(rng.IntN(6)) * h, Startup: float64(rng.IntN(7)) * h, SpotPrice: 0.1 + 1.2*rng.Float64(), ODPrice: 1}
		off := h * float64(rng.IntN(len(tr.Data)))
		if rng.IntN(3) == 0 {
			off += h * rng.Float64()
		}
		g := gridFor(job, tr, off)
		gc, ga := g.optimum()
		wc, wa := referenceOptimum(g)
		if math.IsInf(gc, 1) != math.IsInf(wc, 1) || (!math.IsInf(wc, 1) && math.Abs(gc-wc) > 1e-9*math.Max(1, wc)) || ga != wa {
			fails++
			if fails < 10 {
				t.Errorf("seed %d: n %d w %d st %d ch %d: got %v@%d want %v@%d", seed, len(g.up), g.work, g.start, g.change, gc, ga, wc, wa)
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of 3000 grids differ", fails)
	}
}
