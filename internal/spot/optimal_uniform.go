package spot

import "sync"

// A grid on which spot is up throughout (or down throughout) at one price
// has an optimum that depends only on its sizes and prices, and such grids
// recur: under a random model with a low hazard most runs of a long
// deadline see no interruption at all (the README's LoRA example: some 96
// of the floor's 100 runs). Their optimum is computed once and remembered.

// uniformKey is everything a uniform grid's optimum depends on.
type uniformKey struct {
	n, work, start, change int
	up                     bool
	spot, od               float64
}

// uniformKey is g's key and true when g is uniform: every step up, or every
// step down, at one spot cost (bit for bit).
func (g *grid) uniformKey() (uniformKey, bool) {
	if len(g.up) == 0 {
		return uniformKey{}, false
	}
	up, c := g.up[0], g.spot[0]
	for k := range g.up {
		if g.up[k] != up || g.spot[k] != c {
			return uniformKey{}, false
		}
	}
	return uniformKey{n: len(g.up), work: g.work, start: g.start, change: g.change, up: up, spot: c, od: g.od}, true
}

// optResult is an optimum: its cost and the step it finishes at.
type optResult struct {
	cost float64
	at   int
}

// optMemo remembers the optima of uniform grids, at most memoMax of them
// (it forgets them all when full: a process sees few job shapes).
type optMemo struct {
	mu sync.Mutex
	m  map[uniformKey]optResult
}

const memoMax = 256

var uniformOptima optMemo

func (o *optMemo) get(k uniformKey) (optResult, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.m[k]
	return r, ok
}

func (o *optMemo) put(k uniformKey, r optResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil || len(o.m) >= memoMax {
		o.m = make(map[uniformKey]optResult)
	}
	o.m[k] = r
}
