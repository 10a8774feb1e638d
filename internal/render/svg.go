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

// LineChart is a plain, readable SVG line chart: axes with round ticks, one
// coloured line per series (with a dash pattern too, for readers who cannot
// tell the colours apart), and a legend.
type LineChart struct {
	Title, XLabel, YLabel string
	Series                []Series
	Width, Height         int
}

var palette = []string{"#1b6ca8", "#d1495b", "#2e8b57", "#edae49", "#6a4c93", "#00798c", "#8d6e63", "#555555"}
var dashes = []string{"", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4", "12 2"}

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
	W, H := c.Width, c.Height
	if W == 0 {
		W = 860
	}
	if H == 0 {
		H = 480
	}
	left, right, top, bottom := 80.0, 20.0, 40.0, 60.0
	legendH := 18.0 * float64(len(c.Series))
	plotW, plotH := float64(W)-left-right, float64(H)-top-bottom-legendH
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), 0.0, math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			xmin, xmax = math.Min(xmin, p[0]), math.Max(xmax, p[0])
			ymin, ymax = math.Min(ymin, p[1]), math.Max(ymax, p[1])
		}
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax, ymax = 0, 1, 1
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	ystep := niceStep(ymax-ymin, 5)
	ymin = math.Floor(ymin/ystep) * ystep
	ymax = math.Ceil(ymax/ystep) * ystep
	if ymax == ymin {
		ymax = ymin + ystep
	}
	xs := func(x float64) float64 { return left + (x-xmin)/(xmax-xmin)*plotW }
	ys := func(y float64) float64 { return top + plotH - (y-ymin)/(ymax-ymin)*plotH }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%g" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(c.Title))
	for y := ymin; y <= ymax+ystep/2; y += ystep {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", left, ys(y), left+plotW, ys(y))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, ys(y)+4, FormatTick(y))
	}
	xstep := niceStep(xmax-xmin, 8)
	for x := math.Ceil(xmin/xstep) * xstep; x <= xmax+1e-9; x += xstep {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`+"\n", xs(x), top+plotH, xs(x), top+plotH+5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", xs(x), top+plotH+18, FormatTick(x))
	}
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333"/>`+"\n", left, top+plotH, left+plotW, top+plotH)
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333"/>`+"\n", left, top, left, top+plotH)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", left+plotW/2, top+plotH+38, html.EscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">%s</text>`+"\n", top+plotH/2, top+plotH/2, html.EscapeString(c.YLabel))
	for i, s := range c.Series {
		col, dash := palette[i%len(palette)], dashes[i%len(dashes)]
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs(p[0]), ys(p[1])))
		}
		dashAttr := ""
		if dash != "" {
			dashAttr = fmt.Sprintf(` stroke-dasharray="%s"`, dash)
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`+"\n", col, dashAttr, strings.Join(pts, " "), html.EscapeString(s.Name))
		ly := top + plotH + 50 + float64(i)*18
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", left, ly-4, left+28, ly-4, col, dashAttr)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f">%s</text>`+"\n", left+36, ly, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
