package render

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/gpuscout/gpuscout/internal/render/rendertest"
)

// init registers -update (refresh the golden SVGs) unless another test file
// of the package already has: init runs after every package-level flag.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func TestChooseLog(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   bool
	}{
		{1, 100, false},   // exactly 100×: linear
		{1, 100.5, true},  // just over
		{3, 4000, true},   // the advise report's hours: 3 h to 4,000 h
		{0, 1e6, false},   // zero has no logarithm
		{-5, 1e6, false},  // nor do negatives
		{50, 150, false},  // a cost spread
		{1e-3, 0.2, true}, // small values too
		{2, math.Inf(1), false},
	} {
		if got := ChooseLog(c.lo, c.hi); got != c.want {
			t.Errorf("ChooseLog(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}

func TestScale(t *testing.T) {
	for _, c := range []struct {
		name            string
		lo, hi          float64
		linearOnly, log bool
		min, max        float64
		ticks           []float64
	}{
		{"log over 100×", 3, 4000, false, true, 1, 10000, []float64{1, 10, 100, 1000, 10000}},
		{"log, two decades: 2 and 5 between", 0.5, 80, false, true, 0.1, 100, []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100}},
		{"linear from zero", 3, 250, false, false, 0, 250, []float64{0, 50, 100, 150, 200, 250}},
		{"linear only", 3, 4000, true, false, 0, 4000, []float64{0, 1000, 2000, 3000, 4000}},
		{"linear, far from zero", 1000, 1100, false, false, 1000, 1100, []float64{1000, 1020, 1040, 1060, 1080, 1100}},
		{"one value", 0, 0, false, false, 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
	} {
		s := NewScale(c.lo, c.hi, 0, 100, c.linearOnly)
		if s.Log != c.log || s.Min != c.min || s.Max != c.max {
			t.Errorf("%s: scale %+v, want log %v, %g..%g", c.name, s, c.log, c.min, c.max)
			continue
		}
		got := s.Ticks()
		ok := len(got) == len(c.ticks)
		for i := 0; ok && i < len(got); i++ {
			ok = math.Abs(got[i]-c.ticks[i]) < 1e-9*math.Max(1, c.ticks[i])
		}
		if !ok {
			t.Errorf("%s: ticks %v, want %v", c.name, got, c.ticks)
		}
		if p0, p1 := s.Pos(s.Min), s.Pos(s.Max); p0 != 0 || math.Abs(p1-100) > 1e-9 {
			t.Errorf("%s: Min, Max at %g, %g px, want 0, 100", c.name, p0, p1)
		}
	}
	// A log axis puts each decade the same distance apart.
	s := NewScale(1, 1000, 0, 300, false)
	for v, want := range map[float64]float64{1: 0, 10: 100, 100: 200, 1000: 300} {
		if got := s.Pos(v); math.Abs(got-want) > 1e-9 {
			t.Errorf("log Pos(%g) = %g, want %g", v, got, want)
		}
	}
}

func TestPlaceLabels(t *testing.T) {
	bounds := Box{0, 0, 400, 300}
	// Size 10: 6 px a character, 12 px high; gap 6.
	got := PlaceLabels([]LabelWish{
		{X: 100, Y: 100, Text: "aaaaa", Size: 10}, // 30 px wide: right of the point
		{X: 100, Y: 100, Text: "bbbbb", Size: 10}, // same anchor: right is taken, goes left
		{X: 395, Y: 200, Text: "ccccc", Size: 10}, // at the right edge: left
		{X: 100, Y: 100, Text: "ddddd", Size: 10}, // third at the anchor: centred above
	}, bounds, nil)
	want := []struct {
		x      float64
		anchor string
	}{{106, "start"}, {94, "end"}, {389, "end"}, {100, "middle"}}
	for i, w := range want {
		if got[i].Dropped || got[i].X != w.x || got[i].Anchor != w.anchor {
			t.Errorf("label %d: %+v, want x %g anchor %s", i, got[i], w.x, w.anchor)
		}
	}
	// An obstacle over the whole area drops every label: never drawn over.
	for i, p := range PlaceLabels([]LabelWish{{X: 50, Y: 50, Text: "x", Size: 10}}, bounds, []Box{bounds}) {
		if !p.Dropped {
			t.Errorf("label %d placed at %+v over an obstacle", i, p)
		}
	}
	// Many labels on one spot: those placed never overlap, and stay inside.
	var wishes []LabelWish
	for i := 0; i < 40; i++ {
		wishes = append(wishes, LabelWish{X: 200 + float64(i%3), Y: 150, Text: "label " + strconv.Itoa(i), Size: 12})
	}
	placed := PlaceLabels(wishes, bounds, nil)
	n := 0
	for i, a := range placed {
		if a.Dropped {
			continue
		}
		n++
		if !a.Box.inside(bounds) {
			t.Errorf("label %d outside the bounds: %+v", i, a.Box)
		}
		for j := range i {
			if !placed[j].Dropped && a.Box.overlaps(placed[j].Box) {
				t.Errorf("labels %d and %d overlap", j, i)
			}
		}
	}
	if n == 0 || n == len(wishes) {
		t.Errorf("%d of %d crowded labels placed, want some placed and some dropped", n, len(wishes))
	}
}

func TestWrapWords(t *testing.T) {
	got := wrapWords("Which spot policy meets the 52 h deadline?", 20)
	want := []string{"Which spot policy", "meets the 52 h", "deadline?"}
	if !slices.Equal(got, want) {
		t.Errorf("wrapWords = %q, want %q", got, want)
	}
}

func TestStripDotsKeepTheTail(t *testing.T) {
	v := make([]float64, 1000)
	for i := range v {
		v[i] = 100
	}
	v[999] = 400 // one interrupted run in a thousand
	got := stripDots(v, 200)
	if len(got) != 200 || got[0] != 100 || got[199] != 400 {
		t.Errorf("stripDots: %d dots, first %g, last %g; want 200, 100, 400 (the tail kept)", len(got), got[0], got[len(got)-1])
	}
}

func fp(v float64) *float64 { return &v }

// goldenCharts are the charts kept as golden SVGs under testdata.
func goldenCharts() map[string]interface{ Write(w io.Writer) error } {
	tail := make([]float64, 0, 500)
	for i := range 500 {
		c := 60 + float64(i%17)*0.4
		if i%50 == 0 {
			c = 160 + float64(i)*0.1 // interrupted runs: the tail
		}
		tail = append(tail, c)
	}
	flat := make([]float64, 500)
	for i := range flat {
		flat[i] = 147.39
	}
	return map[string]interface{ Write(w io.Writer) error }{
		"strip.svg": &StripChart{
			Title:  "Which spot policy meets the 52 h deadline, and what does a run cost?",
			XLabel: "cost per run (USD)",
			Rows: []StripRow{
				{Label: "on-demand", Values: flat, PMeet: fp(1), Mean: 147.39, P95: 147.39},
				{Label: "spot = fallback = asg-mix", Values: tail, PMeet: fp(0), Mean: 66.5, P95: 66.4, Unfinished: 3},
				{Label: "uniform-progress", Values: []float64{120, 125, 130, 131, 140}, PMeet: fp(0.995), Mean: 129.2, P95: 140},
			},
			Ref:     &XMark{X: 147.39, Label: "on-demand 147.39 USD"},
			Caption: "Simulated by gpuscout, 500 runs per policy, seed 1. Prices: test figures.",
		},
		"line.svg": &LineChart{
			Title:  "Which pricing model is cheapest at your hours per month?",
			XLabel: "hours used per month", YLabel: "cost over 36 months (USD)",
			Series: []Series{
				{Name: "on-demand", Points: [][2]float64{{0, 0}, {730, 772000}}},
				{Name: "3y commitment monthly", Points: [][2]float64{{0, 270000}, {730, 270000}}},
				{Name: "spot", Points: [][2]float64{{0, 0}, {730, 405000}}},
			},
			Marks:    []XMark{{X: 420, Label: "your load: 420 h/month"}},
			Callouts: []Callout{{X: 256, Y: 270000, Label: "3y commitment wins above 256 h/month"}},
			Caption:  "Compute only. Prices: test figures (2026-07-30).",
		},
		"line-log.svg": &LineChart{
			Title: "Cost against time (log axes)", XLabel: "hours", YLabel: "cost (USD)",
			Series: []Series{{Name: "plans", Points: [][2]float64{{3, 20000}, {30, 9000}, {4000, 150}}}},
		},
	}
}

func TestGoldenCharts(t *testing.T) {
	for name, c := range goldenCharts() {
		var b bytes.Buffer
		if err := c.Write(&b); err != nil {
			t.Fatal(name, err)
		}
		path := filepath.Join("testdata", name)
		if updating() {
			os.MkdirAll("testdata", 0o755)
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./internal/render -run TestGoldenCharts -update)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from the golden file; refresh with -update and read the diff", name)
		}
		rendertest.CheckReadable(t, name, b.Bytes())
	}
}

func TestLineChartLegendOnlyWhenNeeded(t *testing.T) {
	var one, two bytes.Buffer
	(&LineChart{Title: "t", Series: []Series{{Name: "only-series", Points: [][2]float64{{0, 1}, {1, 2}}}}}).Write(&one)
	(&LineChart{Title: "t", Series: []Series{{Name: "first-series", Points: [][2]float64{{0, 1}}}, {Name: "second-series", Points: [][2]float64{{0, 2}}}}}).Write(&two)
	if bytes.Contains(one.Bytes(), []byte(">only-series</text>")) {
		t.Error("a single series got a legend")
	}
	if !bytes.Contains(two.Bytes(), []byte(">first-series</text>")) || !bytes.Contains(two.Bytes(), []byte(">second-series</text>")) {
		t.Error("two series without a legend")
	}
}

// benchStrip renders a strip chart of rows × runs unsorted values.
func benchStrip(b *testing.B, rows, runs int) {
	rs := make([]StripRow, rows)
	for r := range rs {
		v := make([]float64, runs)
		for i := range v {
			v[i] = 50 + float64((i*7919+r*31)%1000)/10
		}
		rs[r] = StripRow{Label: "policy " + strconv.Itoa(r), Values: v, PMeet: fp(0.9), Mean: 100, P95: 140}
	}
	c := &StripChart{Title: "Which policy?", XLabel: "cost (USD)", Rows: rs, Caption: "bench"}
	for b.Loop() {
		c.Write(io.Discard)
	}
}

// BenchmarkStripChart is gpuscout spot's default: 7 policies × 1,000 runs.
func BenchmarkStripChart(b *testing.B) { benchStrip(b, 7, 1000) }

// BenchmarkStripChartLarge: 7 policies × 10,000 runs (--runs 10000).
func BenchmarkStripChartLarge(b *testing.B) { benchStrip(b, 7, 10000) }

func BenchmarkLineChart(b *testing.B) {
	c := goldenCharts()["line.svg"]
	for b.Loop() {
		c.Write(io.Discard)
	}
}

// TestChartsEmptyAndOdd: no data, one value, NaN-free edge cases render a
// valid document without a panic.
func TestChartsEmptyAndOdd(t *testing.T) {
	for name, c := range map[string]interface{ Write(io.Writer) error }{
		"empty line":             &LineChart{Title: "t"},
		"empty strip":            &StripChart{Title: "t"},
		"strip row without runs": &StripChart{Title: "t", Rows: []StripRow{{Label: "a", Unfinished: 5}}},
		"one point":              &LineChart{Title: "t", Series: []Series{{Name: "a", Points: [][2]float64{{5, 5}}}}},
		"negative":               &LineChart{Title: "t", Series: []Series{{Name: "a", Points: [][2]float64{{0, -50}, {10, 30}}}}},
	} {
		var b bytes.Buffer
		if err := c.Write(&b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := xml.Unmarshal(b.Bytes(), new(struct{})); err != nil {
			t.Errorf("%s: not valid XML: %v", name, err)
		}
		rendertest.CheckReadable(t, name, b.Bytes())
	}
}
