package cli

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gpuscout/gpuscout/internal/render"
)

// defaultWidth is the width of a text table when neither the terminal nor
// $COLUMNS says one.
const defaultWidth = 120

// columnsEnv reads $COLUMNS; tests point it elsewhere so that a developer's
// shell cannot change the golden files.
var columnsEnv = func() string { return os.Getenv("COLUMNS") }

// tableWidth is the one place that decides how wide a text table may be:
// the terminal's width when stdout is a terminal, else $COLUMNS when it is a
// whole number above 0, else 120; bounded to render.MinWidth..MaxWidth.
func tableWidth(stdout io.Writer, columns string) int {
	w := 0
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			w = cols
		}
	}
	if w == 0 {
		if n, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && n > 0 {
			w = n
		}
	}
	if w == 0 {
		w = defaultWidth
	}
	return min(max(w, render.MinWidth), render.MaxWidth)
}

// wideFlag registers --wide: text tables keep every column and long lines.
func wideFlag(cmd *cobra.Command) *bool {
	return cmd.Flags().Bool("wide", false, "show every column and do not wrap notes (text tables fit the terminal otherwise)")
}

// writeFitted writes a listing like write, after fitting a text table to the
// terminal (unless wide) and hiding a Markdown table's empty columns. JSON
// and CSV are never narrowed.
func (e *env) writeFitted(f render.Format, t *render.Table, jsonValue any, wide bool) error {
	switch {
	case f == render.FormatMarkdown:
		t.Fit(0)
	case f == render.FormatTable && !wide:
		t.Fit(tableWidth(e.stdout, columnsEnv()))
	}
	return e.write(f, t, jsonValue)
}
