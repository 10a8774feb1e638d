package render

import "unicode/utf8"

// Box is a rectangle in pixels: X0 ≤ X1, Y0 ≤ Y1.
type Box struct{ X0, Y0, X1, Y1 float64 }

// overlaps reports whether two boxes share any area.
func (b Box) overlaps(o Box) bool {
	return b.X0 < o.X1 && o.X0 < b.X1 && b.Y0 < o.Y1 && o.Y0 < b.Y1
}

// inside reports whether b lies within o.
func (b Box) inside(o Box) bool {
	return b.X0 >= o.X0 && b.X1 <= o.X1 && b.Y0 >= o.Y0 && b.Y1 <= o.Y1
}

// textWidth estimates the width of text in a sans-serif font of this size:
// 0.6 em a character, a little wider than the average so that estimates
// err towards space.
func textWidth(s string, size float64) float64 {
	return 0.6 * size * float64(utf8.RuneCountInString(s))
}

// LabelWish is a label to place next to an anchor point (a data point or the
// end of a line), in order of importance: earlier wishes are placed first.
type LabelWish struct {
	X, Y float64 // the anchor
	Text string
	Size float64 // font size in px
	// Gap is the space between the anchor and the label; 0: 6 px. A
	// larger mark (a haloed point) needs more.
	Gap float64
}

// Placed is where a label went: the text's baseline start or end (Anchor is
// "start", "middle" or "end"), its box, and Dropped when no place was free.
type Placed struct {
	X, Y    float64
	Anchor  string
	Box     Box
	Dropped bool
}

// PlaceLabels puts each label beside its anchor (right, left, centred
// above, centred below, then the four corners, in that order of preference) where it neither leaves bounds nor overlaps a
// label already placed or an obstacle; a label with no free place is
// dropped, never drawn over another.
func PlaceLabels(wishes []LabelWish, bounds Box, obstacles []Box) []Placed {
	taken := append([]Box(nil), obstacles...)
	out := make([]Placed, len(wishes))
	for i, w := range wishes {
		wd, h := textWidth(w.Text, w.Size), w.Size*1.2
		gap := 6.0
		if w.Gap > 0 {
			gap = w.Gap
		}
		// Candidates: baseline position, anchor, box.
		type cand struct {
			x, y   float64
			anchor string
			b      Box
		}
		cands := []cand{
			{w.X + gap, w.Y + w.Size*0.35, "start", Box{w.X + gap, w.Y - h/2, w.X + gap + wd, w.Y + h/2}},
			{w.X - gap, w.Y + w.Size*0.35, "end", Box{w.X - gap - wd, w.Y - h/2, w.X - gap, w.Y + h/2}},
			{w.X, w.Y - gap, "middle", Box{w.X - wd/2, w.Y - gap - h, w.X + wd/2, w.Y - gap}},
			{w.X, w.Y + gap + w.Size, "middle", Box{w.X - wd/2, w.Y + gap, w.X + wd/2, w.Y + gap + h}},
			{w.X + gap, w.Y - gap, "start", Box{w.X + gap, w.Y - gap - h, w.X + gap + wd, w.Y - gap}},
			{w.X - gap, w.Y - gap, "end", Box{w.X - gap - wd, w.Y - gap - h, w.X - gap, w.Y - gap}},
			{w.X + gap, w.Y + gap + w.Size, "start", Box{w.X + gap, w.Y + gap, w.X + gap + wd, w.Y + gap + h}},
			{w.X - gap, w.Y + gap + w.Size, "end", Box{w.X - gap - wd, w.Y + gap, w.X - gap, w.Y + gap + h}},
		}
		out[i].Dropped = true
		for _, c := range cands {
			if !c.b.inside(bounds) {
				continue
			}
			free := true
			for _, t := range taken {
				if c.b.overlaps(t) {
					free = false
					break
				}
			}
			if free {
				out[i] = Placed{X: c.x, Y: c.y, Anchor: c.anchor, Box: c.b}
				taken = append(taken, c.b)
				break
			}
		}
	}
	return out
}

// wrapWords breaks text into lines of at most width characters at spaces (a
// longer word gets a line of its own).
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range splitSpaces(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func splitSpaces(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if r == ' ' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
