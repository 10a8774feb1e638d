package render

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// StripRow is one row of a strip chart: the outcomes of one policy (or of
// several with identical results, named together in Label).
type StripRow struct {
	Label      string
	Values     []float64 // one per finished run
	Unfinished int       // runs that never finished (not plotted)
	PMeet      *float64  // share of runs that met the deadline; nil: no deadline
	Mean, P95  float64
}

// StripChart draws one row per policy: every run as a dot, jittered
// vertically so that the mass at the mode cannot hide the tail, the mean (a
// solid tick) and 95th percentile (a dashed tick), P(meet the deadline)
// beside the name, and rows that miss the deadline in grey. Where the mean
// exceeds the 95th percentile (a rare, costly tail) the 99th percentile and
// the maximum are written out.
type StripChart struct {
	Title, XLabel string
	Rows          []StripRow
	Ref           *XMark // a reference value drawn across all rows (on-demand's cost)
	Caption       string
	Width         int
	// MaxDots bounds the dots drawn per row (evenly spaced quantiles, the
	// minimum and maximum included); 0: 200.
	MaxDots int
}

// stripDots picks at most n values spread evenly over the sorted values,
// keeping the smallest and the largest.
func stripDots(sorted []float64, n int) []float64 {
	if len(sorted) <= n {
		return sorted
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = sorted[int(math.Round(float64(i)*float64(len(sorted)-1)/float64(n-1)))]
	}
	return out
}

// quantile is the q-quantile of sorted values (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Write renders the strip chart as SVG.
func (c *StripChart) Write(w io.Writer) error {
	f := newFrame(c.Width, c.Title)
	maxDots := c.MaxDots
	if maxDots <= 0 {
		maxDots = 200
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	sorted := make([][]float64, len(c.Rows))
	for i, r := range c.Rows {
		s := r.Values
		if !slices.IsSorted(s) {
			s = slices.Clone(s)
			slices.Sort(s)
		}
		sorted[i] = s
		if len(s) > 0 {
			lo, hi = math.Min(lo, s[0]), math.Max(hi, s[len(s)-1])
		}
	}
	if c.Ref != nil {
		lo, hi = math.Min(lo, c.Ref.X), math.Max(hi, c.Ref.X)
	}
	left, right := marginX+6, f.W-marginX-6
	xs := NewScale(lo, hi, left, right, false)
	if !xs.Log && lo > 0 { // frame the data, not zero, when zero is far away
		span := hi - lo
		st := niceStep(span, 5)
		if lo > span {
			xs = Scale{Min: math.Floor(lo/st) * st, Max: math.Ceil(hi/st) * st, from: left, to: right}
		}
	}
	top := f.y
	if c.Ref != nil {
		top += fontSmall * 1.4
	}
	const band = 34.0
	y := top
	for i, r := range c.Rows {
		col := palette[i%len(palette)]
		missed := r.PMeet != nil && *r.PMeet < 1
		if missed {
			col = Grey
		}
		// Header: the name on the left, P(meet) on the right.
		meet := ""
		if r.PMeet != nil {
			meet = fmt.Sprintf("meets the deadline in %s of runs", pctText(*r.PMeet))
		}
		if r.Unfinished > 0 {
			meet += fmt.Sprintf("; %d never finished", r.Unfinished)
		}
		y += fontSmall
		nameCol := ink
		if missed {
			nameCol = "#6B6B6B"
		}
		f.text(left, y, "start", nameCol, fontSmall, r.Label, ` font-weight="bold"`)
		if meet != "" {
			if left+textWidth(r.Label, fontSmall)+12+textWidth(meet, fontSmall) > right {
				y += fontSmall * 1.25
				f.text(left, y, "start", nameCol, fontSmall, meet, "")
			} else {
				f.text(right, y, "end", nameCol, fontSmall, meet, "")
			}
		}
		s := sorted[i]
		if len(s) > 0 && r.Mean > r.P95*(1+1e-9)+1e-9 {
			y += fontSmall * 1.25
			f.text(left, y, "start", nameCol, fontSmall, fmt.Sprintf("mean %s above p95 %s: p99 %s, max %s", FormatTick(r.Mean), FormatTick(r.P95), FormatTick(quantile(s, 0.99)), FormatTick(s[len(s)-1])), "")
		}
		y += 6
		f.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%g" fill="#F6F6F6"/>`+"\n", left, y, right-left, band)
		f.printf(`<g fill="%s" fill-opacity="0.45">`+"\n", col)
		for k, v := range stripDots(s, maxDots) {
			jit := math.Mod(float64(k)*0.6180339887, 1)
			f.printf(`<circle cx="%.1f" cy="%.1f" r="3"/>`+"\n", xs.Pos(v), y+5+jit*(band-10))
		}
		f.printf("</g>\n")
		if c.Ref != nil {
			x := xs.Pos(c.Ref.X)
			f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="1 3"/>`+"\n", x, y, x, y+band, palette[1])
		}
		if len(s) > 0 {
			mx, px := xs.Pos(r.Mean), xs.Pos(r.P95)
			f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"><title>mean %s</title></line>`+"\n", mx, y-3, mx, y+band+3, ink, FormatTick(r.Mean))
			f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="4 3"><title>p95 %s</title></line>`+"\n", px, y-3, px, y+band+3, ink, FormatTick(r.P95))
		}
		y += band + 10
	}
	if c.Ref != nil {
		x := xs.Pos(c.Ref.X)
		anchor := "middle"
		tw := textWidth(c.Ref.Label, fontSmall)
		switch {
		case x-tw/2 < left:
			anchor = "start"
		case x+tw/2 > right:
			anchor = "end"
		}
		f.text(x, top-6, anchor, palette[1], fontSmall, c.Ref.Label, "")
	}
	f.y = f.drawXAxis(xs, y, y, c.XLabel)
	f.text(marginX, f.y+fontSmall*0.6, "start", ink, fontSmall, "Dot: one run. Solid tick: mean; dashed: 95th percentile.", "")
	f.y += fontSmall * 1.2
	return f.finish(w, c.Caption)
}

// pctText writes a share as a percentage: whole numbers unless the share is
// close to, but not at, 0 or 1.
func pctText(p float64) string {
	v := 100 * p
	switch {
	case v > 99 && v < 100, v > 0 && v < 1:
		return fmt.Sprintf("%.1f%%", v)
	}
	return fmt.Sprintf("%.0f%%", math.Round(v))
}
