package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func headers(t *Table) string {
	var h []string
	for _, c := range t.Columns {
		h = append(h, c.Header)
	}
	return strings.Join(h, ",")
}

func text(t *testing.T, tb *Table) string {
	t.Helper()
	var b bytes.Buffer
	if err := tb.Write(&b, FormatTable, Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Fit hides empty columns, writes short headers and drops the columns with
// the highest Drop first, only as many as the width needs; the note names
// them by their full header.
func TestFitPriorities(t *testing.T) {
	// Column widths: NAME 5, CITY 10, NOTES 30, EMPTY (hidden), PRICE 5.
	mk := func() *Table {
		return &Table{Columns: []Column{{Header: "NAME"}, {Header: "CITY", Drop: 1}, {Header: "NOTES", Short: "N", Drop: 2},
			{Header: "EMPTY", Drop: 3}, {Header: "PRICE", Right: true}},
			Rows: [][]string{{"alpha", "Hangzhou", "a note thirty characters long.", "-", "1"}, {"beta", "Wulanchabu", "short", "", "22"}}}
	}
	tests := []struct {
		width       int
		wantHeaders string
		wantNote    string
	}{
		{0, "NAME,CITY,NOTES,PRICE", ""},   // width 0: only empty columns go
		{200, "NAME,CITY,NOTES,PRICE", ""}, // 5+10+30+5 plus three gaps = 56
		{56, "NAME,CITY,NOTES,PRICE", ""},
		// One short: short headers, and NOTES (Drop 2) goes; CITY stays.
		{55, "NAME,CITY,PRICE", "Left out to fit 55 columns: NOTES; --wide shows them."},
		// Below MinWidth the table fits MinWidth.
		{10, "NAME,CITY,PRICE", "Left out to fit 40 columns: NOTES; --wide shows them."},
	}
	for _, tc := range tests {
		tb := mk()
		tb.Fit(tc.width)
		if got := headers(tb); got != tc.wantHeaders {
			t.Errorf("Fit(%d) headers = %s, want %s", tc.width, got, tc.wantHeaders)
		}
		note := strings.Join(tb.fitNote(), "")
		if note != tc.wantNote {
			t.Errorf("Fit(%d) note = %q, want %q", tc.width, note, tc.wantNote)
		}
	}
}

// Below what fits, the highest Drop goes first, then the next; columns with
// Drop 0 stay even when the table is still too wide.
func TestFitDropOrder(t *testing.T) {
	long := strings.Repeat("x", 30)
	tb := &Table{Columns: []Column{{Header: "KEEP"}, {Header: "SECOND", Drop: 1}, {Header: "FIRST", Short: "1ST", Drop: 2}, {Header: "ALSO"}},
		Rows: [][]string{{long, long, long, long}}}
	tb.Fit(70) // 4×30 + 6 = 126; without FIRST 94; without SECOND 62
	if got, want := headers(tb), "KEEP,ALSO"; got != want {
		t.Errorf("headers = %s, want %s", got, want)
	}
	if got, want := strings.Join(tb.fitNote(), ""), "Left out to fit 70 columns: FIRST, SECOND; --wide shows them."; got != want {
		t.Errorf("note = %q, want %q", got, want)
	}
	tb = &Table{Columns: []Column{{Header: "A"}, {Header: "B"}}, Rows: [][]string{{long, long}}}
	tb.Fit(40) // nothing may go: the table stays 62 wide, whole, and says so once
	want := []string{"The table is 62 columns wide, more than 40: no name is split, and no other column may go."}
	if got := headers(tb); got != "A,B" || strings.Join(tb.notes(), "|") != strings.Join(want, "|") {
		t.Errorf("undroppable table: headers %s, notes %q; want A,B and %q", got, tb.notes(), want)
	}
}

// A column is empty when every cell is "" or "-"; "?" is information (no
// source) and keeps it; a table without rows keeps its columns.
func TestHideEmpty(t *testing.T) {
	tb := &Table{Columns: []Column{{Header: "A"}, {Header: "DASH"}, {Header: "UNKNOWN"}, {Header: "BLANK"}},
		Rows: [][]string{{"x", "-", "?", ""}, {"y", "", "?", " "}}}
	tb.HideEmpty()
	if got, want := headers(tb), "A,UNKNOWN"; got != want {
		t.Errorf("headers = %s, want %s", got, want)
	}
	if got := strings.Join(tb.Rows[1], ","); got != "y,?" {
		t.Errorf("row = %s, want y,?", got)
	}
	empty := &Table{Columns: []Column{{Header: "A"}, {Header: "B"}}}
	empty.Fit(80)
	if got := headers(empty); got != "A,B" {
		t.Errorf("table without rows: headers %s, want A,B", got)
	}
}

// Every number of a right-aligned column gets the column's decimals (at
// most MaxDecimals; more are rounded, and a note says CSV and JSON keep
// them); marks after a number stay; other cells and left columns stay.
func TestAlignDecimals(t *testing.T) {
	tests := []struct {
		name  string
		right bool
		mixed bool
		in    []string
		want  []string
		note  bool
	}{
		{"offers USD/h", true, false, []string{"15.92", "21.9576", "27.197", "?", "-"}, []string{"15.9200", "21.9576", "27.1970", "?", "-"}, false},
		{"integers stay", true, false, []string{"8", "16", "?"}, []string{"8", "16", "?"}, false},
		{"mixed", true, false, []string{"14", "15.7"}, []string{"14.0", "15.7"}, false},
		{"thousands", true, false, []string{"1,234.5", "12.25"}, []string{"1,234.50", "12.25"}, false},
		{"marks", true, false, []string{"12.5%", "3%", "0.7270*", "1.5*"}, []string{"12.5000%", "3.0000%", "0.7270*", "1.5000*"}, false},
		// A number without the mark others have gets spaces in its place.
		{"mark padding", true, false, []string{"665.28 +?", "7", "1,337.28", "?"}, []string{"665.28 +?", "7.00   ", "1,337.28   ", "?"}, false},
		{"integers with a mark", true, false, []string{"7*", "12"}, []string{"7*", "12 "}, false},
		{"rounded", true, false, []string{"1,234.56789", "2.5"}, []string{"1,234.5679", "2.5000"}, true},
		{"rounding carries", true, false, []string{"999,999.99999", "1"}, []string{"1,000,000.0000", "1.0000"}, true},
		{"negative", true, false, []string{"-2.5", "3.25"}, []string{"-2.50", "3.25"}, false},
		{"left column untouched", false, false, []string{"15.92", "21.9576"}, []string{"15.92", "21.9576"}, false},
		{"not numbers", true, false, []string{"8.03B", "v1.2.3", "never"}, []string{"8.03B", "v1.2.3", "never"}, false},
		// A benchmark's values: each row its own quantity and digits.
		{"mixed quantities", true, true, []string{"769", "55.2", "0.32"}, []string{"769", "55.2", "0.32"}, false},
	}
	for _, tc := range tests {
		tb := &Table{Columns: []Column{{Header: "X", Right: tc.right, Mixed: tc.mixed}}}
		for _, v := range tc.in {
			tb.Rows = append(tb.Rows, []string{v})
		}
		tb.alignDecimals(true)
		tb.alignDecimals(true) // a second time changes nothing
		var got []string
		for _, r := range tb.Rows {
			got = append(got, r[0])
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if gotNote := len(tb.Notes) == 1; gotNote != tc.note || len(tb.Notes) > 1 {
			t.Errorf("%s: notes %q, want a rounding note: %v", tc.name, tb.Notes, tc.note)
		}
	}
}

// The points line up in the text table, and CSV keeps the digits as given.
func TestDecimalsTextOnly(t *testing.T) {
	mk := func() *Table {
		return &Table{Columns: []Column{{Header: "I"}, {Header: "USD/h", Right: true}},
			Rows: [][]string{{"a", "15.92"}, {"b", "121.9576"}}}
	}
	if got, want := text(t, mk()), "I     USD/h\na   15.9200\nb  121.9576\n"; got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	var b bytes.Buffer
	if err := mk().Write(&b, FormatCSV, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "I,USD/h\na,15.92\nb,121.9576\n"; got != want {
		t.Errorf("csv:\n%s\nwant:\n%s", got, want)
	}
}

// A column of money with Places shows cents and thousands separators in the
// text and Markdown tables, with no rounding note; CSV keeps every digit.
func TestPlacesColumn(t *testing.T) {
	mk := func() *Table {
		return &Table{Columns: []Column{{Header: "I"}, {Header: "TOTAL", Right: true, Places: 2}},
			Rows: [][]string{{"a", "3688.883856"}, {"b", "7.5 +?"}, {"c", "999.999"}, {"d", "?"}}}
	}
	if got, want := text(t, mk()), "I        TOTAL\na  3,688.88\nb      7.50 +?\nc  1,000.00\nd            ?\n"; got != want {
		t.Errorf("text:\n%q\nwant:\n%q", got, want)
	}
	var b bytes.Buffer
	if err := mk().Write(&b, FormatCSV, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "I,TOTAL,PARTIAL\na,3688.883856,false\nb,7.5,true\nc,999.999,false\nd,,false\n"; got != want {
		t.Errorf("csv:\n%s\nwant:\n%s", got, want)
	}
}

// The legend explains "?" and "-" only when the table asks for it and a
// shown cell has one (not one of a column Fit hid); CSV writes "?" as an
// empty cell in every column.
func TestLegend(t *testing.T) {
	tests := []struct {
		rows [][]string
		want bool
	}{
		{[][]string{{"a", "?", "1"}}, true},
		{[][]string{{"a", "x", "-"}, {"b", "x", "2"}}, true},
		{[][]string{{"a", "x", "-"}, {"b", "x", ""}}, false}, // the "-" column is hidden
		{[][]string{{"a", "x", "1"}}, false},
	}
	for _, tc := range tests {
		tb := &Table{Columns: []Column{{Header: "A"}, {Header: "B"}, {Header: "C", Right: true}}, Rows: tc.rows, Legend: true}
		tb.Fit(80)
		if got := strings.Contains(text(t, tb), LegendNote); got != tc.want {
			t.Errorf("rows %q: legend shown %v, want %v", tc.rows, got, tc.want)
		}
	}
	tb := &Table{Columns: []Column{{Header: "LINK"}, {Header: "USD", Right: true}}, Rows: [][]string{{"?", "?"}, {"-", "-"}}}
	var b bytes.Buffer
	if err := tb.Write(&b, FormatCSV, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "LINK,USD\n,\n-,\n"; got != want {
		t.Errorf("csv = %q, want %q", got, want)
	}
}

// wrapCell breaks at spaces only and counts wide characters as two cells:
// a word longer than the line (a URL, an instance name) is never split; it
// has a line of its own.
func TestWrapCell(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"fits", 10, []string{"fits"}},
		{"per second, settled hourly", 12, []string{"per second,", "settled", "hourly"}},
		{"按量付费 per second", 9, []string{"按量付费", "per", "second"}}, // 按量付费 is 8 cells
		{"https://example.com/a/b", 10, []string{"https://example.com/a/b"}},
		{"see https://example.com/a/b here", 10, []string{"see", "https://example.com/a/b", "here"}},
		{"gpu-h100-sxm_8gpu-128vcpu-1600gb", 20, []string{"gpu-h100-sxm_8gpu-128vcpu-1600gb"}},
		{"ecs.gn7i-c8g1.2xlarge", 14, []string{"ecs.gn7i-c8g1.2xlarge"}},
		{"华东华东华东", 5, []string{"华东华东华东"}},
	}
	for _, tc := range tests {
		got := wrapCell(tc.in, tc.width)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrapCell(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		for _, l := range got {
			if displayWidth(l) > tc.width && strings.Contains(l, " ") {
				t.Errorf("wrapCell(%q, %d): line %q is %d cells", tc.in, tc.width, l, displayWidth(l))
			}
		}
	}
}

// A Prose column wraps inside its cell so that the table fits, the other
// columns keep their place on the row's first line, and notes with wide
// characters wrap to the width too.
func TestFitProse(t *testing.T) {
	tb := &Table{Columns: []Column{{Header: "PROVIDER"}, {Header: "N", Right: true}, {Header: "BILLING", Prose: true}},
		Rows: [][]string{
			{"alibaba", "45", "per second, settled hourly (pay-as-you-go, 按量付费) with a long tail of words"},
			{"aws", "197", "per second"},
		},
		Notes: []string{"华东1 华东2 华北2 华北3 华北6 华南1 中国香港 新加坡 are Alibaba Cloud regions with GPU offerings in the catalog"}}
	tb.Fit(40)
	out := text(t, tb)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for _, l := range lines {
		if displayWidth(l) > 40 {
			t.Errorf("line %q is %d cells wide, want at most 40", l, displayWidth(l))
		}
	}
	if !strings.HasPrefix(lines[1], "alibaba    45  per second, settled") || !strings.HasPrefix(lines[2], strings.Repeat(" ", 15)+"hourly") {
		t.Errorf("the wrapped row should start on one line and continue under BILLING:\n%s", out)
	}
	if !strings.Contains(out, "aws       197  per second\n") {
		t.Errorf("a short cell stays on one line:\n%s", out)
	}
	if len(tb.Columns) != 3 {
		t.Errorf("a Prose column that wraps need not be dropped: %s", headers(tb))
	}
}

// decimalCell reads exactly what its regular expression matches, with the
// same parts.
func FuzzDecimalCell(f *testing.F) {
	re := regexp.MustCompile(`^([-+]?[0-9][0-9,]*)(?:\.([0-9]+))?((?:%|\*| \+\?)*)( *)$`)
	for _, s := range []string{"12", "-1,234.50", "3.0%", "7*  ", "0.5 +?", "12 +?* ", "12  +?", "1.", ".5", "+", "12.5x", "9,9,9.000%%", "1 +? +?   "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		num, frac, mark, ok := decimalCell(s)
		m := re.FindStringSubmatch(s)
		if ok != (m != nil) {
			t.Fatalf("%q: decimalCell ok=%v, the expression matches=%v", s, ok, m != nil)
		}
		if ok && (num != m[1] || frac != m[2] || mark != m[3]) {
			t.Fatalf("%q: decimalCell (%q, %q, %q), the expression (%q, %q, %q)", s, num, frac, mark, m[1], m[2], m[3])
		}
	})
}
