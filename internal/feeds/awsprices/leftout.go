package awsprices

import (
	"fmt"
	"sort"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// perReason is how many rows of one left-out reason are reported one by
// one; a full regional file leaves out hundreds of thousands of products
// without GPUs, which are then counted in one line.
const perReason = 1000

// leaver reports left-out rows, each reason's first perReason rows one by
// one and the rest as a count.
type leaver struct {
	origin string
	out    []feeds.LeftOut
	n      map[string]int
}

func newLeaver(origin string) *leaver { return &leaver{origin: origin, n: map[string]int{}} }

func (l *leaver) leave(category, origin, what, reason string) {
	l.n[category]++
	if l.n[category] <= perReason {
		l.out = append(l.out, feeds.LeftOut{Origin: origin, What: what, Reason: reason})
	}
}

// done returns the rows left out, with a count per reason past perReason.
func (l *leaver) done() []feeds.LeftOut {
	cats := make([]string, 0, len(l.n))
	for c, n := range l.n {
		if n > perReason {
			cats = append(cats, c)
		}
	}
	sort.Strings(cats)
	for _, c := range cats {
		l.out = append(l.out, feeds.LeftOut{Origin: l.origin, What: fmt.Sprintf("%d more rows", l.n[c]-perReason),
			Reason: fmt.Sprintf("%s (%d rows in all; the first %d are listed one by one)", c, l.n[c], perReason)})
	}
	return l.out
}
