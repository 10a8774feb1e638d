// Package rendertest checks, in tests, what every chart render draws
// promises, wherever the chart is made (render's own charts, a report's).
package rendertest

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
)

var (
	viewBoxRe  = regexp.MustCompile(`viewBox="0 0 ([0-9.]+) [0-9.]+"`)
	fontSizeRe = regexp.MustCompile(`font-size="([0-9.]+)"`)
)

// CheckReadable asserts what every chart promises: it scales with its
// container (width 100% over a viewBox) and no text is smaller than 11 px
// when the chart is shown 400 px wide.
func CheckReadable(t testing.TB, name string, svg []byte) {
	t.Helper()
	m := viewBoxRe.FindSubmatch(svg)
	if m == nil || !bytes.Contains(svg, []byte(`width="100%"`)) {
		t.Fatalf("%s: no viewBox or width 100%%", name)
	}
	vw, _ := strconv.ParseFloat(string(m[1]), 64)
	for _, f := range fontSizeRe.FindAllSubmatch(svg, -1) {
		size, _ := strconv.ParseFloat(string(f[1]), 64)
		if px := size * 400 / vw; px < 11 {
			t.Errorf("%s: font-size %g is %.1f px at 400 px wide, want ≥ 11", name, size, px)
		}
	}
}
