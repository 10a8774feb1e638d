package render

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
)

// Plan kinds of a ParetoPoint, each drawn with its own colour and marker.
const (
	KindOnDemand   = "on-demand"
	KindSpot       = "spot"
	KindCommitment = "commitment"
	KindMix        = "mix"
)

// paretoKinds orders the kinds for styles and the legend.
var paretoKinds = []string{KindOnDemand, KindSpot, KindCommitment, KindMix}

// ParetoPoint is one plan: X (hours, or upfront cash) against Y (total
// cost), its kind, a short Label written beside it when it is on the front
// or Named, and Tip, the tooltip with its full description.
type ParetoPoint struct {
	X, Y        float64
	Kind        string
	Label, Tip  string
	Recommended bool
	// Named points (the headline's picks) are drawn full size and labelled
	// even when another plan beats them.
	Named bool
}

// ParetoChart draws cost against time (or upfront cash) of every plan: the
// plans no other plan beats on both axes (the Pareto front) joined by a step
// line and labelled, the dominated ones small and unlabelled, plan kinds by
// colour and marker, vertical marks (the asked duration, the deadline), and
// the recommended plan drawn last with a halo. Axes go log where the data
// span more than 100×.
type ParetoChart struct {
	Title, XLabel, YLabel string
	Points                []ParetoPoint
	Marks                 []XMark
	Caption               string
	Width                 int
}

// ParetoFront returns the indices of the points that no other point beats
// on both axes (lower X and lower Y, one of them strictly), by increasing X.
func ParetoFront(pts []ParetoPoint) []int {
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmpFloat(pts[a].X, pts[b].X); c != 0 {
			return c
		}
		return cmpFloat(pts[a].Y, pts[b].Y)
	})
	var front []int
	best := math.Inf(1)
	for _, i := range idx {
		if pts[i].Y >= best {
			continue
		}
		// A point as fast as the last one on the front (within 0.1%, below
		// what a table shows) and cheaper replaces it.
		if n := len(front); n > 0 && pts[i].X <= pts[front[n-1]].X+SameX*math.Abs(pts[front[n-1]].X) {
			front = front[:n-1]
		}
		front = append(front, i)
		best = pts[i].Y
	}
	return front
}

// markReach is how far beyond the plans' range a vertical mark may lie and
// still be drawn: at most twice the largest X (or half the smallest).
const markReach = 2

// SameX is the relative difference below which two X values count as equal
// on the front.
const SameX = 1e-3

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// kindStyle is the colour and marker of a plan kind.
func kindStyle(kind string) (colour, marker string) {
	i := slices.Index(paretoKinds, kind)
	if i < 0 {
		i = len(paretoKinds)
	}
	c, _, m := seriesStyle(i)
	return c, m
}

// Write renders the chart as SVG.
func (c *ParetoChart) Write(w io.Writer) error {
	f := newFrame(c.Width, c.Title)
	const plotH = 340.0
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range c.Points {
		xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
		ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
	}
	// A mark far beyond the plans (the week asked for when every plan
	// takes a day) would squeeze them into a corner: it is said in words.
	var marks, off []XMark
	for _, m := range c.Marks {
		if len(c.Points) > 0 && (m.X > markReach*xmax || m.X < xmin/markReach) {
			off = append(off, m)
			continue
		}
		marks = append(marks, m)
	}
	for _, m := range marks {
		xmin, xmax = math.Min(xmin, m.X), math.Max(xmax, m.X)
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0, 1
	}
	xs, ys, top, left, right, bottom := f.drawXYFrame(xmin, xmax, ymin, ymax, plotH, c.XLabel, c.YLabel)

	var wishes []LabelWish
	var obstacles []Box
	var obstacleOwners []int // the point each obstacle marks, -1 for none
	// Marks first, their labels at the top of the plot.
	for _, m := range marks {
		x := xs.Pos(m.X)
		f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="5 4"><title>%s</title></line>`+"\n", x, top, x, top+plotH, ink, html.EscapeString(m.Label))
	}
	markPlaced := placeMarkLabels(marks, xs, top, left, right)
	for i, p := range markPlaced {
		if p.Dropped {
			continue
		}
		obstacles = append(obstacles, p.Box)
		obstacleOwners = append(obstacleOwners, -1)
		f.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="white" fill-opacity="0.85"/>`+"\n", p.Box.X0, p.Box.Y0, p.Box.X1-p.Box.X0, p.Box.Y1-p.Box.Y0)
		f.text(p.X, p.Y, p.Anchor, ink, fontSmall, marks[i].Label, "")
	}

	front := ParetoFront(c.Points)
	onFront := make([]bool, len(c.Points)) // drawn full size and labelled
	for _, i := range front {
		onFront[i] = true
	}
	// The step line along the front: across, then down.
	if len(front) > 1 {
		var d strings.Builder
		for k, i := range front {
			x, y := xs.Pos(c.Points[i].X), ys.Pos(c.Points[i].Y)
			if k == 0 {
				fmt.Fprintf(&d, "M%.1f,%.1f", x, y)
			} else {
				fmt.Fprintf(&d, " H%.1f V%.1f", x, y)
			}
		}
		f.printf(`<path d="%s" fill="none" stroke="%s" stroke-width="1.5" stroke-opacity="0.7"/>`+"\n", d.String(), ink)
	}
	// Dominated plans first, small; then the front; the recommended last.
	rec := -1
	order := make([]int, 0, len(c.Points))
	for i, p := range c.Points {
		if p.Recommended && rec < 0 {
			rec = i
			continue
		}
		if !onFront[i] {
			order = append(order, i)
		}
	}
	named := slices.Clone(front)
	for i, p := range c.Points {
		if p.Named && !onFront[i] {
			named = append(named, i)
		}
	}
	for _, i := range named {
		onFront[i] = true
		if i != rec {
			order = append(order, i)
		}
	}
	if rec >= 0 {
		order = append(order, rec)
	}
	for _, i := range order {
		p := c.Points[i]
		x, y := xs.Pos(p.X), ys.Pos(p.Y)
		col, mk := kindStyle(p.Kind)
		tip := html.EscapeString(p.Tip)
		switch {
		case i == rec:
			f.printf(`<g transform="translate(%.1f,%.1f)"><circle r="12" fill="white" fill-opacity="0.9" stroke="%s" stroke-width="2"/><g transform="scale(1.2)" fill="%s" stroke="%s">%s</g><title>recommended: %s</title></g>`+"\n", x, y, ink, col, col, mk, tip)
		case onFront[i]:
			f.printf(`<g transform="translate(%.1f,%.1f)" fill="%s" stroke="%s"><title>%s</title>%s</g>`+"\n", x, y, col, col, tip, mk)
		default:
			f.printf(`<g transform="translate(%.1f,%.1f) scale(0.6)" fill="%s" stroke="%s" fill-opacity="0.55" stroke-opacity="0.55"><title>%s</title>%s</g>`+"\n", x, y, col, col, tip, mk)
		}
		if i == rec {
			obstacles, obstacleOwners = append(obstacles, Box{x - 13, y - 13, x + 13, y + 13}), append(obstacleOwners, i)
		} else if onFront[i] {
			obstacles, obstacleOwners = append(obstacles, Box{x - 5.5, y - 5.5, x + 5.5, y + 5.5}), append(obstacleOwners, i)
		}
	}
	// Labels: the recommended plan first, then the front by X, then the
	// other named plans.
	var labelled []int
	if rec >= 0 {
		labelled = append(labelled, rec)
	}
	for _, i := range named {
		if i != rec {
			labelled = append(labelled, i)
		}
	}
	var owners []int
	for _, i := range labelled {
		p := c.Points[i]
		if p.Label == "" {
			continue
		}
		wish := LabelWish{X: xs.Pos(p.X), Y: ys.Pos(p.Y), Text: p.Label, Size: fontSmall}
		if i == rec {
			wish.Gap = 15 // beyond the halo
		}
		wishes = append(wishes, wish)
		owners = append(owners, i)
	}
	var small []Box // the dominated marks: avoided where possible
	for i, p := range c.Points {
		if !onFront[i] && i != rec {
			x, y := xs.Pos(p.X), ys.Pos(p.Y)
			small = append(small, Box{x - 3, y - 3, x + 3, y + 3})
		}
	}
	placed := placeAvoiding(wishes, owners, obstacles, obstacleOwners, small, Box{left + 2, top, right + marginX, top + plotH})
	for i, p := range placed {
		if p.Dropped {
			continue
		}
		w := wishes[i]
		// A label set farther out gets a leader line to its mark.
		if lx, ly := nearestOnBox(p.Box, w.X, w.Y); math.Hypot(lx-w.X, ly-w.Y) > 20 {
			f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1"/>`+"\n", w.X, w.Y, lx, ly, ink)
		}
		f.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="white" fill-opacity="0.8"/>`+"\n", p.Box.X0, p.Box.Y0, p.Box.X1-p.Box.X0, p.Box.Y1-p.Box.Y0)
		f.text(p.X, p.Y, p.Anchor, ink, fontSmall, w.Text, "")
	}
	f.y = bottom
	f.y = c.legend(f)
	if len(off) > 0 {
		var names []string
		for _, m := range off {
			names = append(names, m.Label)
		}
		for _, l := range wrapWords("Beyond the plans, not drawn: "+strings.Join(names, "; ")+".", int((f.W-2*marginX)/(0.55*fontSmall))) {
			f.y += fontSmall * 1.25
			f.text(marginX, f.y, "start", ink, fontSmall, l, "")
		}
		f.y += 4
	}
	return f.finish(w, c.Caption)
}

// nearestOnBox is the point of box b nearest to (x, y).
func nearestOnBox(b Box, x, y float64) (float64, float64) {
	return math.Max(b.X0, math.Min(x, b.X1)), math.Max(b.Y0, math.Min(y, b.Y1))
}

// placeAvoiding places the labels in order, each beside its mark, avoiding
// the other labelled marks and the mark labels (obstacles, owned by the
// point indices in obstacleOwners, -1 for none: a label may touch its own
// mark's box) and, where it can, the small dominated marks; when nothing
// beside the mark is free it tries farther out.
func placeAvoiding(wishes []LabelWish, owners []int, obstacles []Box, obstacleOwners []int, small []Box, bounds Box) []Placed {
	out := make([]Placed, len(wishes))
	var taken []Box
	for i, w := range wishes {
		var obs []Box
		for k, o := range obstacles {
			if obstacleOwners[k] != owners[i] {
				obs = append(obs, o)
			}
		}
		obs = append(obs, taken...)
		withSmall := append(slices.Clone(obs), small...)
		var p Placed
	try:
		for _, o := range [][]Box{withSmall, obs} {
			for _, gap := range []float64{w.Gap, 16, 30, 50} {
				w.Gap = gap
				if p = PlaceLabels([]LabelWish{w}, bounds, o)[0]; !p.Dropped {
					break try
				}
			}
		}
		out[i] = p
		if !p.Dropped {
			taken = append(taken, p.Box)
		}
	}
	return out
}

// placeMarkLabels puts each vertical mark's label at the top of the plot,
// beside its line, dropping those that would overlap.
func placeMarkLabels(marks []XMark, xs Scale, top, left, right float64) []Placed {
	var wishes []LabelWish
	for _, m := range marks {
		wishes = append(wishes, LabelWish{X: xs.Pos(m.X), Y: top + fontSmall*0.8, Text: m.Label, Size: fontSmall})
	}
	return PlaceLabels(wishes, Box{left, top, right + marginX, top + 3*fontSmall}, nil)
}

// legend draws one entry per plan kind present, plus the front and the
// recommended plan's halo, wrapping entries to the width.
func (c *ParetoChart) legend(f *frame) float64 {
	present := map[string]bool{}
	for _, p := range c.Points {
		present[p.Kind] = true
	}
	lf := newLegendFlow(f)
	for _, k := range paretoKinds {
		if !present[k] {
			continue
		}
		col, mk := kindStyle(k)
		lf.entry(18+textWidth(k, fontSmall), func(x, y float64) {
			f.printf(`<g transform="translate(%.1f,%.1f)" fill="%s" stroke="%s">%s</g>`+"\n", x+6, y-5, col, col, mk)
			f.text(x+18, y, "start", ink, fontSmall, k, "")
		})
	}
	if slices.ContainsFunc(c.Points, func(p ParetoPoint) bool { return p.Recommended }) {
		lf.entry(24+textWidth("recommended", fontSmall), func(x, y float64) {
			f.printf(`<circle cx="%.1f" cy="%.1f" r="9" fill="white" stroke="%s" stroke-width="2"/>`+"\n", x+9, y-5, ink)
			f.text(x+24, y, "start", ink, fontSmall, "recommended", "")
		})
	}
	lf.y += fontSmall * 0.9
	note := "Line: plans no other plan beats on both axes; small marks are beaten on both. Each mark's tooltip names its plan."
	for _, l := range wrapWords(note, int((f.W-2*marginX)/(0.55*fontSmall))) {
		lf.y += fontSmall * 1.25
		f.text(marginX, lf.y, "start", "#444444", fontSmall, l, "")
	}
	return lf.y + 4
}
