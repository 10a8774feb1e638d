package render

import (
	"fmt"
	"html"
	"io"
	"math"
)

// ScatterPoint is one point of a scatter chart. Series picks its colour and
// marker; Hollow draws the marker as an outline, the chart's second kind of
// figure (a datasheet figure beside measured ones); Label, where set, is
// placed beside the point when there is room (else dropped, never drawn over
// another label); Tip is its tooltip.
type ScatterPoint struct {
	X, Y   float64
	Series int
	Hollow bool
	Label  string
	Tip    string
}

// ScatterChart draws points of several series (providers, say) against two
// axes, log where a range spans more than 100×, one colour and marker per
// series with a legend, and filled, ringed markers against hollow ones for
// two kinds of figure (the ring marks a filled point whatever its marker), each kind named in the legend (FilledName, HollowName), so that
// the two are never mixed without saying so. Labelled points are drawn last.
type ScatterChart struct {
	Title, XLabel, YLabel  string
	Series                 []string
	Points                 []ScatterPoint
	FilledName, HollowName string
	Caption                string
	Width                  int
}

// Write renders the scatter chart as SVG.
func (c *ScatterChart) Write(w io.Writer) error {
	f := newFrame(c.Width, c.Title)
	const plotH = 320.0
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range c.Points {
		xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
		ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	xs, ys, top, left, right, bottom := f.drawXYFrame(xmin, xmax, ymin, ymax, plotH, c.XLabel, c.YLabel)

	// Unlabelled points first, then the labelled ones on top.
	var order []int
	for pass := 0; pass < 2; pass++ {
		for i, p := range c.Points {
			if (p.Label != "") == (pass == 1) {
				order = append(order, i)
			}
		}
	}
	var wishes []LabelWish
	var obstacles []Box
	for _, i := range order {
		p := c.Points[i]
		x, y := xs.Pos(p.X), ys.Pos(p.Y)
		col, _, mk := seriesStyle(p.Series)
		fill := col
		if p.Hollow {
			fill = "white"
		}
		ring := ""
		if !p.Hollow { // a second cue: the cross and plus markers have no inside to fill
			ring = fmt.Sprintf(`<circle r="9" fill="none" stroke="%s" stroke-width="1.2"/>`, col)
		}
		f.printf(`<g transform="translate(%.1f,%.1f)" fill="%s" stroke="%s" stroke-width="1.5"><title>%s</title>%s%s</g>`+"\n", x, y, fill, col, html.EscapeString(p.Tip), ring, mk)
		obstacles = append(obstacles, Box{x - 9, y - 9, x + 9, y + 9})
		if p.Label != "" {
			wishes = append(wishes, LabelWish{X: x, Y: y, Text: p.Label, Size: fontSmall, Gap: 11}) // beyond the ring
		}
	}
	for i, pl := range PlaceLabels(wishes, Box{left + 2, top, right + marginX, top + plotH}, obstacles) {
		if pl.Dropped {
			continue
		}
		f.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="white" fill-opacity="0.8"/>`+"\n", pl.Box.X0, pl.Box.Y0, pl.Box.X1-pl.Box.X0, pl.Box.Y1-pl.Box.Y0)
		f.text(pl.X, pl.Y, pl.Anchor, ink, fontSmall, wishes[i].Text, "")
	}
	f.y = bottom
	f.y = c.legend(f)
	return f.finish(w, c.Caption)
}

// legend names each series present (its colour and marker) and the two
// kinds of figure (filled and hollow).
func (c *ScatterChart) legend(f *frame) float64 {
	present := map[int]bool{}
	kinds := map[bool]bool{}
	for _, p := range c.Points {
		present[p.Series] = true
		kinds[p.Hollow] = true
	}
	lf := newLegendFlow(f)
	for i, name := range c.Series {
		if !present[i] {
			continue
		}
		col, _, mk := seriesStyle(i)
		lf.entry(18+textWidth(name, fontSmall), func(x, y float64) {
			f.printf(`<g transform="translate(%.1f,%.1f)" fill="%s" stroke="%s">%s</g>`+"\n", x+6, y-5, col, col, mk)
			f.text(x+18, y, "start", ink, fontSmall, name, "")
		})
	}
	if kinds[true] && kinds[false] || kinds[true] && c.HollowName != "" {
		lf.y += fontSmall * 1.5
		lf.x = marginX
		for _, k := range []struct {
			hollow bool
			name   string
		}{{false, c.FilledName}, {true, c.HollowName}} {
			if !kinds[k.hollow] || k.name == "" {
				continue
			}
			lf.entry(24+textWidth(k.name, fontSmall), func(x, y float64) {
				if k.hollow {
					f.printf(`<circle cx="%.1f" cy="%.1f" r="5" fill="white" stroke="%s" stroke-width="1.5"/>`+"\n", x+9, y-5, ink)
				} else {
					f.printf(`<circle cx="%.1f" cy="%.1f" r="5" fill="%s"/><circle cx="%.1f" cy="%.1f" r="9" fill="none" stroke="%s" stroke-width="1.2"/>`+"\n", x+9, y-5, ink, x+9, y-5, ink)
				}
				f.text(x+24, y, "start", ink, fontSmall, k.name, "")
			})
		}
	} else if kinds[false] && c.FilledName != "" {
		lf.y += fontSmall * 1.5
		f.text(marginX, lf.y, "start", "#444444", fontSmall, "All points: "+c.FilledName+".", "")
	}
	return lf.y + fontSmall*0.6
}
