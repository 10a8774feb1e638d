package render

import "strings"

// TerminalWidth is the width advise's text output keeps to (--wide lifts it).
const TerminalWidth = 120

// wrapLine breaks s at spaces so that no line is wider than width display
// cells (0: no wrapping). Continuation lines keep s's indentation plus two
// spaces. A single word wider than the line stays whole.
func wrapLine(s string, width int) []string {
	if width <= 0 || displayWidth(s) <= width {
		return []string{s}
	}
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	cont := indent + "  "
	var out []string
	line := indent
	for _, w := range strings.Fields(s) {
		switch {
		case line == indent || line == cont:
			line += w
		case displayWidth(line)+1+displayWidth(w) <= width:
			line += " " + w
		default:
			out = append(out, line)
			line = cont + w
		}
	}
	return append(out, line)
}
