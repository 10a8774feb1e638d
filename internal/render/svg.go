package render

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Series is one line of a chart.
type Series struct {
	Name   string
	Points [][2]float64 // x, y
}

// XMark is a vertical line at X with a label (the user's load, a deadline).
type XMark struct {
	X     float64
	Label string
}

// Callout is a marked point with a label (a break-even point).
type Callout struct {
	X, Y  float64
	Label string
}

// LineChart is a plain, readable SVG line chart: axes with round ticks (log
// where the data span more than 100×), one line per series told apart by
// colour, dash and end marker, a legend when there is more than one series,
// vertical marks and labelled points placed without overlap, and a caption
// with the data's source and date. The title should be the question the
// chart answers.
type LineChart struct {
	Title, XLabel, YLabel string
	Series                []Series
	Marks                 []XMark
	Callouts              []Callout
	Caption               string // the data's source and date
	Width, Height         int    // viewBox size; 0: ChartWidth, and a plot 260 px high
}

// niceStep picks a round tick step (1, 2 or 5 × 10^k) for a range.
func niceStep(span float64, ticks int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(ticks)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// FormatTick renders axis numbers compactly: 1200 → "1.2k", 3000000 → "3M".
func FormatTick(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v/1e6), "0"), ".") + "M"
	case a >= 1e3:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v/1e3), "0"), ".") + "k"
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// Write renders the chart as a standalone SVG document.
func (c *LineChart) Write(w io.Writer) error {
	f := newFrame(c.Width, c.Title)
	plotH := 260.0
	if c.Height > 0 {
		plotH = math.Max(120, float64(c.Height)-200)
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			xmin, xmax = math.Min(xmin, p[0]), math.Max(xmax, p[0])
			ymin, ymax = math.Min(ymin, p[1]), math.Max(ymax, p[1])
		}
	}
	for _, m := range c.Marks {
		xmin, xmax = math.Min(xmin, m.X), math.Max(xmax, m.X)
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	top := f.y + fontSmall*1.6
	ys := NewScale(ymin, ymax, top+plotH, top, false)
	left := 0.0
	for _, v := range ys.Ticks() {
		left = math.Max(left, textWidth(FormatTick(v), fontSmall))
	}
	left += marginX + 8
	right := f.W - marginX - 8
	xs := NewScale(xmin, xmax, left, right, false)
	f.text(marginX, f.y+fontSmall*0.9, "start", ink, fontSmall, c.YLabel+logNote(ys), "")
	for _, v := range ys.Ticks() {
		y := ys.Pos(v)
		f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", left, y, right, y, faint)
		f.text(left-6, y+fontSmall*0.35, "end", ink, fontSmall, FormatTick(v), "")
	}
	f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", left, top, left, top+plotH, ink)
	bottom := f.drawXAxis(xs, top+plotH, top+plotH, c.XLabel)
	var wishes []LabelWish
	for _, m := range c.Marks {
		x := xs.Pos(m.X)
		f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="3 3"/>`+"\n", x, top, x, top+plotH, ink)
		wishes = append(wishes, LabelWish{X: x, Y: top + fontSmall*0.7, Text: m.Label, Size: fontSmall})
	}
	for i, s := range c.Series {
		col, dash, mk := seriesStyle(i)
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs.Pos(p[0]), ys.Pos(p[1])))
		}
		f.printf(`<polyline fill="none" stroke="%s" stroke-width="2.5"%s points="%s"><title>%s</title></polyline>`+"\n", col, dashAttr(dash), strings.Join(pts, " "), html.EscapeString(s.Name))
		if n := len(s.Points); n > 0 {
			p := s.Points[n-1]
			f.printf(`<g transform="translate(%.1f,%.1f)" fill="%s" stroke="%s">%s</g>`+"\n", xs.Pos(p[0]), ys.Pos(p[1]), col, col, mk)
		}
	}
	for _, co := range c.Callouts {
		x, y := xs.Pos(co.X), ys.Pos(co.Y)
		f.printf(`<circle cx="%.1f" cy="%.1f" r="5" fill="white" stroke="%s" stroke-width="2"><title>%s</title></circle>`+"\n", x, y, ink, html.EscapeString(co.Label))
		wishes = append(wishes, LabelWish{X: x, Y: y, Text: co.Label, Size: fontSmall})
	}
	placed := PlaceLabels(wishes, Box{marginX, top, f.W - marginX, top + plotH}, nil)
	for i, p := range placed {
		if p.Dropped {
			continue
		}
		f.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="white" fill-opacity="0.85"/>`+"\n", p.Box.X0, p.Box.Y0, p.Box.X1-p.Box.X0, p.Box.Y1-p.Box.Y0)
		f.text(p.X, p.Y, p.Anchor, ink, fontSmall, wishes[i].Text, "")
	}
	f.y = bottom
	if len(c.Series) > 1 {
		for i, s := range c.Series {
			col, dash, mk := seriesStyle(i)
			lines := wrapWords(s.Name, int((f.W-2*marginX-44)/(0.55*fontSmall)))
			y := f.y + fontSmall
			f.printf(`<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="%s" stroke-width="2.5"%s/>`+"\n", marginX, y-5, marginX+30, y-5, col, dashAttr(dash))
			f.printf(`<g transform="translate(%g,%.1f)" fill="%s" stroke="%s">%s</g>`+"\n", marginX+30, y-5, col, col, mk)
			for j, l := range lines {
				f.text(marginX+44, y+float64(j)*fontSmall*1.25, "start", ink, fontSmall, l, "")
			}
			f.y += float64(len(lines))*fontSmall*1.25 + 4
		}
	}
	return f.finish(w, c.Caption)
}

// dashAttr is the stroke-dasharray attribute of a dash pattern ("" for none).
func dashAttr(dash string) string {
	if dash == "" {
		return ""
	}
	return fmt.Sprintf(` stroke-dasharray="%s"`, dash)
}

// logNote tells the reader that an axis is logarithmic.
func logNote(s Scale) string {
	if s.Log {
		return " (log scale)"
	}
	return ""
}
