// Package render writes gpuscout's listings as an aligned text table, CSV,
// Markdown or JSON, and draws its charts as SVG. Commands build one Table
// (and one JSON value) and let the chosen format decide the rest. What a
// plan report says, and in which order, is package report's.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/width"
)

// Format is an output format.
type Format string

// The output formats every listing accepts.
const (
	FormatTable    Format = "table"
	FormatJSON     Format = "json"
	FormatCSV      Format = "csv"
	FormatMarkdown Format = "markdown"
)

// Formats lists the accepted format names.
var Formats = []string{string(FormatTable), string(FormatJSON), string(FormatCSV), string(FormatMarkdown)}

// ParseFormat checks a -o value.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "table", "text":
		return FormatTable, nil
	case "json":
		return FormatJSON, nil
	case "csv":
		return FormatCSV, nil
	case "markdown", "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("output format %q is not one of %s", s, strings.Join(Formats, ", "))
}

// Column is a table column.
type Column struct {
	Header string
	Right  bool // right-align: a column of numbers (CSV writes them raw)
	// Short is the header written when Fit has to narrow the table ("" keeps Header).
	Short string
	// Drop is the order in which Fit leaves the column out of a table too
	// wide for the terminal: the highest first; 0 never.
	Drop int
	// Prose marks a column of long text (a licence, a billing rule): Fit
	// wraps its cells at word boundaries rather than widen the table.
	Prose bool
	// Mixed marks a right-aligned column whose rows hold different quantities
	// (a benchmark's TFLOP/s beside its GB/s, times from ns to s): each cell
	// keeps its own significant digits instead of the column's decimals.
	Mixed bool
	// Places, where above 0, is the decimals the text and Markdown tables
	// show in the column (amounts of money: 2), with thousands separators;
	// its cells carry every digit, which CSV writes. 0: as many as the
	// column's cells have, at most MaxDecimals.
	Places int32
	// Keep marks a column Fit never leaves out to narrow the table, whatever
	// its Drop; only a column that says nothing still goes (see Fit).
	// Columns headed REGION, QTY, ×N or PRICED are kept without it: where,
	// how many and how old a price is are what a narrow table still answers.
	Keep bool
	// MinWrap is the narrowest Fit wraps a Prose column to before it leaves
	// any column out (0: proseMin, a readable line). A column is never
	// narrower than its longest word: Fit wraps prose, never a name.
	MinWrap int
	// Under marks a column of long names (URLs, file paths): when the table
	// is too wide to hold it, Fit writes each of its cells whole on a line of
	// its own under the row, where it may run past the width, rather than
	// split it or leave the column out.
	Under  bool
	wrapAt int  // the width Fit gave a Prose column (0: its widest cell)
	under  bool // Fit moved the column under its rows
}

// Table is a listing: columns, rows of cells, and notes printed under it
// (footnotes for table and Markdown; CSV carries none).
type Table struct {
	Columns []Column
	Rows    [][]string
	Notes   []string
	// Currency of the table's amounts; CSV writes it in a column of its own.
	Currency string
	// Wrap, when above 0, wraps the text format's notes at that many columns
	// on word boundaries (continuation lines indented under their note).
	Wrap int
	// Legend adds LegendNote under the text and Markdown table when a cell
	// it shows is Unknown or NotApplied.
	Legend bool

	left     []string // the headers of the columns Fit left out
	fitWidth int      // the width Fit fitted the table to
}

// Options tune the text table.
type Options struct {
	Color bool // bold headers (only on a terminal, never with NO_COLOR)
}

// Write renders t in format f. JSON is not a table format: use JSON.
func (t *Table) Write(w io.Writer, f Format, opt Options) error {
	switch f {
	case FormatCSV:
		return t.writeCSV(w)
	case FormatMarkdown:
		return t.writeMarkdown(w)
	case FormatTable:
		return t.writeText(w, opt)
	}
	return fmt.Errorf("render: table cannot be written as %q", f)
}

func (t *Table) writeMarkdown(w io.Writer) error {
	t.alignDecimals(false)
	var b strings.Builder
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("|")
	for _, c := range t.Columns {
		b.WriteString(" " + esc(c.Header) + " |")
	}
	b.WriteString("\n|")
	for _, c := range t.Columns {
		if c.Right {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, cell := range r {
			b.WriteString(" " + esc(strings.TrimRight(cell, " ")) + " |")
		}
		b.WriteString("\n")
	}
	notes := t.notes()
	if len(notes) > 0 {
		b.WriteString("\n")
		for i, n := range notes {
			// Indented notes are details of the note above: a list in Markdown.
			if strings.HasPrefix(n, "    ") {
				b.WriteString("- " + strings.TrimSpace(n) + "\n")
				if i+1 == len(notes) || !strings.HasPrefix(notes[i+1], "    ") {
					b.WriteString("\n")
				}
				continue
			}
			b.WriteString(n + "\n\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DisplayWidth is how many terminal cells s takes: East Asian wide
// characters (华东1) count two. Tests of what tables print measure lines
// with it.
func DisplayWidth(s string) int { return displayWidth(s) }

// displayWidth counts East Asian wide characters (华东1) as two cells.
func displayWidth(s string) int {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii { // one column a byte: most cells, without a table lookup per rune
		return len(s)
	}
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

func (t *Table) writeText(w io.Writer, opt Options) error {
	t.alignDecimals(true)
	widths := make([]int, len(t.Columns))
	last := -1 // the last column of the grid
	for i, c := range t.Columns {
		widths[i] = t.colWidth(i)
		if !c.under {
			last = i
		}
	}
	var b strings.Builder
	long := 0 // lines past the width to keep a word (a URL) whole: said once
	over := func(s string) {
		if t.Wrap > 0 && displayWidth(s) > t.Wrap {
			long++
		}
	}
	line := func(cells []string, bold bool) string {
		var l strings.Builder
		for i, cell := range cells {
			if i >= len(widths) {
				break
			}
			if t.Columns[i].under {
				continue
			}
			pad := strings.Repeat(" ", max(0, widths[i]-displayWidth(cell)))
			if t.Columns[i].Right {
				l.WriteString(pad + cell)
			} else if i < last {
				l.WriteString(cell + pad)
			} else {
				l.WriteString(cell)
			}
			if i < last {
				l.WriteString("  ")
			}
		}
		s := strings.TrimRight(l.String(), " ")
		if bold {
			b.WriteString("\x1b[1m" + s + "\x1b[0m\n")
		} else {
			b.WriteString(s + "\n")
		}
		return s
	}
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Header
	}
	if len(t.Rows) > 0 { // an empty listing is its notes: no header over nothing
		line(head, opt.Color)
	}
	fits := t.Width() <= t.Wrap // else a note says how wide the table is
	for _, r := range t.Rows {
		for _, cells := range t.rowLines(r) {
			if l := line(cells, false); fits {
				over(l)
			}
		}
		for j, v := range r {
			if v = strings.TrimSpace(v); j < len(t.Columns) && t.Columns[j].under && v != "" && v != NotApplied {
				b.WriteString("  " + v + "\n")
				over("  " + v)
			}
		}
	}
	for _, n := range t.notes() {
		for _, l := range wrapLine(n, t.Wrap) {
			b.WriteString(l + "\n")
			over(l)
		}
	}
	if long > 0 && t.fitWidth > 0 { // a table Fit fitted: others keep their lines as they come
		for _, l := range wrapLine(fmt.Sprintf("%d %s past %d columns to keep a URL or name whole, so that it can be copied.", long, map[bool]string{true: "line runs", false: "lines run"}[long == 1], t.Wrap), t.Wrap) {
			b.WriteString(l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON writes v as indented JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
