package render

// The chart palette is Okabe and Ito's colour-blind-safe set ("Color
// Universal Design", Okabe & Ito, 2008, https://jfly.uni-koeln.de/color/),
// ordered for contrast on white; its yellow (#F0E442) is left out, too pale
// for lines and text. Colour is never the only cue: series also differ by
// dash pattern (dashes) and marker shape (markers).
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

// dashes is the second cue of a line series, one pattern per palette slot.
var dashes = []string{"", "7 3", "2 3", "9 3 2 3", "4 4", "12 3", "1 3"}

// markers is the second cue of a point series: an SVG shape drawn around
// (0,0) with a radius of about 5, to be translated into place.
var markers = []string{
	`<circle r="5"/>`,
	`<rect x="-4.5" y="-4.5" width="9" height="9"/>`,
	`<path d="M0,-6 L5.5,4 L-5.5,4 Z"/>`,
	`<path d="M0,-6 L6,0 L0,6 L-6,0 Z"/>`,
	`<path d="M-5,-5 L5,5 M5,-5 L-5,5" stroke-width="2.5" fill="none"/>`,
	`<path d="M0,6 L5.5,-4 L-5.5,-4 Z"/>`,
	`<path d="M-5,0 L5,0 M0,-5 L0,5" stroke-width="2.5" fill="none"/>`,
}

// Grey is the colour of what the reader should pass over (a policy that
// misses the deadline); ink and faint are the text and grid colours.
const (
	Grey  = "#9A9A9A"
	ink   = "#222222"
	faint = "#E3E3E3"
)

// seriesStyle returns the colour, dash pattern and marker of series i.
func seriesStyle(i int) (colour, dash, marker string) {
	k := i % len(palette)
	return palette[k], dashes[k], markers[k]
}
