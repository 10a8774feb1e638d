package dashboard

import (
	"bytes"
	"html/template"
	"strings"
	"sync"
)

// Body is the table's rows as HTML, each
//
//	<tr><td class="n">TEXT</td><td><a href="HREF">TEXT</a></td>...</tr>
//
// and a newline, escaped exactly as html/template escapes {{.Text}} in an
// element's text and {{.Href}} in a quoted href (TestTableBodyIsTheTemplates
// holds it to the template it replaces): the page template's range over
// every cell called an escaper by reflection per action, which was most of
// a long page's render (the leaderboard's 100 rows: about 2.5 ms of 4).
func (t *htmlTable) Body() template.HTML {
	var b strings.Builder
	for _, row := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range row {
			if c.Right {
				b.WriteString(`<td class="n">`)
			} else {
				b.WriteString("<td>")
			}
			if c.Href != "" {
				b.WriteString(`<a href="`)
				b.WriteString(escapeHref(c.Href))
				b.WriteString(`">`)
				escapeText(&b, c.Text)
				b.WriteString("</a>")
			} else {
				escapeText(&b, c.Text)
			}
			b.WriteString("</td>")
		}
		b.WriteString("</tr>\n")
	}
	return template.HTML(b.String()) // #nosec: every text and href escaped as html/template does
}

// escapeText writes s as html/template's HTML-text escaper does (its
// htmlReplacementTable): NUL, ", &, ', +, < and > replaced, every other
// byte (invalid UTF-8 included) as it is.
func escapeText(b *strings.Builder, s string) {
	written := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		b.WriteString(s[written:i])
		b.WriteString(repl)
		written = i + 1
	}
	b.WriteString(s[written:])
}

// hrefs caches escapeHref's answers (a page's links repeat: report IDs,
// pages of a list), at most maxHrefs.
var (
	hrefMu sync.Mutex
	hrefs  = map[string]string{}
)

const maxHrefs = 4096

// hrefTmpl is parsed on first use, not at start-up (every CLI call would pay for it).
var hrefTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("href").Parse(`<a href="{{.}}">`))
})

// escapeHref returns href as html/template writes it in a quoted href
// attribute (its URL filter, normaliser and attribute escaper), by running
// that template.
func escapeHref(href string) string {
	hrefMu.Lock()
	e, ok := hrefs[href]
	hrefMu.Unlock()
	if ok {
		return e
	}
	var b bytes.Buffer
	if err := hrefTmpl().Execute(&b, href); err != nil {
		return "#ZgotmplZ" // html/template's answer for a URL it refuses
	}
	e = strings.TrimSuffix(strings.TrimPrefix(b.String(), `<a href="`), `">`)
	hrefMu.Lock()
	if len(hrefs) >= maxHrefs {
		clear(hrefs)
	}
	hrefs[href] = e
	hrefMu.Unlock()
	return e
}
