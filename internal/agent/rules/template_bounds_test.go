package rules

import (
	"strings"
	"testing"
)

// An annotation whose expansion would run for days or allocate a gigabyte
// before the output limit sees it is refused when the rules are checked
// (the fuzzer found {{range 555555555555555}}); ordinary templates pass.
func TestAnnotationTemplatesBounded(t *testing.T) {
	for text, want := range map[string]string{
		`{{ range 555555555555555 }}{{ end }}`:              "range may go over a variable or field only",
		`{{ range len (printf "%d" 1) }}x{{ end }}`:         "range may go over a variable or field only",
		`{{ printf "%999999999d" 1 }}`:                      "a width or precision above 999",
		`{{ printf "%.12345f" $value }}`:                    "a width or precision above 999",
		`{{ printf "%*d" 999999999 1 }}`:                    "taken from an argument",
		`{{ if true }}{{ printf "%-99999s" "x" }}{{ end }}`: "a width or precision above 999",
		`{{ with $value }}{{ range 3 }}x{{ end }}{{ end }}`: "range may go over a variable or field only",
	} {
		if err := CheckAnnotation(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
	for _, text := range []string{
		`{{ $labels.gpu }} at {{ $value | humanizePercentage }}`,
		`{{ range $k, $v := $labels }}{{ $k }}={{ $v }} {{ end }}`,
		`{{ printf "%.2f %5s %-10q" $value "a" "b" }}`,
		`{{ range .Labels }}{{ . }}{{ end }}`,
	} {
		if err := CheckAnnotation(text); err != nil {
			t.Errorf("%s: %v, want it accepted", text, err)
		}
	}
}
