package render

import (
	"strings"
	"testing"
)

// wrapLine breaks at spaces within the width, indents continuations under
// their line, and leaves a line that fits (or a lone long word) whole.
func TestWrapLine(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"short line", 20, []string{"short line"}},
		{"    one two three four", 14, []string{"    one two", "      three", "      four"}},
		{"a verylongwordthatdoesnotfit b", 10, []string{"a", "  verylongwordthatdoesnotfit", "  b"}},
		{"no wrap at zero width even if long", 0, []string{"no wrap at zero width even if long"}},
		{"华东1 华东1 华东1", 11, []string{"华东1 华东1", "  华东1"}}, // 华东1 is 5 cells wide: two fit in 11
	}
	for _, tt := range tests {
		got := wrapLine(tt.in, tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrapLine(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}
