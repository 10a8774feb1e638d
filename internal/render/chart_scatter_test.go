package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/render/rendertest"
)

// scatterSample: three providers' H100 and H200 prices per GPU-hour against
// bf16 TFLOP/s, one measured (filled), the rest datasheet (hollow).
func scatterSample() *ScatterChart {
	return &ScatterChart{
		Title:  "Which offerings give the most bf16 TFLOP/s per dollar-hour?",
		XLabel: "price per GPU-hour (USD)", YLabel: "bf16 TFLOP/s per GPU",
		Series: []string{"aws", "lambda", "vast"},
		Points: []ScatterPoint{
			{X: 7.912, Y: 671.2, Series: 0, Label: "H200 (aws)", Tip: "aws p5en.48xlarge: 7.912 USD/GPU-h, 671.2 TFLOP/s measured"},
			{X: 6.88, Y: 989, Series: 0, Hollow: true, Tip: "aws p5.48xlarge"},
			{X: 2.99, Y: 989, Series: 1, Hollow: true, Label: "H100 (lambda)", Tip: "lambda gpu_8x_h100"},
			{X: 1.87, Y: 989, Series: 2, Hollow: true, Label: "H100 (vast)", Tip: "vast 8x-H100"},
			{X: 1.29, Y: 312, Series: 1, Hollow: true, Label: "A100 (lambda)", Tip: "lambda gpu_1x_a100"},
		},
		FilledName: "measured (sustained, uploaded bench report)", HollowName: "datasheet (dense bf16)",
		Caption: "Prices: test figures (2026-07-20).",
	}
}

func TestScatterChartGolden(t *testing.T) {
	var b bytes.Buffer
	if err := scatterSample().Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "scatter.svg")
	if updating() {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/render -run TestScatterChartGolden -update)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("scatter.svg differs from the golden file; refresh with -update and read the diff")
	}
	rendertest.CheckReadable(t, "scatter.svg", b.Bytes())
}

// Both kinds of figure are named in the legend; measured points are filled
// with their series' colour, datasheet points hollow (white) in it.
func TestScatterChartSaysWhichFiguresAreMeasured(t *testing.T) {
	var b bytes.Buffer
	if err := scatterSample().Write(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{">measured (sustained, uploaded bench report)</text>", ">datasheet (dense bf16)</text>", ">H200 (aws)</text>", ">A100 (lambda)</text>",
		`fill="#0072B2" stroke="#0072B2" stroke-width="1.5"><title>aws p5en.48xlarge: 7.912 USD/GPU-h, 671.2 TFLOP/s measured</title><circle r="9"`, `fill="white" stroke="#D55E00" stroke-width="1.5"><title>lambda gpu_8x_h100`} {
		if !strings.Contains(s, want) {
			t.Errorf("the chart lacks %s", want)
		}
	}
	// A chart of datasheet figures only still says what they are.
	c := scatterSample()
	for i := range c.Points {
		c.Points[i].Hollow = true
	}
	b.Reset()
	c.Write(&b)
	if !strings.Contains(b.String(), ">datasheet (dense bf16)</text>") {
		t.Errorf("an all-datasheet chart does not say so")
	}
}
