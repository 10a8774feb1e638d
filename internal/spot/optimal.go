package spot

import (
	"fmt"
	"math"
)

// Optimal is the hindsight optimum: for each run, the cheapest schedule that
// meets the deadline knowing that run's whole availability history in advance
// (the realised history: a trace from the run's start offset, or the path a
// random model samples with the run's generator, on the wall clock). It is a
// baseline, not a policy one could run.
//
// It is exact on a grid of steps of Step hours from the run's start (the
// trace's tick when replaying a trace): decisions are made at step
// boundaries, spot counts as available in a step only if it is available
// throughout, progress is counted in whole steps, and the work, the restart
// and the start-up delays are rounded up to whole steps. Switching rules and
// billing mirror the simulator: every launch of spot or on-demand is billed
// its delay (the first launch the start-up, later ones the restart) at the
// new mode's price without progress; leaving an instance on purpose is free
// and keeps the work done; idle is free; a first launch left or interrupted
// before its start-up is over is not charged the rest of it. Knowing the future, it never stays
// on spot into an interruption, so checkpoints are taken as continuous: for a
// job with periodic checkpoints the optimum is a lower bound (it writes no
// checkpoint and loses no work). When the job, the delays and the start offset
// lie on the grid, no policy's run costs less.
type Optimal struct {
	// Step is the grid in hours; 0: the trace's tick for a replay, else DefaultOptimalStep.
	Step float64
}

// DefaultOptimalStep is the grid of the optimum under a random availability model, hours.
const DefaultOptimalStep = 0.1

// Name implements Policy.
func (Optimal) Name() string { return "optimal" }

// NeedsDeadline implements Policy: without a deadline the optimum waits for spot as long as it takes.
func (Optimal) NeedsDeadline() bool { return true }

func (Optimal) rates(j *Job) rates { return defaultRates(j) }

// decide is never called: the simulator computes the optimum instead of stepping it.
func (Optimal) decide(*State) (Mode, float64) { return Idle, inf }

// stepFor is the grid for a source.
func (o Optimal) stepFor(src source) float64 {
	if o.Step > 0 {
		return o.Step
	}
	if ts, ok := src.(*traceSource); ok && ts.runs.Gap > 0 {
		return ts.runs.Gap
	}
	return DefaultOptimalStep
}

// grid is one run's availability and prices on the optimum's steps.
type grid struct {
	h      float64
	up     []bool    // spot available throughout step k
	spot   []float64 // cost of step k on spot (all nodes)
	od     float64   // cost of one step on on-demand
	work   int       // steps of work
	start  int       // steps of the first launch's delay
	change int       // steps of a later launch's delay
}

// steps rounds hours up to whole steps of h (with a tolerance for float noise).
func steps(x, h float64) int { return int(math.Ceil(x/h - 1e-6)) }

// newGrid samples src on a grid of h hours over the job's deadline.
func newGrid(j *Job, r rates, src source, h float64) *grid {
	n := int(math.Floor(j.Deadline/h + 1e-6))
	g := &grid{h: h, up: make([]bool, n), spot: make([]float64, n), od: r.od * h,
		work: steps(j.Work, h), start: steps(j.Startup, h), change: steps(j.Restart, h)}
	// Walk the availability runs on the wall clock: a step is up if it lies
	// inside one up-run (a step across a change counts as down).
	t := 0.0
	for k, guard := 0, 0; k < n && guard < 10*n+1000; guard++ {
		up, l := src.next()
		end := t + l
		for ; k < n && float64(k+1)*h <= end+1e-9; k++ {
			g.up[k] = up && float64(k)*h >= t-1e-9
		}
		t = end
	}
	for k := range g.up {
		c, ok := src.spotCost(float64(k)*h, float64(k+1)*h)
		if !ok {
			c = r.spotPerNode * h
		}
		g.spot[k] = float64(r.spotNodes)*c + r.spotOD*h
	}
	return g
}

// Optimum modes on the grid: not yet launched, idle, running on spot,
// running on on-demand, and idle having just left a first launch on spot or
// on-demand before its start-up was over (it may not relaunch the same mode
// at the same instant: a schedule changes mode at most once per boundary).
const (
	gFresh = iota
	gIdle
	gSpot
	gOD
	gLeftSpot
	gLeftOD
	gModes
)

// optimum returns the least cost of finishing g.work steps of work within
// the grid (+Inf: impossible) and the steps taken, by dynamic programming over
// steps × progress × mode. Launch delays jump ahead by several steps, so a
// ring of layers holds the costs of the next max(delay)+1 steps.
func (g *grid) optimum() (cost float64, at int) {
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
	best, bestAt := math.Inf(1), -1
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
		if v := cur[w*gModes+gSpot]; v < best {
			best, bestAt = v, t
		}
		if v := cur[w*gModes+gOD]; v < best {
			best, bestAt = v, t
		}
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
	return best, bestAt
}

// runOptimal computes the optimum of one run.
func runOptimal(j *Job, o Optimal, src source, trace bool) Result {
	h := o.stepFor(src)
	g := newGrid(j, defaultRates(j), src, h)
	cost, at := g.optimum()
	if math.IsInf(cost, 1) {
		r := Result{Cost: math.NaN(), Hours: math.Inf(1)}
		if trace {
			r.Events = []Event{{T: 0, What: "abandon", Detail: fmt.Sprintf("no schedule on the %.4g h grid meets the deadline", h)}}
		}
		return r
	}
	r := Result{Cost: cost, Hours: float64(at) * h, Met: true}
	if trace {
		r.Events = []Event{{T: r.Hours, What: "done", Detail: fmt.Sprintf("hindsight optimum on a %.4g h grid: %.4g", h, cost)}}
	}
	return r
}
