package spot

import (
	"fmt"
	"math"
)

// The hindsight optimum across several zones: Optimal's dynamic programming
// (optimal.go) with a zone dimension. The job's state lies in the zone it
// last ran in; a launch in another zone pays the move's transfer money
// (Config.MoveCost) besides the restart delay; the first launch moves
// nothing. It is exact on the grid under the same rules as the single-zone
// optimum, except that where the start-up delay is longer than the restart
// delay the first launch is taken to cost only the restart (the simulator
// forgives the rest of a start-up left early; the single-zone optimum
// models that exactly), so the optimum stays a lower bound. It is also a
// lower bound only where a direct move never costs more than two moves
// through a third zone (move[a][b] <= move[a][c] + move[c][b], as transfer
// prices are): the simulator charges a launch left before its delay is over
// for its move, a schedule the grid cannot hold.

// zgrid is one run's availability and prices in every zone on the grid.
type zgrid struct {
	g       []*grid     // per zone: up, spot cost per step, on-demand cost per step
	move    [][]float64 // move[a][b]
	work    int
	start   int
	change  int
	n       int
	uniform float64 // the cost of every move where all cost the same, else -1
}

// uniformMove is the cost every move between two zones has, or -1 when
// they differ.
func uniformMove(m [][]float64) float64 {
	u := -1.0
	for a, row := range m {
		for b, v := range row {
			if a == b {
				continue
			}
			if u >= 0 && v != u {
				return -1
			}
			u = v
		}
	}
	return u
}

// zone layer layout: fresh, then idle, spot and on-demand per zone.
func (z *zgrid) idle(k int) int { return 1 + k }
func (z *zgrid) spot(k int) int { return 1 + len(z.g) + k }
func (z *zgrid) od(k int) int   { return 1 + 2*len(z.g) + k }

// optimum is grid.optimum with zones: the least cost of finishing the work
// within the grid (+Inf: impossible) and the steps taken.
func (z *zgrid) optimum() (cost float64, at int) {
	n, w, nz := z.n, z.work, len(z.g)
	if w == 0 {
		return 0, 0
	}
	M := 1 + 3*nz
	span := max(z.start, z.change) + 2
	width := (w + 1) * M
	ring := make([]float64, span*width)
	for i := range ring {
		ring[i] = math.Inf(1)
	}
	layer := func(t int) []float64 { o := (t % span) * width; return ring[o : o+width] }
	layer(0)[0] = 0
	best, bestAt := math.Inf(1), -1
	upRun := make([][]int, nz)
	spotSum := make([][]float64, nz)
	for k, g := range z.g {
		upRun[k] = make([]int, n+1)
		for t := n - 1; t >= 0; t-- {
			if g.up[t] {
				upRun[k][t] = upRun[k][t+1] + 1
			}
		}
		spotSum[k] = make([]float64, n+1)
		for t := range n {
			spotSum[k][t+1] = spotSum[k][t] + g.spot[t]
		}
	}
	launch := make([]float64, nz) // best value launching into each zone now
	for t := 0; t <= n; t++ {
		cur := layer(t)
		for k := range nz {
			best, bestAt = minAt(best, bestAt, cur[w*M+z.spot(k)], t)
			best, bestAt = minAt(best, bestAt, cur[w*M+z.od(k)], t)
		}
		if t == n {
			break
		}
		next := layer(t + 1)
		lo := max(0, w-(n-t))
		for p := lo; p < min(t+1, w); p++ {
			c := cur[p*M : (p+1)*M]
			idle := c[1 : 1+nz]
			sp := c[1+nz : 1+2*nz]
			od := c[1+2*nz : 1+3*nz]
			// Leaving spot or on-demand is free: idle takes the best of them.
			live := false
			for k := range nz {
				v := idle[k]
				if sp[k] < v {
					v = sp[k]
				}
				if od[k] < v {
					v = od[k]
				}
				idle[k] = v
				live = live || v < inf
			}
			// Launches: from fresh (no move, the start-up), from idle in a
			// zone (the restart, and the move's money to another zone).
			if v := c[0]; v < inf {
				for k := range nz {
					launch[k] = v
				}
				z.launchAll(layer, t, p, M, z.start, launch, upRun, spotSum)
				if nf := next[p*M:]; v < nf[0] {
					nf[0] = v
				}
			}
			if live {
				z.launchFromIdle(idle, launch)
				z.launchAll(layer, t, p, M, z.change, launch, upRun, spotSum)
			}
			nx := next[(p+1)*M:]
			ni := next[p*M:]
			for k, g := range z.g {
				if v := od[k] + g.od; v < nx[1+2*nz+k] {
					nx[1+2*nz+k] = v
				}
				if g.up[t] {
					if v := sp[k] + g.spot[t]; v < nx[1+nz+k] {
						nx[1+nz+k] = v
					}
				}
				if v := idle[k]; v < ni[1+k] {
					ni[1+k] = v
				}
			}
		}
		for i := lo * M; i < (min(t, w)+1)*M; i++ {
			cur[i] = math.Inf(1)
		}
	}
	return best, bestAt
}

// launchFromIdle sets launch[b] to the least value of launching into zone
// b from idle in any zone: min over a of idle[a] + move[a][b].
func (z *zgrid) launchFromIdle(idle, launch []float64) {
	lo, at := inf, -1
	for a, v := range idle {
		if v < lo {
			lo, at = v, a
		}
	}
	if z.move == nil {
		for b := range launch {
			launch[b] = lo
		}
		return
	}
	if z.uniform >= 0 {
		// Every move costs the same: the best other zone is the best
		// one, or the second best for the best one itself.
		lo2 := inf
		for a, v := range idle {
			if a != at && v < lo2 {
				lo2 = v
			}
		}
		for b := range launch {
			v := lo + z.uniform
			if b == at {
				v = lo2 + z.uniform
			}
			launch[b] = min(idle[b], v)
		}
		return
	}
	for b := range launch {
		// No move costs less than staying: the cheapest idle plus its move
		// bounds the rest from below only when it is this zone.
		v := idle[b]
		if at == b {
			launch[b] = v
			continue
		}
		for a, x := range idle {
			if x >= v || a == b {
				continue
			}
			if x += z.move[a][b]; x < v {
				v = x
			}
		}
		launch[b] = v
	}
}

func minAt(best float64, at int, v float64, t int) (float64, int) {
	if v < best {
		return v, t
	}
	return best, at
}

// launchAll launches spot or on-demand in every zone k from value launch[k]
// at step t, progress p, with a delay of d steps.
func (z *zgrid) launchAll(layer func(int) []float64, t, p, M, d int, launch []float64, upRun [][]int, spotSum [][]float64) {
	if t+d > z.n {
		return
	}
	dst := layer(t + d)[p*M:]
	for k, g := range z.g {
		v := launch[k]
		if math.IsInf(v, 1) {
			continue
		}
		if x := v + float64(d)*g.od; x < dst[z.od(k)] {
			dst[z.od(k)] = x
		}
		if upRun[k][t] >= d && (d > 0 || g.up[t]) {
			if x := v + spotSum[k][t+d] - spotSum[k][t]; x < dst[z.spot(k)] {
				dst[z.spot(k)] = x
			}
		}
	}
}

// runOptimalZones computes the multi-zone optimum of one run.
func runOptimalZones(cfg *Config, plan *Job, work float64, o Optimal, srcs []source, trace bool) Result {
	j := *plan
	j.Work = work
	h := o.stepFor(srcs[0])
	z := &zgrid{n: int(math.Floor(j.Deadline/h + 1e-6)), work: steps(j.Work, h), start: steps(min(j.Startup, j.Restart), h), change: steps(j.Restart, h), move: cfg.MoveCost, uniform: uniformMove(cfg.MoveCost)}
	if j.Startup <= j.Restart {
		z.start = steps(j.Startup, h)
	}
	for k := range cfg.Zones {
		zj := j
		zj.SpotPrice, zj.ODPrice = cfg.Zones[k].spotPrice(&j), cfg.Zones[k].odPrice(&j)
		z.g = append(z.g, newGrid(&zj, defaultRates(&zj), srcs[k], h))
	}
	cost, at := z.optimum()
	if math.IsInf(cost, 1) {
		r := Result{Cost: math.NaN(), Hours: math.Inf(1)}
		if trace {
			r.Events = []Event{{T: 0, What: "abandon", Detail: fmt.Sprintf("no schedule on the %.4g h grid meets the deadline in any zone", h)}}
		}
		return r
	}
	r := Result{Cost: cost, Hours: float64(at) * h, Met: true}
	if trace {
		r.Events = []Event{{T: r.Hours, What: "done", Detail: fmt.Sprintf("hindsight optimum across %d zones on a %.4g h grid: %.4g", len(cfg.Zones), h, cost)}}
	}
	return r
}
