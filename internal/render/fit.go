package render

import (
	"fmt"
	"slices"
	"strings"

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

// fitNote says what Fit did that a reader must know: the columns written
// under their rows, and the columns left out (with --wide), or that the
// table is still wider than the width when nothing more could go.
func (t *Table) fitNote() []string {
	var out []string
	var under []string
	for _, c := range t.Columns {
		if c.under {
			under = append(under, c.Header)
		}
	}
	if len(under) > 0 {
		out = append(out, fmt.Sprintf("%s: under each row, whole, on a line of its own.", strings.Join(under, ", ")))
	}
	switch w := t.Width(); {
	case t.fitWidth > 0 && w > t.fitWidth:
		s := fmt.Sprintf("The table is %d columns wide, more than %d: no name is split, and no other column may go.", w, t.fitWidth)
		if len(t.left) > 0 {
			s += fmt.Sprintf(" Left out: %s; --wide shows them.", strings.Join(t.left, ", "))
		}
		out = append(out, s)
	case len(t.left) > 0:
		out = append(out, fmt.Sprintf("Left out to fit %d columns: %s; --wide shows them.", t.fitWidth, strings.Join(t.left, ", ")))
	}
	return out
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

// keepHeaders head the columns that say where a row is, how many of it
// there are and how old its price is: Fit keeps them (see Column.Keep).
var keepHeaders = []string{"REGION", "QTY", "×N", "PRICED"}

// kept reports whether Fit may not leave the column out to narrow a table.
func (c Column) kept() bool { return c.Keep || slices.Contains(keepHeaders, c.Header) }

// saysNothing reports whether a cell carries no information: empty,
// NotApplied, Unknown, or a number that is zero (0, 0.00, 0.0%).
func saysNothing(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || v == NotApplied || v == Unknown {
		return true
	}
	num, frac, mark, ok := decimalCell(v)
	return ok && !strings.Contains(mark, "?") && strings.Trim(num, "+-0,") == "" && strings.Trim(frac, "0") == ""
}

// silent is why column j says nothing ("? in every row"), or "" when a
// cell of it says something.
func (t *Table) silent(j int) string {
	if len(t.Rows) == 0 {
		return ""
	}
	var seen []string
	for _, r := range t.Rows {
		if j >= len(r) || !saysNothing(r[j]) {
			return ""
		}
		if v := strings.TrimSpace(r[j]); v != "" && !slices.Contains(seen, v) {
			seen = append(seen, v)
		}
	}
	if len(seen) == 0 {
		return "empty in every row"
	}
	return strings.Join(seen, " or ") + " in every row"
}

// Fit makes the text table at most width display cells wide, one rule for
// every listing. It hides empty columns; if the table is still too wide it
// writes the columns' short headers and then, only as far as the width
// needs:
//
//  1. leaves out the columns that say nothing (every cell "", "-", "?" or a
//     zero such as 0.00 or 0.0%), the note saying so;
//  2. wraps Prose columns at spaces, as narrow as their MinWrap (a readable
//     proseMin by default);
//  3. writes Under columns (URLs) under their rows, whole;
//  4. leaves out the columns that may go (Drop above 0), the highest Drop
//     first, but never a Keep column (REGION, QTY, ×N, PRICED);
//  5. wraps Prose columns as narrow as their longest word;
//
// then puts back, most important first, what it left out in step 4 that
// fits again, and gives Prose columns what is left of the width. A word (an
// instance name, a region, a URL) is never split: a column is never
// narrower than its longest word, except the last, where a word longer than
// half the width (a URL) has a line of its own and runs past the width. A table that still cannot fit
// stays wider than width and a note says so once, with its width. The notes
// are wrapped at width; one names the columns left out and says that --wide
// shows them. Width 0 only hides empty columns. Fit may be called again
// after changing columns: the note names every column left out.
func (t *Table) Fit(width int) {
	t.HideEmpty()
	if width <= 0 {
		return
	}
	width = min(max(width, MinWidth), MaxWidth)
	t.Wrap = width
	t.fitWidth = width
	t.alignDecimals(true)
	if t.Width() <= width {
		return
	}
	n := len(t.Columns)
	full := make([]string, n) // the headers the note names
	keep := make([]bool, n)
	word := make([]int, n) // the widest word of each column
	shown := make([]bool, n)
	for j := range t.Columns {
		c := &t.Columns[j]
		full[j], keep[j], shown[j] = c.Header, c.kept(), true
		if c.Short != "" {
			c.Header = c.Short
		}
		word[j] = t.widestWord(j, 0)
	}
	// wrap is how narrow Prose columns may be: 0 unwrapped, 1 readable, 2
	// their words. measure wraps them so and is the width of what is shown.
	wrap := 0
	measure := func() int {
		last := -1 // the last column of the grid may let a long word run past
		for j, c := range t.Columns {
			if shown[j] && !c.under {
				last = j
			}
		}
		for j := range t.Columns {
			c := &t.Columns[j]
			if !c.Prose {
				continue
			}
			floor := word[j]
			if j == last {
				floor = max(t.widestWord(j, width/2), 1)
			}
			switch least := c.MinWrap; {
			case wrap == 0:
				c.wrapAt = 0
			case wrap == 1:
				if least <= 0 {
					least = proseMin
				}
				c.wrapAt = max(floor, min(t.naturalWidth(j), max(least, displayWidth(c.Header))))
			default:
				c.wrapAt = floor
			}
		}
		return t.shownWidth(shown)
	}
	// pick is the shown column ok allows with the highest Drop, the
	// rightmost of equals; -1 when none.
	pick := func(ok func(j int) bool) int {
		best := -1
		for j := n - 1; j >= 0; j-- {
			if shown[j] && !t.Columns[j].under && ok(j) && (best < 0 || t.Columns[j].Drop > t.Columns[best].Drop) {
				best = j
			}
		}
		return best
	}
	var left []string
	// 1. Columns that say nothing go first.
	for measure() > width {
		j := pick(func(j int) bool { return t.silent(j) != "" })
		if j < 0 {
			break
		}
		shown[j] = false
		left = append(left, full[j]+" ("+t.silent(j)+")")
	}
	// 2. Prose wraps at a readable width.
	if measure() > width {
		wrap = 1
	}
	// 3. Long names go under their rows, whole.
	if measure() > width {
		for j := range t.Columns {
			if t.Columns[j].Under && shown[j] {
				t.Columns[j].under = true
			}
		}
	}
	// 4. What may go goes, the highest Drop first.
	var dropped []int
	for measure() > width {
		j := pick(func(j int) bool { return t.Columns[j].Drop > 0 && !keep[j] })
		if j < 0 {
			break
		}
		shown[j] = false
		dropped = append(dropped, j)
	}
	// 5. Prose as narrow as its words.
	if measure() > width {
		wrap = 2
	}
	// Put back what fits again, the last to go (the most important) first.
	for i := len(dropped) - 1; i >= 0; i-- {
		if shown[dropped[i]] = true; measure() > width {
			shown[dropped[i]] = false
		}
	}
	for _, j := range dropped {
		if !shown[j] {
			left = append(left, full[j])
		}
	}
	// Prose gets what is left of the width, and keeps of it what its lines
	// use (a word running past the last column aside).
	for spare := width - measure(); spare > 0; {
		grew := false
		for j := range t.Columns {
			if c := &t.Columns[j]; shown[j] && !c.under && spare > 0 && c.wrapAt > 0 && c.wrapAt < t.naturalWidth(j) {
				c.wrapAt++
				spare--
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	for j := range t.Columns {
		if c := &t.Columns[j]; c.wrapAt > 0 && c.wrapAt < t.naturalWidth(j) {
			used := 0
			for _, r := range t.Rows {
				for _, l := range wrapCell(r[j], c.wrapAt) {
					if w := displayWidth(l); w <= c.wrapAt {
						used = max(used, w)
					}
				}
			}
			c.wrapAt = max(used, 1)
		}
	}
	t.left = append(t.left, left...)
	t.KeepColumns(func(j int, _ Column) bool { return shown[j] })
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

// widestWord is the display width of the widest word (run of non-spaces)
// in column j's cells, of those at most most cells wide (0: any): the
// narrowest the column can wrap to.
func (t *Table) widestWord(j, most int) int {
	m := 0
	for _, r := range t.Rows {
		if j < len(r) {
			for _, w := range strings.Fields(r[j]) {
				if dw := displayWidth(w); most <= 0 || dw <= most {
					m = max(m, dw)
				}
			}
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
// column as wide as colWidth, two spaces between columns; a column written
// under its rows does not count.
func (t *Table) Width() int { return t.shownWidth(nil) }

// shownWidth is Width with only the columns shown says yes to (nil: all).
func (t *Table) shownWidth(shown []bool) int {
	w, cols := 0, 0
	for j, c := range t.Columns {
		if c.under || (shown != nil && !shown[j]) {
			continue
		}
		w += t.colWidth(j)
		cols++
	}
	return w + 2*max(cols-1, 0)
}

// rowLines splits a row into the lines its wrapped Prose cells need; the
// cells of a column written under the row are left empty.
func (t *Table) rowLines(r []string) [][]string {
	cells := make([][]string, len(r))
	height := 1
	for j, v := range r {
		cells[j] = []string{v}
		if j < len(t.Columns) && t.Columns[j].under {
			cells[j] = []string{""} // written under the row
		} else if j < len(t.Columns) && t.Columns[j].Prose && t.Columns[j].wrapAt > 0 {
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
// spaces only: a word (an instance name, a URL) is never split, and one
// wider than the line has a line of its own.
func wrapCell(s string, width int) []string {
	if width <= 0 || displayWidth(s) <= width {
		return []string{s}
	}
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
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

// Clone is a copy of the table that Fit can narrow without changing t: to
// see what a width would leave out before choosing how to write cells.
func (t *Table) Clone() *Table {
	c := *t
	c.Columns = slices.Clone(t.Columns)
	c.Rows = make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		c.Rows[i] = slices.Clone(r)
	}
	c.Notes = slices.Clone(t.Notes)
	c.left = slices.Clone(t.left)
	return &c
}
