package rules

import (
	"math"
	"time"
)

// MaxHistory bounds the buckets kept per series. A window of `for` at the
// sampling interval needs for ÷ interval of them; beyond MaxHistory a
// bucket covers for ÷ MaxHistory and keeps the min, max, sum and count of
// its samples, so memory stays bounded (about 40 bytes a bucket, 80 KiB a
// series at most) and max and min stay exact; the window's start is then
// known to one bucket.
const MaxHistory = 2048

// history is a ring buffer of one series' recent samples, in buckets.
type history struct {
	b    []bucket
	next int // where the next bucket goes
	n    int // how many are held
	res  int64
	gap  time.Duration
	// since is the start of the series' unbroken observation: a gap longer
	// than gap (three intervals or buckets) restarts it.
	since time.Time
	last  time.Time
}

type bucket struct {
	start         int64 // Unix nanoseconds of its first sample
	min, max, sum float64
	count         int
}

func newHistory(window, interval time.Duration) *history {
	res := max(interval, window/MaxHistory)
	size := int(window/res) + 4
	return &history{b: make([]bucket, size), res: int64(res), gap: 3 * res}
}

func (h *history) add(t time.Time, v float64) {
	if h.n == 0 || t.Sub(h.last) > h.gap {
		h.n, h.next, h.since = 0, 0, t
	}
	h.last = t
	if math.IsNaN(v) {
		return
	}
	ns := t.UnixNano()
	if h.n > 0 {
		cur := &h.b[(h.next-1+len(h.b))%len(h.b)]
		if ns < cur.start+h.res {
			cur.min, cur.max = min(cur.min, v), max(cur.max, v)
			cur.sum += v
			cur.count++
			return
		}
	}
	h.b[h.next] = bucket{start: ns, min: v, max: v, sum: v, count: 1}
	h.next = (h.next + 1) % len(h.b)
	h.n = min(h.n+1, len(h.b))
}

// aggregate is agg over the buckets that start after from and by to
// (at the sampling interval: the samples with from < t <= to); ok is false
// when there are none.
func (h *history) aggregate(agg Aggregate, from, to time.Time) (v float64, ok bool) {
	lo, hi := from.UnixNano(), to.UnixNano()
	var sum float64
	count := 0
	first := true
	// Newest to oldest: the buffer's [0, next) backwards, then its
	// [next, len) backwards (when it has wrapped).
	visit := func(bs []bucket) bool {
		for i := len(bs) - 1; i >= 0; i-- {
			b := &bs[i]
			if b.start <= lo {
				return false
			}
			if b.start > hi {
				continue
			}
			switch {
			case first:
				v = b.max
				if agg == Min {
					v = b.min
				}
				first = false
			case agg == Max:
				v = max(v, b.max)
			case agg == Min:
				v = min(v, b.min)
			}
			sum += b.sum
			count += b.count
		}
		return true
	}
	if visit(h.b[:h.next]) && h.n == len(h.b) {
		visit(h.b[h.next:])
	}
	if count == 0 {
		return 0, false
	}
	if agg == Avg {
		v = sum / float64(count)
	}
	return v, true
}
