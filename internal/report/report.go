// Package report is what a plan report says and in which order: the
// question restated, the headline answer, the plans' table, the charts, the
// reasons and the exclusions, written as HTML (charts inline) or Markdown
// (charts as SVG files beside it), and the advise table a terminal shows.
// Tables and charts themselves are package render's.
package report

import (
	"bytes"
	"fmt"
	"github.com/gpuscout/gpuscout/internal/render"
	htmltemplate "html/template"
	"io"
	"strings"
	"sync"
	texttemplate "text/template"
)

// Report is a plan report's content in reading order: the question and the
// headline answer, the plans' table, the charts, the reasons (what all plans
// share said once, then what differs) and the exclusions. One model decides
// what is said and in which order; WriteHTML (charts inline) and
// WriteMarkdown (charts as SVG files beside it) only format it. The CLI
// writes it to a file; a server can serve the same bytes.
type Report struct {
	Title       string
	Description string
	// Question restates the request: the work, its size, the deadline, the
	// budget and the currency.
	Question string
	// Headline names the recommended plan and the cheapest, fastest and best
	// on-demand ones, each once (a plan with several roles names them all).
	Headline []HeadlineItem
	// Prices are the sources and dates of the prices the plans use.
	Prices []PriceSource
	// Unknown says what has no price or rests on an assumption.
	Unknown []string
	Summary []string
	Table   *render.Table
	Charts  []Chart
	// WhyShared are the reasons shared by several of the plans explained
	// below, said once; Sections hold only what differs per plan.
	WhyShared []SharedLine
	Sections  []Section
	Excluded  []Item
}

// HeadlineItem is one line of the headline box: a role ("Recommended",
// "Cheapest and fastest") and the plan in words.
type HeadlineItem struct {
	Label, Text string
}

// PriceSource is one source of prices with the dates of the prices used
// from it and what they priced.
type PriceSource struct {
	Source string
	AsOf   []string // YYYY-MM-DD, sorted
	Kinds  []string // "on-demand", "spot"
	Plans  int      // plans using it
}

// String writes the source as the report shows it.
func (p PriceSource) String() string {
	return fmt.Sprintf("%s, as of %s: %s prices of %d plan%s", p.Source, strings.Join(p.AsOf, ", "), strings.Join(p.Kinds, " and "), p.Plans, plural(p.Plans))
}

// SharedLine is a reason that several plans share; Plans names them when
// not every plan explained does ("" when all do).
type SharedLine struct {
	Text, Plans string
}

// Chart is a chart of the report: Name is its file suffix beside a
// Markdown report ("cost-time" → plan-cost-time.svg), Alt its text for
// readers who cannot see it. A chart with nothing to show has no Chart and
// a Note saying why.
type Chart struct {
	Name, Heading, Alt string
	Chart              interface{ Write(io.Writer) error }
	Note               string
}

// Section is a heading with lines under it.
type Section struct {
	Title string
	Lines []string
}

// Item is a named thing and a reason.
type Item struct {
	What, Reason string
}

// ChartFile is a chart rendered as an SVG file named for a Markdown report.
type ChartFile struct {
	Name string
	SVG  []byte
}

// ChartFiles renders the report's charts, each named base-NAME.svg.
func (r *Report) ChartFiles(base string) ([]ChartFile, error) {
	var out []ChartFile
	for _, c := range r.Charts {
		if c.Chart == nil {
			continue
		}
		var b bytes.Buffer
		if err := c.Chart.Write(&b); err != nil {
			return nil, err
		}
		out = append(out, ChartFile{Name: base + "-" + c.Name + ".svg", SVG: b.Bytes()})
	}
	return out, nil
}

type htmlCell struct {
	Text  string
	Right bool
}

type htmlChart struct {
	Heading, Alt, Note string
	SVG                htmltemplate.HTML
}

type htmlView struct {
	*Report
	Header     []htmlCell
	Rows       [][]htmlCell
	TableNotes []string
	Charts     []htmlChart
}

const reportCSS = `*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.45;max-width:1100px;margin:0 auto;padding:1em;color:#222;overflow-wrap:break-word}
h1{font-size:1.6em;margin:.3em 0}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}h3{font-size:1.05em;margin:1em 0 .3em}
.answer{border:2px solid #0072B2;border-radius:6px;padding:.6em 1em;background:#F4F8FB}
.answer dl{margin:.3em 0}.answer dt{font-weight:bold;margin-top:.5em}.answer dd{margin:0 0 0 1em}
.q{font-size:1.1em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:13px}
td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.num{white-space:nowrap;font-variant-numeric:tabular-nums}
figure{margin:1em 0}figure svg{display:block;width:100%;max-width:760px;height:auto}
li{margin:2px 0}.muted{color:#555}
@media (max-width:480px){body{padding:.5em .25em}}
@media print{body{max-width:none;padding:0;font-size:11pt}h2{break-before:page}h2.first{break-before:auto}
.scroll{overflow:visible}table{font-size:8pt;width:100%}td,th{white-space:normal;padding:2px 4px}td.n,th.n{white-space:nowrap}tr,figure,.answer{break-inside:avoid}}`

var htmlReport = sync.OnceValue(func() *htmltemplate.Template {
	return htmltemplate.Must(htmltemplate.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.CSS}}</style></head><body>
<h1>{{.Title}}</h1>
{{with .Description}}<p class="muted">{{.}}</p>
{{end}}<section class="answer" aria-label="the answer">
<p class="q"><b>Question:</b> {{.Question}}</p>
<dl>
{{range .Headline}}<dt>{{.Label}}</dt><dd>{{.Text}}</dd>
{{end}}<dt>Prices</dt>{{range .Prices}}<dd>{{.}}</dd>{{else}}<dd>no plan, no prices used</dd>{{end}}
<dt>Unknown</dt>{{range .Unknown}}<dd>{{.}}</dd>{{end}}
</dl></section>
{{with .Summary}}<h2 class="first">How the plans were chosen</h2>
<ol>
{{range .}}<li>{{.}}</li>
{{end}}</ol>
{{end}}<h2>Plans</h2>
<div class="scroll"><table><thead><tr>{{range .Header}}<th{{if .Right}} class="n"{{end}}>{{.Text}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Right}} class="n"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{range .TableNotes}}<p class="muted">{{.}}</p>
{{end}}{{range .Charts}}<h2>{{.Heading}}</h2>
{{if .SVG}}<figure role="group" aria-label="{{.Alt}}">{{.SVG}}</figure>
{{end}}{{with .Note}}<p>{{.}}</p>
{{end}}{{end}}<h2>Why</h2>
{{with .WhyShared}}<h3>Shared by the plans below</h3><ul>
{{range .}}<li>{{.Text}}{{with .Plans}} <span class="muted">({{.}})</span>{{end}}</li>
{{end}}</ul>
{{end}}{{range .Sections}}<h3>{{.Title}}</h3><ul>
{{range .Lines}}<li>{{.}}</li>
{{else}}<li class="muted">nothing beyond the shared reasons</li>
{{end}}</ul>
{{end}}<h2>Excluded</h2>
{{with .Excluded}}<ul>
{{range .}}<li><b>{{.What}}</b>: {{.Reason}}</li>
{{end}}</ul>{{else}}<p>Nothing was excluded.</p>{{end}}
</body></html>
`))
})

// WriteHTML writes the report as one self-contained HTML page: inline CSS
// and SVG, no script, a viewport for phones, a scrolling table and print
// rules (the table wraps its text columns to the page, never its numbers).
// Every text is escaped by html/template; the charts are SVG that
// this package generated itself.
func (r *Report) WriteHTML(w io.Writer) error {
	v := htmlView{Report: r}
	for _, c := range r.Charts {
		hc := htmlChart{Heading: c.Heading, Alt: c.Alt, Note: c.Note}
		if c.Chart != nil {
			var b bytes.Buffer
			if err := c.Chart.Write(&b); err != nil {
				return err
			}
			hc.SVG = htmltemplate.HTML(b.String()) // #nosec: our own SVG
		}
		v.Charts = append(v.Charts, hc)
	}
	if r.Table != nil {
		for _, c := range r.Table.Columns {
			v.Header = append(v.Header, htmlCell{c.Header, c.Right})
		}
		for _, row := range r.Table.Rows {
			cells := make([]htmlCell, 0, len(row))
			for i, c := range row {
				cells = append(cells, htmlCell{c, i < len(r.Table.Columns) && r.Table.Columns[i].Right})
			}
			v.Rows = append(v.Rows, cells)
		}
		v.TableNotes = r.Table.Notes
	}
	return htmlReport().Execute(w, struct {
		htmlView
		CSS htmltemplate.CSS
	}{v, htmltemplate.CSS(reportCSS)})
}

var mdReport = sync.OnceValue(func() *texttemplate.Template {
	return texttemplate.Must(texttemplate.New("report").Funcs(texttemplate.FuncMap{"inc": func(i int) int { return i + 1 }}).Parse(`# {{.Title}}
{{with .Description}}
{{.}}
{{end}}
**Question:** {{.Question}}

{{range .Headline}}- **{{.Label}}:** {{.Text}}
{{end}}- **Prices:**{{range .Prices}}
  - {{.}}{{else}} no plan, no prices used{{end}}
- **Unknown:**{{range .Unknown}}
  - {{.}}{{end}}
{{with .Summary}}
## How the plans were chosen

{{range $i, $s := .}}{{inc $i}}. {{$s}}
{{end}}{{end}}
## Plans

{{.TableText}}{{range .Charts}}
## {{.Heading}}
{{if .File}}
![{{.Alt}}]({{.File}})
{{end}}{{with .Note}}
{{.}}
{{end}}{{end}}
## Why
{{with .WhyShared}}
### Shared by the plans below

{{range .}}- {{.Text}}{{with .Plans}} ({{.}}){{end}}
{{end}}{{end}}{{range .Sections}}
### {{.Title}}

{{range .Lines}}- {{.}}
{{else}}- nothing beyond the shared reasons
{{end}}{{end}}
## Excluded

{{range .Excluded}}- **{{.What}}**: {{.Reason}}
{{else}}Nothing was excluded.
{{end}}`))
})

// WriteMarkdown writes the report as Markdown with the same sections as the
// HTML, linking each chart as base-NAME.svg, the files ChartFiles(base)
// renders, which the caller writes beside it.
func (r *Report) WriteMarkdown(w io.Writer, base string) error {
	var t strings.Builder
	if r.Table != nil {
		if err := r.Table.Write(&t, render.FormatMarkdown, render.Options{}); err != nil {
			return err
		}
	}
	type mdChart struct{ Heading, Alt, File, Note string }
	var charts []mdChart
	for _, c := range r.Charts {
		mc := mdChart{c.Heading, c.Alt, "", c.Note}
		if c.Chart != nil {
			mc.File = base + "-" + c.Name + ".svg"
		}
		charts = append(charts, mc)
	}
	return mdReport().Execute(w, struct {
		*Report
		TableText string
		Charts    []mdChart
	}{r, t.String(), charts})
}

// FormatOf says how a report file is written, from its name: "html"
// (.html, .htm) or "markdown" (.md, .markdown); an error otherwise.
func FormatOf(path string) (string, error) {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".html"), strings.HasSuffix(p, ".htm"):
		return "html", nil
	case strings.HasSuffix(p, ".md"), strings.HasSuffix(p, ".markdown"):
		return "markdown", nil
	}
	return "", fmt.Errorf("want a file ending in .html or .md")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
