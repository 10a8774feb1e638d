package render

import (
	"bytes"
	"strings"
	"testing"
)

func sampleReport() *Report {
	return &Report{Title: "gpuscout plan: <x>", Description: "a & b", Summary: []string{"fit"},
		Table:    &Table{Columns: []Column{{Header: "#", Right: true}, {Header: "NAME"}}, Rows: [][]string{{"1", "<script>alert(1)</script>"}}, Notes: []string{"note"}},
		Scatter:  &ScatterChart{Title: "s", Points: []Point{{X: 1, Y: 2, Label: "p"}, {X: 2, Y: 3, Label: "q"}}},
		Bars:     &BarChart{Title: "b", Bars: []Bar{{Label: "p", Segments: []Segment{{Name: "usage", Value: 2}}}}},
		Sections: []ReportSection{{Title: "#1", Lines: []string{"why <b>"}}},
		Excluded: []ReportItem{{What: "A10", Reason: "too small"}}}
}

// HTML: every text escaped, both charts inline, numbers right-aligned.
func TestReportHTML(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"<title>gpuscout plan: &lt;x&gt;</title>", "&lt;script&gt;alert(1)&lt;/script&gt;", "<p>a &amp; b</p>",
		`<th class="n">#</th>`, `<td class="n">1</td>`, "<li>why &lt;b&gt;</li>", "<li><b>A10</b>: too small</li>"} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(s, "<script>") {
		t.Error("HTML carries an unescaped script")
	}
	if n := strings.Count(s, "<svg"); n != 2 {
		t.Errorf("%d inline charts, want 2", n)
	}
}

func TestReportMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteMarkdown(&b, "p-cost-time.svg", "p-breakdown.svg"); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"# gpuscout plan: <x>\n", "| 1 |", "![cost against time](p-cost-time.svg)", "![cost breakdown](p-breakdown.svg)"} {
		if !strings.Contains(s, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, s)
		}
	}
}

func TestReportFormat(t *testing.T) {
	for _, tc := range []struct{ path, want string }{{"a.html", "html"}, {"a.HTM", "html"}, {"a.md", "markdown"}, {"a.pdf", ""}, {"a.png", ""}} {
		got, err := ReportFormat(tc.path)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("%s: got %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}
