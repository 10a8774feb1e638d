package rules

import (
	"math"
	"time"
)

// history is a ring buffer of one series' recent samples. It holds twice
// the samples its window needs at the sampling interval, so a run loop that
// evaluates a little faster than the interval still keeps the whole window.
type history struct {
	t    []int64 // Unix nanoseconds
	v    []float64
	next int // where the next sample goes
	n    int // how many are held
	gap  time.Duration
	// since is the start of the series' unbroken observation: a gap longer
	// than gap (three intervals) restarts it.
	since time.Time
	last  time.Time
}

func newHistory(window, interval time.Duration) *history {
	size := min(2*int(window/interval)+4, 2*MaxHistory+4)
	return &history{t: make([]int64, size), v: make([]float64, size), gap: 3 * interval}
}

func (h *history) add(t time.Time, v float64) {
	if h.n == 0 || t.Sub(h.last) > h.gap {
		h.n, h.since = 0, t
	}
	h.t[h.next], h.v[h.next] = t.UnixNano(), v
	h.next = (h.next + 1) % len(h.t)
	h.n = min(h.n+1, len(h.t))
	h.last = t
}

// aggregate is agg over the samples with from < t <= to; NaN samples are
// skipped; ok is false when none is left.
func (h *history) aggregate(agg Aggregate, from, to time.Time) (v float64, ok bool) {
	lo, hi := from.UnixNano(), to.UnixNano()
	var sum float64
	count := 0
	for i := 0; i < h.n; i++ {
		j := (h.next - 1 - i + len(h.t)) % len(h.t)
		t := h.t[j]
		if t <= lo {
			break
		}
		if t > hi || math.IsNaN(h.v[j]) {
			continue
		}
		x := h.v[j]
		switch {
		case count == 0:
			v = x
		case agg == Max:
			v = max(v, x)
		case agg == Min:
			v = min(v, x)
		}
		sum += x
		count++
	}
	if count == 0 {
		return 0, false
	}
	if agg == Avg {
		v = sum / float64(count)
	}
	return v, true
}
