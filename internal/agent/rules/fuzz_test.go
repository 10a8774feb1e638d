package rules

import (
	"strings"
	"testing"
	"time"
)

// A matcher string either parses or is an error naming it; a parsed one
// matches without panicking.
func FuzzParseMatcher(f *testing.F) {
	for _, s := range []string{`gpu=0`, `gpu!=1`, `model=~H.*`, `model!~(`, `=x`, `a=~[`, `a!`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMatcher(s)
		if err != nil {
			if !strings.Contains(err.Error(), "matcher") && !strings.Contains(err.Error(), "label") && !strings.Contains(err.Error(), "regular expression") {
				t.Errorf("ParseMatcher(%q) error %q names neither the matcher, the label nor the expression", s, err)
			}
			return
		}
		m.matches(map[string]string{m.Label: s})
	})
}

// An annotation template is either refused or expands, within the size
// bound, without panicking, whatever the labels hold.
func FuzzAnnotation(f *testing.F) {
	for _, s := range []string{`{{ $labels.gpu }} at {{ $value | humanizePercentage }}`, `{{ printf "%q" $labels }}`, `{{ range $labels }}{{ . }}{{ end }}`, `{{ template "x" }}`, `{{`} {
		f.Add(s, "0")
	}
	f.Fuzz(func(t *testing.T, text, gpu string) {
		if CheckAnnotation(text) != nil {
			return
		}
		e, err := New([]Rule{{Name: "X", Metric: "m", Op: GE, Annotations: map[string]string{"s": text}}}, time.Second, nil)
		if err != nil {
			t.Fatalf("CheckAnnotation accepted %q but New refused it: %v", text, err)
		}
		got := e.Eval(t0, []Series{{Metric: "m", Labels: map[string]string{"gpu": gpu}, Value: 0.5}})
		if len(got) != 1 {
			t.Fatalf("%d alerts; want 1", len(got))
		}
		if n := len(got[0].Annotations["s"]); n > maxAnnotation+200 {
			t.Errorf("annotation of %d bytes; want at most about %d", n, maxAnnotation)
		}
	})
}
