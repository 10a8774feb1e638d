package spot

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

// zcell is one state of the optimum: its least cost, and the moves and
// their transfer money on one least-cost path to it.
type zcell struct {
	v     float64
	money float64
	moves int32
}

// offer keeps the cheaper of the cell and a path of cost v.
func (c *zcell) offer(v, money float64, moves int32) {
	if v < c.v {
		*c = zcell{v, money, moves}
	}
}

// optimum is grid.optimum with zones: the cheapest way of finishing the work
// within the grid (cost +Inf: impossible), with its moves, and the steps taken.
func (z *zgrid) optimum() (best zcell, at int) {
	n, w, nz := z.n, z.work, len(z.g)
	best, at = zcell{v: inf}, -1
	if w == 0 {
		return zcell{}, 0
	}
	M := 1 + 3*nz
	span := max(z.start, z.change) + 2
	width := (w + 1) * M
	ring := make([]zcell, span*width)
	for i := range ring {
		ring[i].v = inf
	}
	layer := func(t int) []zcell { o := (t % span) * width; return ring[o : o+width] }
	layer(0)[0].v = 0
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
	launch := make([]zcell, nz) // the best way of launching into each zone now
	for t := 0; t <= n; t++ {
		cur := layer(t)
		for k := range nz {
			for _, c := range [2]zcell{cur[w*M+z.spot(k)], cur[w*M+z.od(k)]} {
				if c.v < best.v {
					best, at = c, t
				}
			}
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
				if sp[k].v < idle[k].v {
					idle[k] = sp[k]
				}
				if od[k].v < idle[k].v {
					idle[k] = od[k]
				}
				live = live || idle[k].v < inf
			}
			// Launches: from fresh (no move, the start-up), from idle in a
			// zone (the restart, and the move's money to another zone).
			if f := c[0]; f.v < inf {
				for k := range nz {
					launch[k] = f
				}
				z.launchAll(layer, t, p, M, z.start, launch, upRun, spotSum)
				next[p*M].offer(f.v, 0, 0)
			}
			if live {
				z.launchFromIdle(idle, launch)
				z.launchAll(layer, t, p, M, z.change, launch, upRun, spotSum)
			}
			nx := next[(p+1)*M:]
			ni := next[p*M:]
			for k, g := range z.g {
				if x := od[k]; x.v+g.od < nx[1+2*nz+k].v {
					nx[1+2*nz+k] = zcell{x.v + g.od, x.money, x.moves}
				}
				if g.up[t] {
					if x := sp[k]; x.v+g.spot[t] < nx[1+nz+k].v {
						nx[1+nz+k] = zcell{x.v + g.spot[t], x.money, x.moves}
					}
				}
				if idle[k].v < ni[1+k].v {
					ni[1+k] = idle[k]
				}
			}
		}
		for i := lo * M; i < (min(t, w)+1)*M; i++ {
			cur[i].v = inf
		}
	}
	return best, at
}

// launchFromIdle sets launch[b] to the cheapest way of launching into zone
// b from idle in any zone a: idle[a] plus the move from a to b.
func (z *zgrid) launchFromIdle(idle, launch []zcell) {
	lo, at := inf, -1
	for a := range idle {
		if idle[a].v < lo {
			lo, at = idle[a].v, a
		}
	}
	if z.move == nil || z.uniform >= 0 {
		// Every move costs the same (u, 0 when free): the best other zone
		// is the best one, or the second best for the best one itself.
		u := max(z.uniform, 0)
		at2 := -1
		for a := range idle {
			if a != at && (at2 < 0 || idle[a].v < idle[at2].v) {
				at2 = a
			}
		}
		for b := range launch {
			launch[b] = idle[b]
			src := at
			if b == at {
				src = at2
			}
			if src >= 0 {
				x := idle[src]
				launch[b].offer(x.v+u, x.money+u, x.moves+1)
			}
		}
		return
	}
	for b := range launch {
		// No move costs less than staying: only zones cheaper than staying
		// idle here need their move added.
		launch[b] = idle[b]
		if at == b {
			continue
		}
		for a := range idle {
			if x := idle[a]; a != b && x.v < launch[b].v {
				m := z.move[a][b]
				launch[b].offer(x.v+m, x.money+m, x.moves+1)
			}
		}
	}
}

// launchAll launches spot or on-demand in every zone k from launch[k] at
// step t, progress p, with a delay of d steps.
func (z *zgrid) launchAll(layer func(int) []zcell, t, p, M, d int, launch []zcell, upRun [][]int, spotSum [][]float64) {
	if t+d > z.n {
		return
	}
	dst := layer(t + d)[p*M:]
	for k, g := range z.g {
		l := launch[k]
		if l.v == inf {
			continue
		}
		dst[z.od(k)].offer(l.v+float64(d)*g.od, l.money, l.moves)
		if upRun[k][t] >= d && (d > 0 || g.up[t]) {
			dst[z.spot(k)].offer(l.v+spotSum[k][t+d]-spotSum[k][t], l.money, l.moves)
		}
	}
}
