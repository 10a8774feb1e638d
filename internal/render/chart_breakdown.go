package render

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
)

// Part is one named component of a cost (usage, egress, a credit); credits
// and promotions are negative.
type Part struct {
	Name  string
	Value float64
}

// BreakdownRow is one plan's cost split into parts.
type BreakdownRow struct {
	Label string
	Parts []Part
}

// BreakdownChart draws each plan's cost as a stacked bar of its parts:
// positive parts to the right of zero, negative ones (credits, promotions)
// to the left, hatched. Parts are told apart by colour and by a legend in
// stacking order; every segment has a tooltip with its value.
type BreakdownChart struct {
	Title, XLabel string
	Rows          []BreakdownRow
	Caption       string
	Width         int
}

// partNames lists the parts in the order they first appear.
func (c *BreakdownChart) partNames() []string {
	var names []string
	for _, r := range c.Rows {
		for _, p := range r.Parts {
			if !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
	}
	return names
}

// Write renders the chart as SVG.
func (c *BreakdownChart) Write(w io.Writer) error {
	f := newFrame(c.Width, c.Title)
	names := c.partNames()
	lo, hi := 0.0, 0.0
	for _, r := range c.Rows {
		pos, neg := 0.0, 0.0
		for _, p := range r.Parts {
			if p.Value >= 0 {
				pos += p.Value
			} else {
				neg += p.Value
			}
		}
		lo, hi = math.Min(lo, neg), math.Max(hi, pos)
	}
	left, right := marginX+6, f.W-marginX-10
	xs := NewScale(lo, hi, left, right, true)
	f.printf(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="white"/><line x1="0" y1="0" x2="0" y2="6" stroke="%s" stroke-width="3"/></pattern></defs>`+"\n", ink)
	const barH = 20.0
	y := f.y + 4
	for _, r := range c.Rows {
		y += fontSmall
		f.text(left, y, "start", ink, fontSmall, r.Label, "")
		y += 5
		pos, neg := 0.0, 0.0
		for _, p := range r.Parts {
			k := slices.Index(names, p.Name)
			col := palette[k%len(palette)]
			var x0, x1 float64
			if p.Value >= 0 {
				x0, x1 = xs.Pos(pos), xs.Pos(pos+p.Value)
				pos += p.Value
			} else {
				x0, x1 = xs.Pos(neg+p.Value), xs.Pos(neg)
				neg += p.Value
			}
			fill := col
			if p.Value < 0 {
				fill = "url(#hatch)"
			}
			f.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%g" fill="%s" stroke="%s" stroke-width="1"><title>%s: %s</title></rect>`+"\n", x0, y, math.Max(x1-x0, 0.5), barH, fill, col, html.EscapeString(p.Name), FormatTick(p.Value))
		}
		if neg < 0 { // zero, where credits start to the left of it
			x := xs.Pos(0)
			f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`+"\n", x, y-3, x, y+barH+3, ink)
		}
		total := pos + neg
		t := "total " + FormatTick(total)
		tx := xs.Pos(pos) + 6
		anchor := "start"
		if tx+textWidth(t, fontSmall) > f.W-2 {
			tx, anchor = f.W-marginX, "end"
			y += barH + fontSmall*1.1
			f.text(tx, y, anchor, ink, fontSmall, t, "")
			y += 8
			continue
		}
		f.text(tx, y+barH*0.5+fontSmall*0.35, anchor, ink, fontSmall, t, "")
		y += barH + 8
	}
	f.y = f.drawXAxis(xs, y, y, c.XLabel)
	// Legend, wrapped.
	ly, lx := f.y+fontSmall, marginX
	for k, n := range names {
		col := palette[k%len(palette)]
		label := n
		neg := false
		for _, r := range c.Rows {
			for _, p := range r.Parts {
				neg = neg || (p.Name == n && p.Value < 0)
			}
		}
		if neg {
			label += " (subtracted)"
		}
		wd := 20 + textWidth(label, fontSmall)
		if lx+wd > f.W-marginX {
			lx, ly = marginX, ly+fontSmall*1.5
		}
		fill := col
		if neg {
			fill = "url(#hatch)"
		}
		f.printf(`<rect x="%.1f" y="%.1f" width="14" height="12" fill="%s" stroke="%s"/>`+"\n", lx, ly-11, fill, col)
		f.text(lx+20, ly, "start", ink, fontSmall, label, "")
		lx += wd + 14
	}
	f.y = ly + 6
	return f.finish(w, c.Caption)
}

// DotColumn is one column of a dot plot: a quantity with its axis label.
type DotColumn struct {
	Label string
}

// DotRow is one plan: a label and one value per column (NaN: unknown, not drawn).
type DotRow struct {
	Label  string
	Values []float64
	Mark   bool // the recommended plan, drawn filled with a ring
}

// DotPlot draws the top plans in rows with one aligned column of dots per
// quantity (total cost, hours): what a breakdown shows when every plan's
// cost has one part. Each column has its own axis, starting at zero, so that
// lengths compare.
type DotPlot struct {
	Title   string
	Columns []DotColumn
	Rows    []DotRow
	Caption string
	Width   int
}

// Write renders the dot plot as SVG.
func (c *DotPlot) Write(w io.Writer) error {
	f := newFrame(c.Width, c.Title)
	n := max(len(c.Columns), 1)
	gap := 24.0
	colW := (f.W - 2*marginX - gap*float64(n-1)) / float64(n)
	scales := make([]Scale, len(c.Columns))
	for j := range c.Columns {
		hi := 0.0
		for _, r := range c.Rows {
			if j < len(r.Values) && !math.IsNaN(r.Values[j]) {
				hi = math.Max(hi, r.Values[j])
			}
		}
		x0 := marginX + float64(j)*(colW+gap)
		scales[j] = NewScale(0, hi, x0+6, x0+colW-10, true)
	}
	top := f.y + 4
	y := top
	const rowH = 18.0
	for _, r := range c.Rows {
		y += fontSmall
		weight := ""
		if r.Mark {
			weight = ` font-weight="bold"`
		}
		f.text(marginX, y, "start", ink, fontSmall, r.Label, weight)
		y += 7
		cy := y + rowH/2
		for j, s := range scales {
			f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", s.Pos(s.Min), cy, s.Pos(s.Max), cy, faint)
			if j >= len(r.Values) || math.IsNaN(r.Values[j]) {
				f.text(s.Pos(s.Min), cy+fontSmall*0.35, "start", "#6B6B6B", fontSmall, "unknown", "")
				continue
			}
			v := r.Values[j]
			x := s.Pos(v)
			// The value beside its dot, on the side with room.
			if t := FormatTick(v); x+12+textWidth(t, fontSmall) <= s.Pos(s.Max)+8 {
				f.text(x+12, cy+fontSmall*0.35, "start", ink, fontSmall, t, "")
			} else {
				f.text(x-12, cy+fontSmall*0.35, "end", ink, fontSmall, t, "")
			}
			col, _, _ := seriesStyle(j)
			tip := html.EscapeString(fmt.Sprintf("%s: %s %s", r.Label, c.Columns[j].Label, FormatTick(v)))
			if r.Mark {
				f.printf(`<circle cx="%.1f" cy="%.1f" r="9" fill="white" stroke="%s" stroke-width="2"/>`+"\n", x, cy, ink)
			}
			f.printf(`<circle cx="%.1f" cy="%.1f" r="5" fill="%s"><title>%s</title></circle>`+"\n", x, cy, col, tip)
		}
		y += rowH + 4
	}
	bottom := y
	for j, s := range scales {
		bottom = math.Max(bottom, c.drawColumnAxis(f, s, y, c.Columns[j].Label))
	}
	f.y = bottom
	return f.finish(w, c.Caption)
}

// drawColumnAxis draws one column's axis (zero, the middle and the end only,
// so that narrow columns stay readable) and its label; it returns the y below it.
func (c *DotPlot) drawColumnAxis(f *frame, s Scale, y float64, label string) float64 {
	lo, hi := s.Pos(s.Min), s.Pos(s.Max)
	f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", lo, y, hi, y, ink)
	for _, v := range []float64{s.Min, (s.Min + s.Max) / 2, s.Max} {
		x := s.Pos(v)
		f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", x, y, x, y+5, ink)
		anchor := "middle"
		if v == s.Min {
			anchor = "start"
		} else if v == s.Max {
			anchor = "end"
		}
		f.text(x, y+5+fontSmall, anchor, ink, fontSmall, FormatTick(v), "")
	}
	lines := wrapWords(label, int((hi-lo)/(0.55*fontSmall)))
	for i, l := range lines {
		f.text((lo+hi)/2, y+5+2.3*fontSmall+float64(i)*fontSmall*1.25, "middle", ink, fontSmall, l, "")
	}
	return y + 5 + 2.3*fontSmall + float64(max(len(lines)-1, 0))*fontSmall*1.25 + 6
}
