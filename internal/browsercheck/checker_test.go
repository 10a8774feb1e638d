package browsercheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCollide(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b box
		want bool
	}{
		{"apart", box{0, 0, 10, 10}, box{20, 0, 10, 10}, false},
		{"touching edges", box{0, 0, 10, 10}, box{10, 0, 10, 10}, false},
		{"1 px across is within the tolerance", box{0, 0, 10, 10}, box{9, 0, 10, 10}, false},
		{"2 px across and down", box{0, 0, 10, 10}, box{8, 8, 10, 10}, true},
		{"one inside the other", box{0, 0, 100, 20}, box{10, 5, 5, 5}, true},
		{"same column, lines apart", box{0, 0, 50, 10}, box{0, 12, 50, 10}, false},
	} {
		if got := collide(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: collide(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

// A 15 px font's line box is about 17 px (ascent 0.905 em + descent 0.212 em
// in Liberation Sans); two lines set 15 px apart overlap as line boxes but
// not as em boxes.
func TestGlyphsTrimTheLineBox(t *testing.T) {
	line1 := svgText{element: element{Box: box{0, 0, 100, 17}}, Em: 15, Across: true}
	line2 := svgText{element: element{Box: box{0, 15, 100, 17}}, Em: 15, Across: true}
	if !collide(line1.Box, line2.Box) {
		t.Fatalf("line boxes %v and %v should overlap", line1.Box, line2.Box)
	}
	if got, want := line1.glyphs(), (box{0, 1, 100, 15}); got != want {
		t.Errorf("glyphs() = %v, want %v", got, want)
	}
	if collide(line1.glyphs(), line2.glyphs()) {
		t.Errorf("em boxes %v and %v should not overlap", line1.glyphs(), line2.glyphs())
	}
	// A y-axis title turned a quarter: trimmed across its width instead.
	up := svgText{element: element{Box: box{10, 100, 17, 80}}, Em: 15}
	if got, want := up.glyphs(), (box{11, 100, 15, 80}); got != want {
		t.Errorf("turned text: glyphs() = %v, want %v", got, want)
	}
}

func TestCheckJudgesMeasurements(t *testing.T) {
	l := layout{
		ClientWidth: 400, ScrollWidth: 400, ViewportMeta: "width=device-width, initial-scale=1",
		SVGs: []chart{{Label: "c", Box: box{0, 0, 400, 200}, Texts: []svgText{
			{element: element{Tag: "text", Text: "small", Box: box{10, 10, 20, 8}}, Height: 8, Em: 7, Across: true},
			{element: element{Tag: "text", Text: "fine", Box: box{10, 50, 30, 12}}, Height: 12, Em: 10, Across: true},
		}}},
	}
	// A halo: the same label drawn twice in one place is not a collision.
	halo := svgText{element: element{Tag: "text", Text: "fine", Box: box{10.4, 50, 30, 12}}, Height: 12, Em: 10, Across: true}
	l.SVGs[0].Texts = append(l.SVGs[0].Texts, halo)
	if got := check(l, 1024, checkOptions{html: true}); len(got) != 0 {
		t.Errorf("at 1024 px: got %q, want nothing (the readability floor is for %d px)", got, narrowest)
	}
	got := check(l, 400, checkOptions{html: true})
	if len(got) != 1 || !strings.Contains(got[0], `8.0 px high at 400 px`) || !strings.Contains(got[0], `"small"`) {
		t.Errorf("at 400 px: got %q, want one finding naming the 8 px text \"small\"", got)
	}
	// Another label in the halo's place is a collision.
	l.SVGs[0].Texts[2].Text = "other"
	got = check(l, 1024, checkOptions{html: true})
	if len(got) != 1 || !strings.Contains(got[0], `texts overlap: <text> "fine"`) || !strings.Contains(got[0], `<text> "other"`) {
		t.Errorf("two labels in one place: got %q, want one overlap naming both", got)
	}
}

// badPage breaks every rule once, beside a table that may scroll inside its
// wrapper and two texts that sit side by side without touching.
const badPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>bad</title>
<style>body{margin:8px;font:16px sans-serif} .abs{position:absolute;left:20px}</style></head>
<body>
<p class="abs" style="top:40px">first label</p>
<p class="abs" style="top:46px">second label</p>
<div id="wide" style="width:2000px;height:20px;background:#ccc"></div>
<div id="scroller" style="overflow-x:auto;max-width:100%"><table style="width:1500px"><tr><td>wide table cell</td></tr></table></div>
<span>left</span> <span>right</span>
<svg width="300" height="120" viewBox="0 0 300 120" xmlns="http://www.w3.org/2000/svg"><title>overlapping chart</title>
<text x="10" y="30" font-size="14">revenue</text>
<text x="20" y="34" font-size="14">costs</text>
<text x="10" y="100" font-size="5">tiny</text>
<text x="200" y="60" font-size="14">apart</text>
</svg>
</body></html>`

// TestChecksCatchABadPage: the checks can fail. A page with overlapping
// texts (HTML and SVG), a 2000 px wide div (8 px body margin: 2008 px of
// page), tiny chart text and no viewport
// is reported for each, naming the elements.
func TestChecksCatchABadPage(t *testing.T) {
	ctx := tab(t)
	path := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(path, []byte(badPage), 0o644); err != nil {
		t.Fatal(err)
	}
	l, png, err := look(ctx, "file://"+path, 400, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Errorf("screenshot is not a PNG (%d bytes)", len(png))
	}
	got := check(l, 400, checkOptions{html: true})
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"no <meta name=viewport",
		"page scrolls sideways: scrollWidth 2008 > viewport 400",
		"past the right edge (400 px) outside a scrolling container: <div#wide>",
		`texts overlap: <p.abs> "first label"`,
		`<p.abs> "second label"`,
		`svg 1 "overlapping chart": texts overlap: <text> "revenue"`,
		`and <text> "costs"`,
		`svg 1 "overlapping chart": text `, `px high at 400 px (want ≥ 9): <text> "tiny"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("findings lack %q; got:\n%s", want, all)
		}
	}
	for _, notWant := range []string{"wide table cell", "<table", `"apart"`, `"left"`} {
		if strings.Contains(all, notWant) {
			t.Errorf("findings name %s, which is fine; got:\n%s", notWant, all)
		}
	}
	if len(got) != 6 {
		t.Errorf("got %d findings, want 6 (viewport, page width, the wide div, the HTML overlap, the SVG overlap, the tiny text):\n%s", len(got), all)
	}
}

// TestChecksPassAGoodPage: the same content laid out well has no findings.
func TestChecksPassAGoodPage(t *testing.T) {
	ctx := tab(t)
	good := `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>good</title></head>
<body style="margin:8px;font:16px sans-serif">
<p>first label</p><p>second label</p>
<div style="overflow-x:auto"><table style="width:1500px"><tr><td>wide table cell</td></tr></table></div>
<svg viewBox="0 0 300 120" style="width:100%;max-width:300px;height:auto" xmlns="http://www.w3.org/2000/svg">
<text x="10" y="30" font-size="14">revenue</text><text x="10" y="60" font-size="14">costs</text></svg>
</body></html>`
	path := filepath.Join(t.TempDir(), "good.html")
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, w := range widths {
		l, _, err := look(ctx, "file://"+path, w, i == 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := check(l, w, checkOptions{html: true}); len(got) != 0 {
			t.Errorf("at %d px: got %q, want no findings", w, got)
		}
	}
}
