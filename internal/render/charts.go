package render

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Point is one labelled point of a scatter chart.
type Point struct {
	X, Y  float64
	Label string
	Mark  bool // highlighted (the recommended plan)
}

// ScatterChart plots labelled points, e.g. each plan's cost against its time.
type ScatterChart struct {
	Title, XLabel, YLabel string
	Points                []Point
	Width, Height         int
}

type axes struct {
	left, top, w, h        float64
	xmin, xmax, ymin, ymax float64
}

func newAxes(W, H int, xs, ys []float64, legendH float64) axes {
	a := axes{left: 80, top: 40, w: float64(W) - 100, h: float64(H) - 100 - legendH}
	a.xmin, a.xmax, a.ymin, a.ymax = math.Inf(1), math.Inf(-1), 0, math.Inf(-1)
	for _, x := range xs {
		a.xmin, a.xmax = math.Min(a.xmin, x), math.Max(a.xmax, x)
	}
	for _, y := range ys {
		a.ymax = math.Max(a.ymax, y)
	}
	if math.IsInf(a.xmin, 1) {
		a.xmin, a.xmax, a.ymax = 0, 1, 1
	}
	if a.xmax == a.xmin {
		a.xmin, a.xmax = a.xmin-1, a.xmax+1
	}
	// Frame the data: round outwards, from 0 only when the data come close to it.
	span := a.xmax - a.xmin
	if a.xmin >= 0 && a.xmin < span {
		a.xmin = 0
	} else {
		st := niceStep(span, 6)
		a.xmin = math.Floor((a.xmin-span*0.05)/st) * st
	}
	ys2 := niceStep(a.ymax-a.ymin, 5)
	a.ymax = math.Ceil(a.ymax/ys2) * ys2
	if a.ymax == a.ymin {
		a.ymax = a.ymin + 1
	}
	xs2 := niceStep(a.xmax-a.xmin, 6)
	a.xmax = math.Ceil(a.xmax/xs2) * xs2
	return a
}

func (a axes) x(v float64) float64 { return a.left + (v-a.xmin)/(a.xmax-a.xmin)*a.w }
func (a axes) y(v float64) float64 { return a.top + a.h - (v-a.ymin)/(a.ymax-a.ymin)*a.h }

func (a axes) draw(b *strings.Builder, xl, yl string) {
	ystep := niceStep(a.ymax-a.ymin, 5)
	for v := a.ymin; v <= a.ymax+ystep/2; v += ystep {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", a.left, a.y(v), a.left+a.w, a.y(v))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", a.left-6, a.y(v)+4, FormatTick(v))
	}
	xstep := niceStep(a.xmax-a.xmin, 6)
	for v := a.xmin; v <= a.xmax+xstep/2; v += xstep {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", a.x(v), a.top+a.h+18, FormatTick(v))
	}
	fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333"/>`+"\n", a.left, a.top+a.h, a.left+a.w, a.top+a.h)
	fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333"/>`+"\n", a.left, a.top, a.left, a.top+a.h)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", a.left+a.w/2, a.top+a.h+38, html.EscapeString(xl))
	fmt.Fprintf(b, `<text x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">%s</text>`+"\n", a.top+a.h/2, a.top+a.h/2, html.EscapeString(yl))
}

func svgOpen(b *strings.Builder, W, H int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(b, `<text x="80" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
}

// Write renders the scatter chart as SVG.
func (c *ScatterChart) Write(w io.Writer) error {
	W, H := c.Width, c.Height
	if W == 0 {
		W = 860
	}
	if H == 0 {
		H = 480
	}
	var xs, ys []float64
	for _, p := range c.Points {
		xs, ys = append(xs, p.X), append(ys, p.Y)
	}
	a := newAxes(W, H, xs, ys, 0)
	var b strings.Builder
	svgOpen(&b, W, H, c.Title)
	a.draw(&b, c.XLabel, c.YLabel)
	type box struct{ x0, x1, y float64 }
	var placed []box
	for i, p := range c.Points {
		col, r := palette[0], 4.0
		if p.Mark {
			col, r = palette[1], 7
		}
		x, y := a.x(p.X), a.y(p.Y)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%g" fill="%s" fill-opacity="0.8"><title>%s</title></circle>`+"\n", x, y, r, col, html.EscapeString(p.Label))
		if i >= 5 {
			continue // label the best few; hovering shows every label
		}
		anchor, dx := "start", 9.0
		width := 5.6 * float64(len([]rune(p.Label))) // 10 px sans-serif
		bx := box{x + dx, x + dx + width, y - 7}
		if x > a.left+a.w*0.6 {
			anchor, dx = "end", -9
			bx = box{x + dx - width, x + dx, y - 7}
		}
		clash := false
		for _, q := range placed {
			if bx.x0 < q.x1 && q.x0 < bx.x1 && math.Abs(q.y-bx.y) < 13 {
				clash = true
			}
		}
		if clash {
			continue
		}
		placed = append(placed, bx)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="%s">%s</text>`+"\n", x+dx, y-7, anchor, html.EscapeString(p.Label))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Bar is one stacked bar: named segments.
type Bar struct {
	Label    string
	Segments []Segment
}

// Segment is one part of a bar.
type Segment struct {
	Name  string
	Value float64
}

// BarChart draws horizontal stacked bars, e.g. the cost breakdown of the top plans.
type BarChart struct {
	Title, XLabel string
	Bars          []Bar
	Width         int
}

// Write renders the bar chart as SVG.
func (c *BarChart) Write(w io.Writer) error {
	W := c.Width
	if W == 0 {
		W = 860
	}
	names := []string{}
	seen := map[string]bool{}
	maxV := 0.0
	for _, bar := range c.Bars {
		t := 0.0
		for _, s := range bar.Segments {
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
			if s.Value > 0 {
				t += s.Value
			}
		}
		maxV = math.Max(maxV, t)
	}
	if maxV == 0 {
		maxV = 1
	}
	step := niceStep(maxV, 5)
	maxV = math.Ceil(maxV/step) * step
	longest := 0
	for _, bar := range c.Bars {
		longest = max(longest, len([]rune(bar.Label)))
	}
	left, top, barH, gap := math.Min(440, 24+7.2*float64(longest)), 40.0, 22.0, 10.0
	plotW := float64(W) - left - 30
	H := int(top + float64(len(c.Bars))*(barH+gap) + 60 + 18*float64((len(names)+3)/4))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="10" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", html.EscapeString(c.Title))
	color := map[string]string{}
	for i, n := range names {
		color[n] = palette[i%len(palette)]
	}
	for i, bar := range c.Bars {
		y := top + float64(i)*(barH+gap)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n", left-8, y+barH/2+4, html.EscapeString(bar.Label))
		x := left
		for _, s := range bar.Segments {
			if s.Value <= 0 {
				continue
			}
			wd := s.Value / maxV * plotW
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%g" fill="%s"><title>%s: %s</title></rect>`+"\n", x, y, wd, barH, color[s.Name], html.EscapeString(s.Name), FormatTick(s.Value))
			x += wd
		}
	}
	axisY := top + float64(len(c.Bars))*(barH+gap)
	for v := 0.0; v <= maxV+step/2; v += step {
		x := left + v/maxV*plotW
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`+"\n", x, axisY, x, axisY+5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, axisY+18, FormatTick(v))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", left+plotW/2, axisY+36, html.EscapeString(c.XLabel))
	for i, n := range names {
		lx, ly := 10+float64(i%4)*200, axisY+56+18*float64(i/4)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/><text x="%.1f" y="%.1f">%s</text>`+"\n", lx, ly-10, color[n], lx+18, ly, html.EscapeString(n))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
