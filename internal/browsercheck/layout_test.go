package browsercheck

import (
	"fmt"
	"strings"
)

// box is a rectangle in CSS pixels of the page.
type box struct{ X, Y, W, H float64 }

func (b box) String() string {
	return fmt.Sprintf("[x %.0f y %.0f w %.0f h %.0f]", b.X, b.Y, b.W, b.H)
}

// overlap is how far two boxes intersect, across and down (0 when apart).
func overlap(a, b box) (w, h float64) {
	w = min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	h = min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	return max(w, 0), max(h, 0)
}

// tolerance is how far two text boxes may touch, in CSS pixels, before they
// count as overlapping (antialiasing and rounding of glyph boxes).
const tolerance = 1.0

// collide reports whether two boxes overlap by more than the tolerance both
// across and down.
func collide(a, b box) bool {
	w, h := overlap(a, b)
	return w > tolerance && h > tolerance
}

// element is an element as measure.js describes it.
type element struct {
	Tag  string `json:"tag"`
	Text string `json:"text"`
	Box  box    `json:"box"`
}

func (e element) String() string { return fmt.Sprintf("<%s> %q %s", e.Tag, e.Text, e.Box) }

// textRun is an HTML element's own text: one box per line fragment.
type textRun struct {
	Tag   string `json:"tag"`
	Text  string `json:"text"`
	Rects []box  `json:"rects"`
}

// svgText is one <text> of a chart: its box is the font's line box (ascent
// plus descent, about 1.15 em), Height that box's rendered height, Em the
// rendered font size, Across whether it reads sideways (not turned a quarter).
type svgText struct {
	element
	Height float64 `json:"height"`
	Em     float64 `json:"em"`
	Across bool    `json:"across"`
}

// glyphs is the text's box trimmed across its lines to one em, centred: the
// line box's extra ascent and descent is room that two lines set 1 em apart
// share without their letters touching.
func (t svgText) glyphs() box {
	b := t.Box
	if t.Em <= 0 {
		return b
	}
	if t.Across && b.H > t.Em {
		b.Y += (b.H - t.Em) / 2
		b.H = t.Em
	} else if !t.Across && b.W > t.Em {
		b.X += (b.W - t.Em) / 2
		b.W = t.Em
	}
	return b
}

// chart is an outermost <svg> and its texts.
type chart struct {
	Label string    `json:"label"`
	Box   box       `json:"box"`
	Texts []svgText `json:"texts"`
}

// layout is what measure.js returns for a page at one width.
type layout struct {
	InnerWidth   float64   `json:"innerWidth"`
	ClientWidth  float64   `json:"clientWidth"`
	ScrollWidth  float64   `json:"scrollWidth"`
	ViewportMeta string    `json:"viewportMeta"`
	Wide         []element `json:"wide"`
	Texts        []textRun `json:"texts"`
	SVGs         []chart   `json:"svgs"`
}

// minTextHeight is the least rendered height, in CSS pixels, of a chart's
// text line at the narrowest width (a 9 px line box is about 7.5 px type).
const minTextHeight = 9.0

// narrowest is the width at which chart text must still be readable.
const narrowest = 400

// checkOptions says which checks apply to a page.
type checkOptions struct {
	html bool // a page we did not write ourselves: it must declare a viewport
}

// check judges a page's layout at one width and returns what is wrong, one
// line each, naming the offending elements with their text and box.
func check(l layout, width int, opt checkOptions) []string {
	var bad []string
	if opt.html && !strings.Contains(l.ViewportMeta, "width=device-width") {
		bad = append(bad, fmt.Sprintf("no <meta name=viewport content=\"width=device-width, ...\"> (got %q): phones lay the page out 980 px wide and shrink it", l.ViewportMeta))
	}
	if l.ScrollWidth > l.ClientWidth+tolerance {
		bad = append(bad, fmt.Sprintf("page scrolls sideways: scrollWidth %.0f > viewport %.0f", l.ScrollWidth, l.ClientWidth))
	}
	for _, e := range l.Wide {
		bad = append(bad, fmt.Sprintf("past the right edge (%.0f px) outside a scrolling container: %s", l.ClientWidth, e))
	}
	bad = append(bad, htmlOverlaps(l.Texts)...)
	for i, c := range l.SVGs {
		name := fmt.Sprintf("svg %d %q", i+1, c.Label)
		for a := range c.Texts {
			for b := a + 1; b < len(c.Texts); b++ {
				if ta, tb := c.Texts[a], c.Texts[b]; collide(ta.glyphs(), tb.glyphs()) && !halo(ta, tb) {
					bad = append(bad, fmt.Sprintf("%s: texts overlap: %s and %s", name, ta.element, tb.element))
				}
			}
		}
		for _, t := range c.Texts {
			if w, h := overlap(t.Box, c.Box); w < t.Box.W-tolerance || h < t.Box.H-tolerance {
				bad = append(bad, fmt.Sprintf("%s: text cut off by the chart's edge %s: %s", name, c.Box, t.element))
			}
			if width <= narrowest && t.Height < minTextHeight {
				bad = append(bad, fmt.Sprintf("%s: text %.1f px high at %d px (want ≥ %.0f): %s", name, t.Height, width, minTextHeight, t.element))
			}
		}
	}
	return bad
}

// halo reports whether two texts are one label drawn twice in the same place
// (a white outline under the text keeps it legible over lines): not a
// collision.
func halo(a, b svgText) bool {
	same := func(x, y float64) bool { return x-y <= tolerance && y-x <= tolerance }
	return a.Text == b.Text && same(a.Box.X, b.Box.X) && same(a.Box.Y, b.Box.Y) &&
		same(a.Box.W, b.Box.W) && same(a.Box.H, b.Box.H)
}

// htmlOverlaps finds HTML text whose line boxes overlap another element's
// text.
func htmlOverlaps(runs []textRun) []string {
	var bad []string
	for a := range runs {
		for b := a + 1; b < len(runs); b++ {
			if ra, rb, ok := firstCollision(runs[a].Rects, runs[b].Rects); ok {
				bad = append(bad, fmt.Sprintf("texts overlap: <%s> %q %s and <%s> %q %s",
					runs[a].Tag, runs[a].Text, ra, runs[b].Tag, runs[b].Text, rb))
			}
		}
	}
	return bad
}

func firstCollision(as, bs []box) (box, box, bool) {
	for _, a := range as {
		for _, b := range bs {
			if collide(a, b) {
				return a, b, true
			}
		}
	}
	return box{}, box{}, false
}
