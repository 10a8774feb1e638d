package render

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Chart sizes. A chart is drawn on a viewBox ChartWidth wide and shown at
// width 100% (scaling with its container, never wider than MaxChartWidth);
// its smallest text, fontSmall, stays above 11 px even when the chart is
// shown 400 px wide (15 × 400/520 ≈ 11.5).
const (
	ChartWidth    = 520
	MaxChartWidth = 760
	fontSmall     = 15.0
	fontTitle     = 17.0
	marginX       = 12.0
)

// frame collects the body of a chart below its title; finish writes the
// whole SVG document, the caption last, once the height is known.
type frame struct {
	W     float64
	title []string
	body  strings.Builder
	y     float64 // the next free y below what is drawn
}

// newFrame starts a chart whose title (its question) is wrapped to the width.
func newFrame(W int, title string) *frame {
	if W <= 0 {
		W = ChartWidth
	}
	f := &frame{W: float64(W)}
	f.title = wrapWords(title, int((f.W-2*marginX)/(0.62*fontTitle))) // bold is wider
	f.y = 8 + float64(len(f.title))*fontTitle*1.3 + 8
	return f
}

// printf appends SVG markup to the body.
func (f *frame) printf(format string, args ...any) { fmt.Fprintf(&f.body, format, args...) }

// text draws one line of escaped text.
func (f *frame) text(x, y float64, anchor, fill string, size float64, s string, extra string) {
	f.printf(`<text x="%.1f" y="%.1f" text-anchor="%s" fill="%s" font-size="%g"%s>%s</text>`+"\n", x, y, anchor, fill, size, extra, html.EscapeString(s))
}

// finish writes the document: title, body, then the caption (source and
// date of the data) wrapped to the width.
func (f *frame) finish(w io.Writer, caption string) error {
	capLines := wrapWords(caption, int((f.W-2*marginX)/(0.55*fontSmall)))
	H := f.y + 10 + float64(len(capLines))*fontSmall*1.3 + 6
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %.0f" width="100%%" style="max-width:%dpx;height:auto" font-family="sans-serif" font-size="%g" role="img">`+"\n", f.W, H, MaxChartWidth, fontSmall)
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(strings.Join(f.title, " ")))
	fmt.Fprintf(&b, `<rect width="%g" height="%.0f" fill="white"/>`+"\n", f.W, H)
	for i, l := range f.title {
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" font-size="%g" font-weight="bold" fill="%s">%s</text>`+"\n", marginX, 8+fontTitle+float64(i)*fontTitle*1.3, fontTitle, ink, html.EscapeString(l))
	}
	b.WriteString(f.body.String())
	for i, l := range capLines {
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" font-size="%g" fill="#555555">%s</text>`+"\n", marginX, f.y+10+fontSmall+float64(i)*fontSmall*1.3, fontSmall, html.EscapeString(l))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// drawXAxis draws a horizontal axis at pixel y with its ticks, grid lines up
// to gridTop (none when gridTop ≥ y) and the axis title below; it returns
// the y below the axis title.
func (f *frame) drawXAxis(s Scale, y, gridTop float64, label string) float64 {
	lastEnd := -1e9
	for _, v := range s.Ticks() {
		x := s.Pos(v)
		if gridTop < y {
			f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", x, gridTop, x, y, faint)
		}
		f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", x, y, x, y+5, ink)
		t := FormatTick(v)
		wd := textWidth(t, fontSmall)
		tx := math.Max(x, 2+wd/2) // a label at the left edge moves right, inside the chart
		if tx-wd/2 < lastEnd+4 || tx+wd/2 > f.W-2 {
			continue // a tick label that would overlap its neighbour is dropped
		}
		lastEnd = tx + wd/2
		f.text(tx, y+5+fontSmall, "middle", ink, fontSmall, t, "")
	}
	lo, hi := s.Pos(s.Min), s.Pos(s.Max)
	f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", lo, y, hi, y, ink)
	if s.Log {
		label += " (log scale)"
	}
	f.text((lo+hi)/2, y+5+2.3*fontSmall, "middle", ink, fontSmall, label, "")
	return y + 5 + 2.3*fontSmall + 6
}

// drawXYFrame draws the frame of an X–Y chart of plotH pixels: the Y axis
// title above the plot, horizontal grid lines with Y ticks, the Y axis line
// and the X axis with its title. The data sit a little off the axes so that
// marks and labels at the ends stay clear of the axis and its ticks. It
// returns the scales and the plot's top, left and right edges, and the y
// below the X axis.
func (f *frame) drawXYFrame(xmin, xmax, ymin, ymax, plotH float64, xLabel, yLabel string) (xs, ys Scale, top, left, right, bottom float64) {
	top = f.y + fontSmall*2 // room between the axis title and the top tick
	const pad = 12.0
	ys = NewScale(ymin, ymax, top+plotH-pad, top, false)
	for _, v := range ys.Ticks() {
		left = math.Max(left, textWidth(FormatTick(v), fontSmall))
	}
	left += marginX + 8
	right = f.W - marginX - 10
	xs = NewScale(xmin, xmax, left+pad, right, false)
	f.text(marginX, f.y+fontSmall*0.9, "start", ink, fontSmall, yLabel+logNote(ys), "")
	for _, v := range ys.Ticks() {
		y := ys.Pos(v)
		f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", left, y, right, y, faint)
		f.text(left-6, y+fontSmall*0.35, "end", ink, fontSmall, FormatTick(v), "")
	}
	f.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", left, top, left, top+plotH, ink)
	bottom = f.drawXAxis(xs, top+plotH, top, xLabel)
	return xs, ys, top, left, right, bottom
}

// legendFlow lays legend entries left to right from (x, y), starting a new
// line where an entry would pass right: the legends of the Pareto and the
// scatter charts.
type legendFlow struct{ x, y, right float64 }

func newLegendFlow(f *frame) *legendFlow {
	return &legendFlow{x: marginX, y: f.y + fontSmall, right: f.W - marginX}
}

// entry draws an entry w wide at the next place.
func (l *legendFlow) entry(w float64, draw func(x, y float64)) {
	if l.x+w > l.right {
		l.x, l.y = marginX, l.y+fontSmall*1.5
	}
	draw(l.x, l.y)
	l.x += w + 14
}
