package render

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"io"
	"strings"
	texttemplate "text/template"
)

// Report is a document with a summary, a table, charts, per-item reasons and
// exclusions: the shape of advise's report, written as HTML (charts inline)
// or Markdown (charts as SVG files beside it). The CLI writes it to a file;
// a server can serve the same bytes.
type Report struct {
	Title       string
	Description string
	Summary     []string
	Table       *Table
	Scatter     *ScatterChart
	Bars        *BarChart
	Sections    []ReportSection // "Why": one per top plan
	Excluded    []ReportItem
}

// ReportSection is a heading with lines under it.
type ReportSection struct {
	Title string
	Lines []string
}

// ReportItem is a named thing and a reason.
type ReportItem struct {
	What, Reason string
}

// ChartSVGs renders the report's two charts as SVG.
func (r *Report) ChartSVGs() (scatter, bars []byte, err error) {
	var s, b bytes.Buffer
	if r.Scatter != nil {
		if err := r.Scatter.Write(&s); err != nil {
			return nil, nil, err
		}
	}
	if r.Bars != nil {
		if err := r.Bars.Write(&b); err != nil {
			return nil, nil, err
		}
	}
	return s.Bytes(), b.Bytes(), nil
}

type htmlCell struct {
	Text  string
	Right bool
}

type htmlView struct {
	*Report
	Header  []htmlCell
	Rows    [][]htmlCell
	Scatter htmltemplate.HTML
	Bars    htmltemplate.HTML
}

var htmlReport = htmltemplate.Must(htmltemplate.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left}td.n,th.n{text-align:right}li{margin:2px 0}</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.Description}}</p>
<ol>
{{range .Summary}}<li>{{.}}</li>
{{end}}</ol>
<table><thead><tr>{{range .Header}}<th{{if .Right}} class="n"{{end}}>{{.Text}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Right}} class="n"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>
<h2>Charts</h2>
{{.Scatter}}{{.Bars}}<h2>Why</h2>
{{range .Sections}}<h3>{{.Title}}</h3><ul>
{{range .Lines}}<li>{{.}}</li>
{{end}}</ul>
{{end}}<h2>Excluded</h2><ul>
{{range .Excluded}}<li><b>{{.What}}</b>: {{.Reason}}</li>
{{end}}</ul>
</body></html>
`))

// WriteHTML writes the report as one HTML page with the charts inline. Every
// text is escaped by html/template; the charts are SVG that this package
// generated itself.
func (r *Report) WriteHTML(w io.Writer) error {
	s, b, err := r.ChartSVGs()
	if err != nil {
		return err
	}
	v := htmlView{Report: r, Scatter: htmltemplate.HTML(s), Bars: htmltemplate.HTML(b)} // #nosec: our own SVG
	if r.Table != nil {
		for _, c := range r.Table.Columns {
			v.Header = append(v.Header, htmlCell{c.Header, c.Right})
		}
		for _, row := range r.Table.Rows {
			var cells []htmlCell
			for i, c := range row {
				cells = append(cells, htmlCell{c, i < len(r.Table.Columns) && r.Table.Columns[i].Right})
			}
			v.Rows = append(v.Rows, cells)
		}
	}
	return htmlReport.Execute(w, v)
}

var mdReport = texttemplate.Must(texttemplate.New("report").Parse(`# {{.Title}}

{{.Table}}
![cost against time]({{.ScatterFile}})

![cost breakdown]({{.BarsFile}})
`))

// WriteMarkdown writes the report as Markdown: the table with its notes
// (summary, reasons, exclusions), and links to the two charts, which the
// caller writes as SVG files named scatterFile and barsFile beside it.
func (r *Report) WriteMarkdown(w io.Writer, scatterFile, barsFile string) error {
	var t strings.Builder
	if r.Table != nil {
		if err := r.Table.Write(&t, FormatMarkdown, Options{}); err != nil {
			return err
		}
	}
	return mdReport.Execute(w, struct {
		Title, Table, ScatterFile, BarsFile string
	}{r.Title, t.String(), scatterFile, barsFile})
}

// ReportFormat says how a report file is written, from its name: "html"
// (.html, .htm) or "markdown" (.md, .markdown); an error otherwise.
func ReportFormat(path string) (string, error) {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".html"), strings.HasSuffix(p, ".htm"):
		return "html", nil
	case strings.HasSuffix(p, ".md"), strings.HasSuffix(p, ".markdown"):
		return "markdown", nil
	}
	return "", fmt.Errorf("want a file ending in .html or .md")
}
