package render

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// The two words of a text table for a value it does not show. Every listing
// uses these and nothing else: "?" when no source gives the value, "-" when
// it does not apply (FP8 on a V100, spot on a provider that sells none).
const (
	Unknown    = "?"
	NotApplied = "-"
)

// LegendNote explains Unknown and NotApplied under a table.
const LegendNote = "? = unknown: no source gives it; - = does not apply."

// MaxDecimals is the most decimals a text table shows in a number column;
// CSV and JSON keep every digit.
const MaxDecimals = 4

// Width bounds: a terminal narrower than MinWidth or wider than MaxWidth is
// taken as that bound.
const (
	MinWidth = 40
	MaxWidth = 1000
)

// legend is LegendNote when a shown cell of a table that asks for it
// (Table.Legend) is Unknown or NotApplied, else nothing.
func (t *Table) legend() []string {
	if !t.Legend {
		return nil
	}
	for _, r := range t.Rows {
		for _, v := range r {
			if v == Unknown || v == NotApplied {
				return []string{LegendNote}
			}
		}
	}
	return nil
}

// fitNote names the columns Fit left out, and --wide, under the table.
func (t *Table) fitNote() []string {
	if len(t.left) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("Left out to fit %d columns: %s; --wide shows them.", t.fitWidth, strings.Join(t.left, ", "))}
}

// notes are the notes the text and Markdown tables write: the table's own,
// the legend and what Fit left out.
func (t *Table) notes() []string {
	return slices.Concat(t.Notes, t.legend(), t.fitNote())
}

// HideEmpty drops the columns whose every cell is empty or NotApplied: they
// say nothing. A table without rows keeps its columns.
func (t *Table) HideEmpty() {
	if len(t.Rows) == 0 {
		return
	}
	t.KeepColumns(func(j int, _ Column) bool {
		for _, r := range t.Rows {
			if v := strings.TrimSpace(r[j]); v != "" && v != NotApplied {
				return true
			}
		}
		return false
	})
}

// Fit makes the text table at most width display cells wide: it hides empty
// columns, writes the columns' short headers, then drops the columns that
// may be dropped (the highest Drop first) while the widest row is still too
// wide, and wraps the notes at width. One note names the columns left out
// and says that --wide shows them. A table that cannot shrink further stays
// wider than width; width 0 only hides empty columns. Fit may be called
// again after changing columns' Drop or Prose: the note names every column
// left out.
func (t *Table) Fit(width int) {
	t.HideEmpty()
	if width <= 0 {
		return
	}
	width = min(max(width, MinWidth), MaxWidth)
	t.Wrap = width
	t.alignDecimals(true)
	if t.Width() <= width {
		return
	}
	full := make([]string, len(t.Columns)) // the headers the note names
	for j := range t.Columns {
		full[j] = t.Columns[j].Header
		if t.Columns[j].Short != "" {
			t.Columns[j].Header = t.Columns[j].Short
		}
	}
	// Prose columns count at a readable minimum while columns are dropped,
	// then share what is left of the width.
	for j := range t.Columns {
		if t.Columns[j].Prose {
			t.Columns[j].wrapAt = min(t.naturalWidth(j), max(proseMin, displayWidth(t.Columns[j].Header)))
		}
	}
	for t.Width() > width {
		worst := -1
		for j, c := range t.Columns {
			if c.Drop > 0 && (worst < 0 || c.Drop > t.Columns[worst].Drop) {
				worst = j
			}
		}
		if worst < 0 {
			break
		}
		t.left = append(t.left, full[worst])
		full = slices.Delete(full, worst, worst+1)
		t.KeepColumns(func(j int, _ Column) bool { return j != worst })
	}
	for spare := width - t.Width(); spare > 0; {
		grew := false
		for j := range t.Columns {
			if c := &t.Columns[j]; spare > 0 && c.wrapAt > 0 && c.wrapAt < t.naturalWidth(j) {
				c.wrapAt++
				spare--
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	t.fitWidth = width
}

// KeepColumns keeps the columns keep says yes to, in every row.
func (t *Table) KeepColumns(keep func(int, Column) bool) {
	yes := make([]bool, len(t.Columns))
	var cols []Column
	for j, c := range t.Columns {
		if yes[j] = keep(j, c); yes[j] {
			cols = append(cols, c)
		}
	}
	for i, r := range t.Rows {
		var row []string
		for j, v := range r {
			if j < len(yes) && yes[j] {
				row = append(row, v)
			}
		}
		t.Rows[i] = row
	}
	t.Columns = cols
}

// proseMin is the narrowest Fit makes a Prose column.
const proseMin = 20

// naturalWidth is column j's width unwrapped: its widest cell or header.
func (t *Table) naturalWidth(j int) int {
	m := displayWidth(t.Columns[j].Header)
	for _, r := range t.Rows {
		if j < len(r) {
			m = max(m, displayWidth(r[j]))
		}
	}
	return m
}

// colWidth is column j's width in the text table: a wrapped Prose column
// is as wide as Fit made it (never narrower than its header).
func (t *Table) colWidth(j int) int {
	n := t.naturalWidth(j)
	if c := t.Columns[j]; c.Prose && c.wrapAt > 0 {
		return min(n, max(c.wrapAt, displayWidth(c.Header)))
	}
	return n
}

// Width is the display width of the text table's widest row: each
// column as wide as colWidth, two spaces between columns.
func (t *Table) Width() int {
	w := 2 * (len(t.Columns) - 1)
	for j := range t.Columns {
		w += t.colWidth(j)
	}
	return w
}

// rowLines splits a row into the lines its wrapped Prose cells need.
func (t *Table) rowLines(r []string) [][]string {
	cells := make([][]string, len(r))
	height := 1
	for j, v := range r {
		cells[j] = []string{v}
		if j < len(t.Columns) && t.Columns[j].Prose && t.Columns[j].wrapAt > 0 {
			cells[j] = wrapCell(v, t.colWidth(j))
		}
		height = max(height, len(cells[j]))
	}
	out := make([][]string, height)
	for i := range out {
		out[i] = make([]string, len(r))
		for j := range r {
			if i < len(cells[j]) {
				out[i][j] = cells[j][i]
			}
		}
	}
	return out
}

// wrapCell breaks a cell into lines of at most width display cells, at
// spaces where it can and inside a word (a URL, an instance name) longer
// than a line, after its last separator (- _ / . , ;) that fits.
func wrapCell(s string, width int) []string {
	if width <= 0 || displayWidth(s) <= width {
		return []string{s}
	}
	var words []string
	for _, w := range strings.Fields(s) {
		for displayWidth(w) > width {
			cut, n := 0, 0
			for i, r := range w {
				rw := displayWidth(string(r))
				if n+rw > width {
					break
				}
				n += rw
				cut = i + len(string(r))
			}
			if cut == 0 { // a character wider than the line
				_, size := utf8.DecodeRuneInString(w)
				cut = size
			}
			// Break after a separator where there is one: gpu-h100-sxm_ / 8gpu.
			if i := strings.LastIndexAny(w[:cut], "-_/.,;"); i > 0 {
				cut = i + 1
			}
			words = append(words, w[:cut])
			w = w[cut:]
		}
		if w != "" {
			words = append(words, w)
		}
	}
	var out []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case displayWidth(line)+1+displayWidth(w) <= width:
			line += " " + w
		default:
			out = append(out, line)
			line = w
		}
	}
	return append(out, line)
}

// decimalCell reads a number cell of a text table: sign and digits (with
// thousands separators), its decimals, a mark after it ("%", "*", " +?",
// repeated), then only the spaces alignDecimals pads marks with; ok is
// false for any other cell. It reads what the expression
// ^([-+]?[0-9][0-9,]*)(?:\.([0-9]+))?((?:%|\*| \+\?)*)( *)$ matches
// (FuzzDecimalCell holds it to that), without a regexp: every right-aligned
// cell of every table passes here twice.
func decimalCell(s string) (num, frac, mark string, ok bool) {
	digit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	if !digit(i) {
		return "", "", "", false
	}
	for i < len(s) && (digit(i) || s[i] == ',') {
		i++
	}
	num = s[:i]
	if i < len(s) && s[i] == '.' && digit(i+1) {
		j := i + 1
		for digit(j) {
			j++
		}
		frac, i = s[i+1:j], j
	}
	m := i
	for i < len(s) {
		switch {
		case s[i] == '%' || s[i] == '*':
			i++
			continue
		case strings.HasPrefix(s[i:], " +?"):
			i += 3
			continue
		}
		break
	}
	mark = s[m:i]
	for ; i < len(s); i++ {
		if s[i] != ' ' {
			return "", "", "", false
		}
	}
	return num, frac, mark, true
}

// alignDecimals gives every number in a right-aligned column the same
// number of decimals (the column's Places, else the most any of its cells
// has, at most MaxDecimals),
// and pads a shorter mark after a number ("*" beside none) with spaces, so
// that the points line up. It pads with zeros; a cell with more than
// MaxDecimals is rounded, and a note says so (CSV and JSON keep the digits);
// a column with Places is rounded to them, with thousands separators, and
// no note (amounts of money shown to the cent).
// It changes nothing a second time. Without padMarks (Markdown, whose
// proportional fonts align nothing) marks stay as they are.
func (t *Table) alignDecimals(padMarks bool) {
	rounded := false
	for j, c := range t.Columns {
		if !c.Right || c.Mixed {
			continue
		}
		places, markW := -1, 0
		for _, r := range t.Rows {
			if j >= len(r) {
				continue
			}
			if _, frac, mark, ok := decimalCell(r[j]); ok {
				places = max(places, min(len(frac), MaxDecimals))
				if padMarks {
					markW = max(markW, displayWidth(mark))
				}
			}
		}
		fixed := c.Places > 0 // a fixed number of decimals, grouped: rounding it is no news
		if fixed {
			places = int(c.Places)
		}
		if places <= 0 && markW == 0 {
			continue
		}
		for _, r := range t.Rows {
			if j >= len(r) {
				continue
			}
			num, frac, mark, ok := decimalCell(r[j])
			if !ok {
				continue
			}
			if fixed && !strings.Contains(num, ",") {
				num = groupThousands(num)
			}
			switch {
			case len(frac) > places:
				d, err := decimal.NewFromString(strings.ReplaceAll(num, ",", "") + "." + frac)
				if err != nil {
					continue
				}
				whole, f, _ := strings.Cut(d.StringFixed(int32(places)), ".")
				if fixed || strings.Contains(num, ",") {
					whole = groupThousands(whole)
				}
				num = whole + "." + f
				rounded = rounded || !fixed
			case places > 0:
				num += "." + frac + strings.Repeat("0", places-len(frac))
			}
			r[j] = num + mark + strings.Repeat(" ", max(0, markW-displayWidth(mark)))
		}
	}
	if rounded {
		t.Notes = append(t.Notes, fmt.Sprintf("Numbers are shown with at most %d decimals; -o csv and -o json keep every digit.", MaxDecimals))
	}
}

// groupThousands writes an integer's digits in groups of three: 12,345.
func groupThousands(s string) string {
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		sign, s = s[:1], s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// FitWidth is the width the last Fit fitted the table to (0: none).
func (t *Table) FitWidth() int { return t.fitWidth }
