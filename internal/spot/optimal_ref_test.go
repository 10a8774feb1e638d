package spot

import "math"

// referenceOptimum is the straightforward dynamic programme the optimum was
// first written as, kept as the reference that the fast one (grid.optimum)
// must equal: the least cost of finishing g.work steps of work within the
// grid (+Inf: impossible) and the steps taken, by dynamic programming over
// steps × progress × mode, every transition at every step. (One change from
// the original: the step it reports is the first whose cost is within
// rounding of the least, see earliestLeast, not the first strictly least.) Launch delays jump ahead by several steps, so a
// ring of layers holds the costs of the next max(delay)+1 steps.
func referenceOptimum(g *grid) (cost float64, at int) {
	n, w := len(g.up), g.work
	if w == 0 {
		return 0, 0
	}
	span := max(g.start, g.change) + 2 // layers t .. t+delay, and t+1 distinct from t
	width := (w + 1) * gModes
	ring := make([]float64, span*width)
	for i := range ring {
		ring[i] = math.Inf(1)
	}
	layer := func(t int) []float64 { o := (t % span) * width; return ring[o : o+width] }
	layer(0)[gFresh] = 0
	fin := make([]float64, n+1)
	// upRun[k]: spot is up in steps k..k+upRun[k]-1.
	upRun := make([]int, n+1)
	for k := n - 1; k >= 0; k-- {
		if g.up[k] {
			upRun[k] = upRun[k+1] + 1
		}
	}
	// spotSum[k]: prefix sums of the spot step costs.
	spotSum := make([]float64, n+1)
	for k := 0; k < n; k++ {
		spotSum[k+1] = spotSum[k] + g.spot[k]
	}
	for t := 0; t <= n; t++ {
		cur := layer(t)
		fin[t] = math.Min(cur[w*gModes+gSpot], cur[w*gModes+gOD])
		if t == n {
			break
		}
		next := layer(t + 1)
		// Progress at step t is at most t, and at least what still fits
		// before the deadline: w − (n − t).
		for p := max(0, w-(n-t)); p < min(t+1, w); p++ {
			c := cur[p*gModes : (p+1)*gModes]
			// Leaving spot or on-demand is free: idle takes the best of them.
			c[gIdle] = math.Min(c[gIdle], math.Min(c[gSpot], c[gOD]))
			// Launches: from idle the restart, from fresh the start-up.
			for _, from := range [2]int{gFresh, gIdle} {
				v := c[from]
				if math.IsInf(v, 1) {
					continue
				}
				d := g.change
				if from == gFresh {
					d = g.start
				}
				if t+d <= n {
					dst := layer(t + d)[p*gModes:]
					if v+float64(d)*g.od < dst[gOD] {
						dst[gOD] = v + float64(d)*g.od
					}
					if upRun[t] >= d && (d > 0 || g.up[t]) {
						if s := v + spotSum[t+d] - spotSum[t]; s < dst[gSpot] {
							dst[gSpot] = s
						}
					}
				}
			}
			if p == 0 && !math.IsInf(c[gFresh], 1) {
				// The simulator forgives the rest of the start-up once the first
				// launch is left or interrupted: launch, leave after u < start
				// steps, and later launches cost only the restart.
				for u := 1; u < g.start && t+u <= n; u++ {
					dst := layer(t + u)
					if v := c[gFresh] + float64(u)*g.od; v < dst[gLeftOD] {
						dst[gLeftOD] = v
					}
					if upRun[t] >= u {
						if v := c[gFresh] + spotSum[t+u] - spotSum[t]; v < dst[gLeftSpot] {
							dst[gLeftSpot] = v
						}
					}
				}
				// Just left a first launch: wait, or launch the other mode.
				if t+g.change <= n {
					dst := layer(t + g.change)
					if v := c[gLeftSpot] + float64(g.change)*g.od; v < dst[gOD] {
						dst[gOD] = v
					}
					if upRun[t] >= g.change && (g.change > 0 || g.up[t]) {
						if v := c[gLeftOD] + spotSum[t+g.change] - spotSum[t]; v < dst[gSpot] {
							dst[gSpot] = v
						}
					}
				}
				if v := math.Min(c[gLeftSpot], c[gLeftOD]); v < next[gIdle] {
					next[gIdle] = v
				}
			}
			// Running: one step of progress.
			nx := next[(p+1)*gModes:]
			if v := c[gOD] + g.od; v < nx[gOD] {
				nx[gOD] = v
			}
			if g.up[t] {
				if v := c[gSpot] + g.spot[t]; v < nx[gSpot] {
					nx[gSpot] = v
				}
			}
			// Idle: wait a step.
			ni := next[p*gModes:]
			if c[gIdle] < ni[gIdle] {
				ni[gIdle] = c[gIdle]
			}
			if c[gFresh] < ni[gFresh] {
				ni[gFresh] = c[gFresh]
			}
		}
		// Layer t is done: reset it for reuse as layer t+span. Only progress
		// lo..min(t, w) can have been written and be read again (below lo
		// no later step reads; above t nothing is reachable by step t).
		for i := max(0, w-(n-t)) * gModes; i < (min(t, w)+1)*gModes; i++ {
			cur[i] = math.Inf(1)
		}
	}
	return earliestLeast(fin)
}
