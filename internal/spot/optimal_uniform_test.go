package spot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUniformOptimaRemembered: on grids with spot up (or down) throughout
// at one price, the remembered optimum is the reference's, asked twice and
// for many shapes; a grid that differs from a remembered one in one step is
// solved, not served from memory.
func TestUniformOptimaRemembered(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	check := func(what string, g *grid) {
		t.Helper()
		for range 2 { // the second answer comes from memory
			gc, ga := g.optimum()
			wc, wa := referenceOptimum(g)
			if math.IsInf(gc, 1) != math.IsInf(wc, 1) || (!math.IsInf(wc, 1) && math.Abs(gc-wc) > 1e-9*math.Max(1, wc)) || ga != wa {
				t.Fatalf("%s: n %d w %d st %d ch %d: got %v@%d, reference %v@%d", what, len(g.up), g.work, g.start, g.change, gc, ga, wc, wa)
			}
		}
	}
	for i := range 400 {
		n := 5 + rng.IntN(120)
		g := &grid{h: 0.1, up: make([]bool, n), spot: make([]float64, n), od: 1,
			work: 1 + rng.IntN(n), start: rng.IntN(6), change: rng.IntN(5)}
		up := rng.IntN(4) > 0
		c := 0.1 + 1.5*rng.Float64() // some dearer than on-demand
		for k := range g.up {
			g.up[k], g.spot[k] = up, c
		}
		if _, ok := g.uniformKey(); !ok {
			t.Fatalf("grid %d: uniform grid not recognised", i)
		}
		check("uniform", g)
		// One step down (or dearer): no longer uniform, its own optimum.
		k := rng.IntN(n)
		if up && rng.IntN(2) == 0 {
			g.up[k] = false
		} else {
			g.spot[k] *= 1.5
		}
		if _, ok := g.uniformKey(); ok {
			t.Fatalf("grid %d: step %d changed but the grid is still uniform", i, k)
		}
		check("one step changed", g)
	}
}

// TestUniformOptimaKeyedByEverything: uniform grids that differ from a
// remembered one in one figure each get their own optimum.
func TestUniformOptimaKeyedByEverything(t *testing.T) {
	base := func() *grid {
		g := &grid{h: 0.1, up: make([]bool, 50), spot: make([]float64, 50), od: 1, work: 20, start: 3, change: 2}
		for k := range g.up {
			g.up[k], g.spot[k] = true, 0.4
		}
		return g
	}
	bc, _ := base().optimum()
	for _, v := range []struct {
		name   string
		change func(*grid)
	}{
		{"work", func(g *grid) { g.work = 30 }},
		{"start", func(g *grid) { g.start = 5 }},
		{"deadline", func(g *grid) { g.up, g.spot = g.up[:22], g.spot[:22] }},
		{"spot price", func(g *grid) {
			for k := range g.spot {
				g.spot[k] = 0.7
			}
		}},
		{"on-demand price", func(g *grid) { g.od = 0.2 }},
		{"down", func(g *grid) { clear(g.up) }},
	} {
		g := base()
		v.change(g)
		gc, ga := g.optimum()
		wc, wa := referenceOptimum(g)
		if math.Abs(gc-wc) > 1e-9 || ga != wa {
			t.Errorf("%s changed: got %v@%d, reference %v@%d", v.name, gc, ga, wc, wa)
		}
		if wc == bc {
			t.Errorf("%s changed: the reference's cost %v is the base's: the case checks nothing", v.name, wc)
		}
	}
}
