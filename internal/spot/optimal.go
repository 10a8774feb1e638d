package spot

import (
	"fmt"
	"math"
	"sync"
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
func (Optimal) zoneAware() bool    { return true }
func (Optimal) hindsight() bool    { return true }

// decide is never called: the optimum solves its runs whole.
func (Optimal) decide(*State) (Mode, int, float64) { return Idle, 0, inf }

// solve computes the optimum of run r across the zones it may use (optimum).
func (o Optimal) solve(r *run) (Result, int64, bool) {
	h := o.stepFor(r.srcs[0])
	gs := make([]*grid, len(r.srcs))
	var j Job
	for k, src := range r.srcs {
		zj := r.zoneJob(k)
		gs[k] = gridPool.Get().(*grid)
		gs[k].sample(&zj, defaultRates(&zj), src, h)
		if k == 0 {
			j = zj
		}
	}
	res, ns := optimum(&j, gs, r.cfg.MoveCost, r.trace)
	for _, g := range gs {
		gridPool.Put(g)
	}
	return res, eventsOf(ns), true
}

// gridPool keeps the grids' memory across runs (SimulateMany solves
// several at once).
var gridPool = sync.Pool{New: func() any { return new(grid) }}

// estimate is the optimum's programme on the config's grid (optimumNS).
func (o Optimal) estimate(c *Config, nodes int) work {
	j := c.Job.longest()
	h := o.Step
	if h <= 0 {
		h = DefaultOptimalStep
		if rp, ok := c.Zones[0].Model.(*Replay); ok && rp.runsFor(nodes).Gap > 0 {
			h = rp.runsFor(nodes).Gap
		}
	}
	return workOf(optimumNS(int(math.Floor(j.Deadline/h+1e-6)), steps(j.Work, h), len(c.Zones), uniformMove(c.MoveCost) >= 0 || c.MoveCost == nil))
}

// optimumNS is about the time, nanoseconds, the optimum's programme takes
// on a grid of n steps to the deadline, w of them work, in zones zones
// (uniform: every move between them costs the same, or nothing): in one
// zone it costs about its steps (lag space); across several a cell per
// step and progress within the slack, of 1 + 3z states and the launches
// into each zone (nsPerZoneState).
func optimumNS(n, w, zones int, uniform bool) float64 {
	if zones <= 1 {
		return float64(n) * nsPerOptStep
	}
	cells := float64(max(n-w+1, 0)) * float64(w)
	if uniform {
		return cells * float64(1+4*zones) * nsPerZoneState
	}
	return cells * float64(1+3*zones+zones*zones) * nsPerZoneStateMoving
}

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
	g := new(grid)
	g.sample(j, r, src, h)
	return g
}

// sample sets g to src sampled on a grid of h hours over the job's
// deadline, reusing g's memory.
func (g *grid) sample(j *Job, r rates, src source, h float64) {
	n := int(math.Floor(j.Deadline/h + 1e-6))
	up, spot := g.up, g.spot
	if cap(up) < n || cap(spot) < n {
		up, spot = make([]bool, n), make([]float64, n)
	}
	up, spot = up[:n], spot[:n]
	clear(up)
	*g = grid{h: h, up: up, spot: spot, od: r.od * h,
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
// the grid (+Inf: impossible) and the steps taken: the same dynamic
// programme over steps × progress × mode as the reference (every transition
// at every step, kept in optimal_ref_test.go), computed without its
// per-step sweep over progress.
//
// It works in lag space, lag = steps elapsed − progress, bounded by the
// slack (grid steps − work steps): running keeps the lag, so the costs of
// running on spot and on on-demand are vectors over the lag that never move,
// their entries stored less the running price's prefix sum (running is then
// free to apply); idling keeps the progress, so the idle costs are a vector
// over progress that never moves either. What remains per step is O(1),
// except at a few kinds of steps, which cost O(slack) each:
//   - leaving (idle takes the least of the idle, spot and on-demand costs at
//     the same progress) is applied lazily: over a window of steps in which
//     the prices are constant, the cost of leaving at progress p is a sliding
//     minimum over the lags, done when the idle costs are next read or a
//     running vector changes other than by its price;
//   - launches land (from a ring of pending launches) and a launch changes
//     the running vectors;
//   - launches from idle, only where a launch cannot be moved one step
//     earlier at no extra cost: the first step of an up-run from which spot
//     can be launched, a step after a spot step dearer than a later one of
//     the same up-run or than on-demand, a step where on-demand launches
//     land that spot launched instead would not have covered; and launches
//     of on-demand from spot, only where staying on spot one more step is
//     not cheaper (spot ends, or costs more than on-demand). The other
//     launches are dominated by one of these at no more cost and with the
//     same finish: an on-demand run costs the same wherever it lies between
//     the spot runs, and a spot run in an up-run of constant price costs the
//     same at its earliest start. The equality tests (optimal_*_test.go)
//     hold it to the reference on every shared trace and on random grids.
//
// Progress 0 (not launched yet, the start-up quirk, a first launch left
// early) is one cell per step and done in full.
func (g *grid) optimum() (cost float64, at int) {
	n, w := len(g.up), g.work
	if w == 0 {
		return 0, 0
	}
	if n < w {
		return math.Inf(1), -1
	}
	key, uniform := g.uniformKey()
	if uniform {
		if r, ok := uniformOptima.get(key); ok {
			return r.cost, r.at
		}
	}
	b := optPool.Get().(*optBuf)
	cost, at = b.solve(g)
	optPool.Put(b)
	if uniform {
		uniformOptima.put(key, optResult{cost, at})
	}
	return cost, at
}

// optBuf holds one optimum's working memory, reused across runs (a pool:
// SimulateMany runs several at once).
type optBuf struct {
	upRun, dq                    []int
	spotSum, sufMin              []float64
	spot, od, idle, leftS, leftO []float64
	pendS, pendO, dv, fin        []float64
	slots                        []pendSlot
}

// pendSlot says what launches land at one step of the ring.
type pendSlot struct {
	lo, hi         int  // lags written
	any, spot, low bool // any landing; one on spot; one at progress ≥ 1
	odLow          bool // an on-demand landing at progress ≥ 1 that may switch to spot at once
}

// mark records in the slot landings at lags lo..hi: on spot or not, one at
// progress ≥ 1 (low), and an on-demand one that may switch to spot at once.
func (s *pendSlot) mark(lo, hi int, spot, low, odLow bool) {
	if !s.any {
		s.any, s.lo, s.hi = true, lo, hi
	}
	s.lo, s.hi = min(s.lo, lo), max(s.hi, hi)
	s.spot = s.spot || spot
	s.low = s.low || low
	s.odLow = s.odLow || odLow
}

var optPool = sync.Pool{New: func() any { return new(optBuf) }}

func growInts(b *[]int, n int) []int {
	if cap(*b) < n {
		*b = make([]int, n)
	}
	return (*b)[:n]
}

func growInf(b *[]float64, n int) []float64 {
	if cap(*b) < n {
		*b = make([]float64, n)
	}
	s := (*b)[:n]
	for i := range s {
		s[i] = math.Inf(1)
	}
	return s
}

func (b *optBuf) solve(g *grid) (float64, int) {
	inf := math.Inf(1)
	n, w := len(g.up), g.work
	slack := n - w
	nl := slack + 1
	st, ch, od := g.start, g.change, g.od
	upRun := growInts(&b.upRun, n+1)
	upRun[n] = 0
	for k := n - 1; k >= 0; k-- {
		upRun[k] = 0
		if g.up[k] {
			upRun[k] = upRun[k+1] + 1
		}
	}
	ss := growInf(&b.spotSum, n+1)
	ss[0] = 0
	for k := 0; k < n; k++ {
		ss[k+1] = ss[k] + g.spot[k]
	}
	// sufMin[k]: the cheapest spot step from k to the end of its up-run.
	suf := growInf(&b.sufMin, n+1)
	for k := n - 1; k >= 0; k-- {
		if g.up[k] {
			suf[k] = lower(g.spot[k], suf[k+1])
		}
	}
	launchable := func(t int) bool { return t >= 0 && t < n && t+ch <= n && upRun[t] >= ch && (ch > 0 || g.up[t]) }
	tol := func(x float64) float64 { return 1e-9 * math.Abs(x) }

	// Running costs by lag (value at step t: sp[L] + ss[t], on[L] + od·t),
	// idle costs by progress, and the start-up quirk's costs by step.
	sp, on := growInf(&b.spot, nl), growInf(&b.od, nl)
	idle := growInf(&b.idle, w)
	leftS, leftO := growInf(&b.leftS, n+1), growInf(&b.leftO, n+1)
	span := max(st, ch) + 1
	pendS, pendO := growInf(&b.pendS, span*nl), growInf(&b.pendO, span*nl)
	if cap(b.slots) < span {
		b.slots = make([]pendSlot, span)
	}
	slots := b.slots[:span]
	// tm is the loop's step t modulo span (the ring's slot of step t);
	// ring(d) is the slot of step t+d, d < span. Every launch is made at
	// the loop's step t.
	tm := 0
	ring := func(d int) int {
		if i := tm + d; i < span {
			return i
		}
		return tm + d - span
	}
	clear(slots)
	dq := growInts(&b.dq, nl)
	dv := growInf(&b.dv, nl)
	spotAlive, odInline := false, false

	// Lazy leaving: the leaves of steps a..t not yet applied to idle; the
	// spot price of the steps in that window is piS.
	a, piS := 0, 0.0
	// leaveInto lowers idle[p] (1 ≤ p ≤ w−1) by the least cost of leaving
	// arr's mode at progress p at a step t0 in [a, u]: arr[t0−p] + base + slope·t0.
	leaveInto := func(arr []float64, slope, base float64, u int) {
		pLo, pHi := max(1, a-slack), min(u, w-1)
		if u == a {
			for p := pLo; p <= pHi; p++ {
				if v := arr[a-p] + base + slope*float64(a); v < idle[p] {
					idle[p] = v
				}
			}
			return
		}
		// Sliding minimum of f(L) = arr[L] + slope·L over the lags
		// max(0, a−p) .. min(u−p, slack), p from high to low.
		head, tail, next := 0, 0, max(0, a-pHi)
		for p := pHi; p >= pLo; p-- {
			for hiL := min(u-p, slack); next <= hiL; next++ {
				if arr[next] == inf {
					continue
				}
				f := arr[next] + slope*float64(next)
				for tail > head && dv[tail-1] >= f {
					tail--
				}
				dq[tail], dv[tail] = next, f
				tail++
			}
			for loL := max(0, a-p); head < tail && dq[head] < loL; head++ {
			}
			if head < tail {
				if v := dv[head] + base + slope*float64(p); v < idle[p] {
					idle[p] = v
				}
			}
		}
	}
	flushTo := func(u int) {
		if u < a {
			return
		}
		leaveInto(on, od, 0, u)
		if spotAlive {
			leaveInto(sp, piS, ss[a]-piS*float64(a), u)
		}
		a = u + 1
	}
	reviveSpot := func(t int) {
		if !spotAlive {
			flushTo(t - 1)
			for i := range sp {
				sp[i] = inf
			}
			spotAlive = true
			if a == t && t < n {
				piS = g.spot[t]
			}
		}
	}
	// land records a launch at step t from lag l arriving d steps later
	// with cost v (on spot or on-demand); d = 0 lands at once. pinned: the
	// state launched from may not launch spot at step t instead (a first
	// launch on spot just left).
	land := func(t, l, d int, v float64, onSpot, pinned bool) {
		t2, l2 := t+d, l+d
		if l2 > slack || v == inf {
			return
		}
		if d == 0 {
			if l2 < t2 {
				// The leaves of step t did not see this launch: apply them first.
				flushTo(t)
			}
			if onSpot {
				reviveSpot(t)
				sp[l2] = lower(sp[l2], v-ss[t2])
			} else {
				on[l2] = lower(on[l2], v-od*float64(t2))
				// Landed after step t's leaves, it can first switch to spot
				// at t+1, one step on: unless spot launched instead at step
				// t would be there by then, no dearer (and further on).
				odInline = odInline || pinned || !(upRun[t] >= 1 && g.spot[t] <= od)
			}
			return
		}
		r := ring(d)
		s := &slots[r]
		buf := pendO
		if onSpot {
			buf = pendS
		}
		if i := r*nl + l2; v < buf[i] {
			buf[i] = v
		}
		low := l2 < t2
		// An on-demand landing at progress ≥ 1 may switch to spot at once,
		// unless spot launched instead at step t would have been there by
		// then, no dearer (and further on).
		coverable := !pinned && upRun[t] >= d && ss[t2]-ss[t] <= float64(d)*od
		s.mark(l2, l2, onSpot, low, low && !onSpot && !coverable)
	}

	// landIdle is land for the launches of spot and on-demand from idle at
	// step t, lags lo..hi (progress ≥ 1), delay ch > 0, in one sweep.
	landIdle := func(t, lo, hi int) {
		hi = min(hi, slack-ch)
		if lo > hi {
			return
		}
		t2, r := t+ch, ring(ch)
		o := r*nl + ch
		po, ps := pendO[o+lo:o+hi+1], pendS[o+lo:o+hi+1]
		odc, spc := float64(ch)*od, ss[t2]-ss[t]
		found := false
		for i := range po {
			iv := idle[t-lo-i]
			if iv == inf {
				continue
			}
			found = true
			po[i] = lower(po[i], iv+odc)
			ps[i] = lower(ps[i], iv+spc)
		}
		if !found {
			return
		}
		slots[r].mark(lo+ch, hi+ch, true, true, !(upRun[t] >= ch && spc <= odc))
	}

	// landFromSpot is land for the launches of on-demand from spot at step
	// t, lags lo..hi, delay ch > 0, in one sweep.
	landFromSpot := func(t, lo, hi int) {
		hi = min(hi, slack-ch)
		if lo > hi {
			return
		}
		t2, r := t+ch, ring(ch)
		o := r*nl + ch
		po := pendO[o+lo : o+hi+1]
		add := ss[t] + float64(ch)*od
		first, last := -1, -1
		for i, v := range sp[lo : hi+1] {
			if v == inf {
				continue
			}
			if first < 0 {
				first = i
			}
			last = i
			po[i] = lower(po[i], v+add)
		}
		if first < 0 {
			return
		}
		l2lo, l2hi := lo+first+ch, lo+last+ch
		low := l2lo < t2
		coverable := upRun[t] >= ch && ss[t2]-ss[t] <= float64(ch)*od
		slots[r].mark(l2lo, l2hi, false, low, low && !coverable)
	}

	fin := growInf(&b.fin, n+1)
	for t := 0; t <= n; t++ {
		// Launches landing now.
		odLanded := odInline
		odInline = false
		if t > 0 {
			tm = ring(1)
		}
		if s := &slots[tm]; s.any {
			if s.low {
				flushTo(t - 1)
			}
			if s.spot {
				reviveSpot(t)
			}
			o := tm * nl
			for l := s.lo; l <= s.hi; l++ {
				if v := pendS[o+l]; v < inf {
					sp[l] = lower(sp[l], v-ss[t])
					pendS[o+l] = inf
				}
				if v := pendO[o+l]; v < inf {
					on[l] = lower(on[l], v-od*float64(t))
					pendO[o+l] = inf
				}
			}
			odLanded = odLanded || s.odLow
			*s = pendSlot{}
		}
		if a == t && t < n {
			piS = g.spot[t]
		}
		if l := t - w; l >= 0 && l <= slack {
			v := on[l] + od*float64(t)
			if spotAlive {
				v = lower(v, sp[l]+ss[t])
			}
			fin[t] = v
		}
		if t == n {
			break
		}
		if t <= slack {
			// Progress 0, lag t: the reference's cell in full.
			v := on[t] + od*float64(t)
			if spotAlive {
				v = lower(v, sp[t]+ss[t])
			}
			iv := lower(idle[0], v)
			idle[0] = iv
			spotOK := func(d int) bool { return upRun[t] >= d && (d > 0 || g.up[t]) }
			for _, x := range [2]struct {
				v float64
				d int
			}{{0, st}, {iv, ch}} {
				if x.v < inf && t+x.d <= n {
					land(t, t, x.d, x.v+float64(x.d)*od, false, false)
					if spotOK(x.d) {
						land(t, t, x.d, x.v+ss[t+x.d]-ss[t], true, false)
					}
				}
			}
			for u := 1; u < st && t+u <= n; u++ {
				leftO[t+u] = lower(leftO[t+u], float64(u)*od)
				if upRun[t] >= u {
					leftS[t+u] = lower(leftS[t+u], ss[t+u]-ss[t])
				}
			}
			if t+ch <= n {
				land(t, t, ch, leftS[t]+float64(ch)*od, false, true)
				if spotOK(ch) {
					land(t, t, ch, leftO[t]+ss[t+ch]-ss[t], true, false)
				}
			}
			idle[0] = lower(idle[0], lower(leftS[t], leftO[t]))
		}
		// Progress ≥ 1: lags lo..hi.
		lo, hi := max(0, t-w+1), min(t-1, slack)
		full := launchable(t) && (!launchable(t-1) || g.spot[t-1] > suf[t]+tol(suf[t]) || g.spot[t-1] > od || odLanded)
		switch {
		case lo > hi:
		case full:
			flushTo(t)
			if ch > 0 {
				landIdle(t, lo, hi)
				break
			}
			for l := lo; l <= hi; l++ {
				iv := idle[t-l]
				if iv == inf {
					continue
				}
				land(t, l, ch, iv+float64(ch)*od, false, false)
				land(t, l, ch, iv+ss[t+ch]-ss[t], true, false)
			}
		case spotAlive && t+ch <= n && (!g.up[t] || g.spot[t] > od):
			// Leave spot for on-demand.
			if ch > 0 {
				landFromSpot(t, lo, hi)
				break
			}
			for l := lo; l <= hi; l++ {
				if v := sp[l]; v < inf {
					land(t, l, ch, v+ss[t], false, false)
				}
			}
		}
		// Close the leaving window where spot ends or changes price.
		if spotAlive && !g.up[t] {
			flushTo(t)
			spotAlive = false
		} else if spotAlive && a <= t && math.Abs(g.spot[t]-piS) > tol(piS) {
			flushTo(t)
		}
	}
	return earliestLeast(fin)
}

// lower is the lesser of two costs (never NaN here; math.Min is a call,
// this inlines in the optimum's inner loops).
func lower(x, y float64) float64 {
	if y < x {
		return y
	}
	return x
}

// earliestLeast returns the least of the costs of finishing at each step
// and the first step whose cost is within rounding (1e-10 relative) of it:
// schedules of equal cost summed in a different order differ in their last
// bits, and the earliest of them should not lose to a later one by that.
func earliestLeast(fin []float64) (float64, int) {
	best := math.Inf(1)
	for _, v := range fin {
		best = lower(best, v)
	}
	if math.IsInf(best, 1) {
		return best, -1
	}
	for t, v := range fin {
		if v <= best+1e-10*math.Max(1, math.Abs(best)) {
			return best, t
		}
	}
	return best, -1
}

// optimum is the hindsight optimum of job j (its true length; its work,
// delays and deadline set the grid) on the grids of the zones it may use,
// one or several (move: the moves' transfer money, nil: free), and about
// the time its programme took, nanoseconds. One zone is the lag-space
// programme (grid.optimum), several the programme with a zone dimension
// (zgrid.optimum).
func optimum(j *Job, gs []*grid, move [][]float64, trace bool) (Result, float64) {
	h := gs[0].h
	n, w := len(gs[0].up), steps(j.Work, h)
	ns := optimumNS(n, w, len(gs), move == nil || uniformMove(move) >= 0)
	var best zcell
	at := -1
	if len(gs) == 1 {
		best.v, at = gs[0].optimum()
	} else {
		z := &zgrid{g: gs, n: n, work: w, start: steps(min(j.Startup, j.Restart), h), change: steps(j.Restart, h), move: move, uniform: uniformMove(move)}
		if j.Startup <= j.Restart {
			z.start = steps(j.Startup, h)
		}
		best, at = z.optimum()
	}
	across := ""
	if len(gs) > 1 {
		across = fmt.Sprintf(" across %d zones", len(gs))
	}
	if math.IsInf(best.v, 1) {
		r := Result{Cost: math.NaN(), Hours: math.Inf(1)}
		if trace {
			what := ""
			if len(gs) > 1 {
				what = " in any zone"
			}
			r.Events = []Event{{T: 0, What: "abandon", Detail: fmt.Sprintf("no schedule on the %.4g h grid meets the deadline%s", h, what)}}
		}
		return r, ns
	}
	r := Result{Cost: best.v, Hours: float64(at) * h, Met: true, Moves: int(best.moves), MoveCost: best.money}
	if trace {
		d := fmt.Sprintf("hindsight optimum%s on a %.4g h grid: %.4g", across, h, best.v)
		if len(gs) > 1 {
			d += fmt.Sprintf(", %d move(s) costing %.2f in transfer", best.moves, best.money)
		}
		r.Events = []Event{{T: r.Hours, What: "done", Detail: d}}
	}
	return r, ns
}
