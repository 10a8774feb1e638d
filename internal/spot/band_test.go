package spot

import (
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseBand(t *testing.T) {
	for in, want := range map[string][2]float64{"<5%": {0, 5}, "5-10%": {5, 10}, "10-15": {10, 15}, ">20%": {20, 100}, " 15-20% ": {15, 20}, "5%-10%": {5, 10}} {
		lo, hi, err := ParseBand(in)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("ParseBand(%q) = %v %v %v, want %v", in, lo, hi, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "10-5%", "<0%", ">100%", "5-", "-5", "NaN-5%", "<NaN", ">NaN", "0-Inf", "200%", "5-200%"} {
		if _, _, err := ParseBand(bad); err == nil || !strings.Contains(err.Error(), "want <5%") {
			t.Errorf("ParseBand(%q): %v, want a rejection listing the bands", bad, err)
		}
	}
}

// TestBandHazard: 10-15% a month is p = 0.125 at the midpoint, λ =
// −ln(0.875)/730 = 1.8292e-4/h; >20% takes the lower bound 0.2.
func TestBandHazard(t *testing.T) {
	for _, tc := range []struct {
		label string
		p     float64
		note  string
	}{{"10-15%", 0.125, "midpoint"}, {">20%", 0.2, "lower bound (optimistic: the band has no upper bound)"}, {"<5%", 0.025, "midpoint"}} {
		l, p, note, err := BandHazard(tc.label)
		if err != nil || p != tc.p || note != tc.note || math.Abs(l-(-math.Log(1-tc.p)/730)) > 1e-15 {
			t.Errorf("BandHazard(%q) = %v, %v, %q, %v", tc.label, l, p, note, err)
		}
	}
	if l, _, _, _ := BandHazard("10-15%"); math.Abs(l-1.8292e-4) > 1e-8 {
		t.Errorf("λ(10-15%%) = %v, want 1.8292e-4", l)
	}
}

// TestNoFeedImports keeps the layering: the spot package reads no feed.
func TestNoFeedImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if strings.Contains(im.Path.Value, "/internal/feeds") {
				t.Errorf("%s imports %s: spot must not depend on a feed", f, im.Path.Value)
			}
		}
	}
}

func FuzzParseBand(f *testing.F) {
	for _, s := range []string{"<5%", "5-10%", ">20%", "1e2-1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := ParseBand(s)
		if err == nil && !(lo >= 0 && lo < hi && hi <= 100) {
			t.Fatalf("ParseBand(%q) = %v..%v", s, lo, hi)
		}
	})
}
