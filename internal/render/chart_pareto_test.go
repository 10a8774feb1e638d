package render

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/render/rendertest"
)

// paretoSample is a fixed synthetic result: hours from 3 to 4,000 (a log
// axis), costs from 150 to 20k, four plan kinds, the asked duration and a
// deadline.
func paretoSample() *ParetoChart {
	return &ParetoChart{
		Title:  "Which plan finishes 672 GPU-hours of cv-training soonest for the least money?",
		XLabel: "hours to finish", YLabel: "total cost (USD)",
		Points: []ParetoPoint{
			{X: 29.8, Y: 278.87, Kind: KindSpot, Label: "#1 aws 8×H100", Tip: "#1 aws p5.48xlarge, spot: 278.87 USD, 29.8 h", Recommended: true},
			{X: 12.9, Y: 299.06, Kind: KindSpot, Label: "#2 nebius 8×B200", Tip: "#2 nebius b200, spot: 299.06 USD, 12.9 h"},
			{X: 3, Y: 20000, Kind: KindOnDemand, Label: "#9 big 64×H100", Tip: "#9 big, on-demand: 20,000 USD, 3 h"},
			{X: 29.8, Y: 444.54, Kind: KindOnDemand, Label: "#3 vast 8×H100", Tip: "#3 vast, on-demand: 444.54 USD, 29.8 h", Named: true},
			{X: 168, Y: 150, Kind: KindCommitment, Label: "#4 lambda 4×A100", Tip: "#4 lambda, 1y commitment: 150 USD, 168 h"},
			{X: 4000, Y: 160, Kind: KindMix, Label: "#8 slow 1×T4", Tip: "#8 slow, mix: 160 USD, 4,000 h"},
			{X: 84, Y: 433.84, Kind: KindSpot, Label: "#5 aws 8×A100", Tip: "#5 aws p4d, spot: 433.84 USD, 84 h"},
			{X: 125.7, Y: 470.10, Kind: KindOnDemand, Label: "#6 vast 2×H100", Tip: "#6 vast, on-demand: 470.10 USD, 125.7 h"},
		},
		Marks:   []XMark{{X: 168, Label: "asked: 7d (168 h)"}, {X: 52, Label: "deadline 52 h"}},
		Caption: "Prices: test-source (2026-07-09).",
	}
}

func TestParetoFront(t *testing.T) {
	c := paretoSample()
	got := ParetoFront(c.Points)
	// By hours: 3 h (20k), 12.9 h (299.06), 29.8 h (278.87), 168 h (150);
	// 444.54 at 29.8 h, 433.84 at 84 h, 470.10 and 160 at 4,000 h are beaten.
	if want := []int{2, 1, 0, 4}; !slices.Equal(got, want) {
		t.Errorf("front %v, want %v", got, want)
	}
	// Equal hours within 0.1%: the cheaper one is on the front, alone.
	tie := []ParetoPoint{{X: 12.8900, Y: 567}, {X: 12.8905, Y: 299}}
	if got := ParetoFront(tie); !slices.Equal(got, []int{1}) {
		t.Errorf("tie front %v, want [1]", got)
	}
	if got := ParetoFront(nil); len(got) != 0 {
		t.Errorf("empty front %v", got)
	}
}

// TestParetoChartGolden keeps the chart of the fixed sample as a golden SVG.
func TestParetoChartGolden(t *testing.T) {
	for name, c := range map[string]interface{ Write(io.Writer) error }{
		"pareto.svg":    paretoSample(),
		"breakdown.svg": breakdownSample(),
		"dotplot.svg":   dotSample(),
	} {
		var b bytes.Buffer
		if err := c.Write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name)
		if updating() {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./internal/render -run TestParetoChartGolden -update)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from the golden file; refresh with -update and read the diff", name)
		}
		if err := xml.Unmarshal(b.Bytes(), new(struct{})); err != nil {
			t.Errorf("%s: not valid XML: %v", name, err)
		}
		rendertest.CheckReadable(t, name, b.Bytes())
	}
}

// TestParetoChartDraws: log axes over 100×, the marks labelled, every point
// with a tooltip, the recommended plan drawn last, front plans labelled and
// dominated ones not.
func TestParetoChartDraws(t *testing.T) {
	var b bytes.Buffer
	if err := paretoSample().Write(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if !strings.Contains(s, "hours to finish (log scale)") || !strings.Contains(s, "total cost (USD) (log scale)") {
		t.Error("hours 3–4,000 and costs 150–20k want log axes")
	}
	for _, want := range []string{">asked: 7d (168 h)</text>", ">deadline 52 h</text>", ">#1 aws 8×H100</text>", ">#2 nebius 8×B200</text>",
		">#4 lambda 4×A100</text>", ">#3 vast 8×H100</text>", "<path d=\"M", "Prices: test-source (2026-07-09)."} {
		if !strings.Contains(s, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	for _, unwanted := range []string{">#5 aws 8×A100</text>", ">#6 vast 2×H100</text>"} {
		if strings.Contains(s, unwanted) {
			t.Errorf("dominated plan labelled: %q", unwanted)
		}
	}
	for _, p := range paretoSample().Points {
		if !strings.Contains(s, p.Tip+"</title>") {
			t.Errorf("no tooltip %q", p.Tip)
		}
	}
	rec := strings.Index(s, "<title>recommended: #1 aws")
	if rec < 0 {
		t.Fatal("the recommended plan has no tooltip")
	}
	if n := strings.Count(s[rec+1:], "<title>"); n != 0 {
		t.Errorf("%d marks drawn after the recommended plan, want it last", n)
	}
	// A mark far beyond the plans is said, not drawn.
	far := &ParetoChart{Title: "t", Points: []ParetoPoint{{X: 10, Y: 100, Kind: KindSpot}, {X: 20, Y: 300, Kind: KindOnDemand}},
		Marks: []XMark{{X: 168, Label: "asked: 7d (168 h)"}, {X: 15, Label: "deadline 15 h"}}}
	b.Reset()
	far.Write(&b)
	if s := b.String(); !strings.Contains(s, "Beyond the plans, not drawn: asked: 7d (168 h).") || strings.Contains(s, "<title>asked") || !strings.Contains(s, "<title>deadline 15 h") {
		t.Error("the far mark is drawn, or the near one is not")
	}
	// Linear where the range is narrow.
	lin := &ParetoChart{Title: "t", Points: []ParetoPoint{{X: 10, Y: 100, Kind: KindSpot}, {X: 50, Y: 300, Kind: KindOnDemand}}}
	b.Reset()
	lin.Write(&b)
	if strings.Contains(b.String(), "log scale") {
		t.Error("a 5× range got a log axis")
	}
}

// TestParetoLabelsDoNotOverlap: the text boxes placed in a crowded chart
// never overlap (dropped rather than drawn over).
func TestParetoLabelsDoNotOverlap(t *testing.T) {
	c := &ParetoChart{Title: "crowded", Marks: []XMark{{X: 30, Label: "asked"}}}
	for i := range 60 {
		c.Points = append(c.Points, ParetoPoint{X: 10 + float64(i), Y: 1000 - 10*float64(i), Kind: paretoKinds[i%4], Label: "#" + strings.Repeat("x", 12)})
	}
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	// Label backgrounds are the only rects with fill-opacity 0.8.
	var boxes []Box
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "<rect") && strings.Contains(line, `fill-opacity="0.8"`) {
			var x, y, w, h float64
			if _, err := fmtSscanRect(line, &x, &y, &w, &h); err != nil {
				t.Fatal(err)
			}
			boxes = append(boxes, Box{x, y, x + w, y + h})
		}
	}
	if len(boxes) == 0 {
		t.Fatal("no labels placed")
	}
	for i := range boxes {
		for j := range i {
			if boxes[i].overlaps(boxes[j]) {
				t.Errorf("labels %d and %d overlap: %v %v", i, j, boxes[i], boxes[j])
			}
		}
	}
}

func fmtSscanRect(line string, x, y, w, h *float64) (int, error) {
	var n int
	for _, f := range []struct {
		key string
		v   *float64
	}{{`x="`, x}, {`y="`, y}, {`width="`, w}, {`height="`, h}} {
		i := strings.Index(line, " "+f.key)
		if i < 0 {
			continue
		}
		rest := line[i+len(f.key)+1:]
		v, err := strconv.ParseFloat(rest[:strings.Index(rest, `"`)], 64)
		if err != nil {
			return n, err
		}
		*f.v = v
		n++
	}
	return n, nil
}

func breakdownSample() *BreakdownChart {
	return &BreakdownChart{Title: "What makes up the cost of the top plans?", XLabel: "cost (USD)",
		Rows: []BreakdownRow{
			{Label: "#1 aws p5.48xlarge, spot", Parts: []Part{{"usage", 300}, {"egress", 28.87}, {"credit", -50}}},
			{Label: "#2 gcp a3-highgpu-8g, 1y commitment", Parts: []Part{{"upfront", 1200}, {"commitment", 400}, {"storage", 35}}},
			{Label: "#3 vast 8x-H100, on-demand", Parts: []Part{{"usage", 444.54}}},
		},
		Caption: "Prices: test-source (2026-07-09)."}
}

func dotSample() *DotPlot {
	return &DotPlot{Title: "What do the top plans cost, and how long do they take?",
		Columns: []DotColumn{{Label: "total cost (USD)"}, {Label: "hours to finish"}},
		Rows: []DotRow{
			{Label: "#1 aws p5.48xlarge, spot", Values: []float64{278.87, 29.8}, Mark: true},
			{Label: "#2 nebius gpu-b200-sxm_8gpu-160vcpu-1792gb, spot", Values: []float64{299.06, 12.9}},
			{Label: "#3 vast 8x-H100, on-demand", Values: []float64{444.54, math.NaN()}},
		},
		Caption: "Every top plan's cost is compute usage only, so it is not split."}
}

// TestBreakdownChartsEmptyAndOdd: no rows, no points, one point render a
// valid, readable document.
func TestBreakdownChartsEmptyAndOdd(t *testing.T) {
	for name, c := range map[string]interface{ Write(io.Writer) error }{
		"empty pareto":    &ParetoChart{Title: "t"},
		"one point":       &ParetoChart{Title: "t", Points: []ParetoPoint{{X: 5, Y: 5, Kind: KindSpot, Recommended: true, Label: "a"}}},
		"zero upfront":    &ParetoChart{Title: "t", Points: []ParetoPoint{{X: 0, Y: 5}, {X: 0, Y: 500}}},
		"empty breakdown": &BreakdownChart{Title: "t"},
		"credit only":     &BreakdownChart{Title: "t", Rows: []BreakdownRow{{Label: "a", Parts: []Part{{"credit", -5}}}}},
		"empty dots":      &DotPlot{Title: "t"},
		"dots, no values": &DotPlot{Title: "t", Columns: []DotColumn{{Label: "a"}}, Rows: []DotRow{{Label: "x"}}},
	} {
		var b bytes.Buffer
		if err := c.Write(&b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := xml.Unmarshal(b.Bytes(), new(struct{})); err != nil {
			t.Errorf("%s: not valid XML: %v", name, err)
		}
		if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
			t.Errorf("%s: NaN or Inf in the SVG", name)
		}
		rendertest.CheckReadable(t, name, b.Bytes())
	}
}
