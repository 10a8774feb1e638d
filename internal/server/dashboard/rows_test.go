package dashboard

import (
	"bytes"
	"html/template"
	"math/rand/v2"
	"strings"
	"testing"
)

// rowsTmpl is how the page template wrote a table's rows before Body: one
// escaper call per action. Body must write the same bytes.
var rowsTmpl = template.Must(template.New("rows").Parse(`<table><thead><tr><th>X</th></tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Right}} class="n"{{end}}>{{if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>`))

// bodyOf is what rowsTmpl writes between <tbody>\n and </tbody>.
func bodyOf(t testing.TB, h *htmlTable) string {
	var b bytes.Buffer
	if err := rowsTmpl.Execute(&b, h); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	s = s[strings.Index(s, "<tbody>\n")+len("<tbody>\n"):]
	return s[:strings.LastIndex(s, "</tbody>")]
}

// Body writes a table's rows exactly as the template did, for hostile
// texts and links too.
func TestTableBodyIsTheTemplates(t *testing.T) {
	texts := []string{"", "plain", "1,234.5", "<script>alert(1)</script>", `"quoted" & 'single'`, "a+b", "\x00nul", "bad utf-8 \xff\xfe",
		"é ü 中文 \u2028 \ufdd0 \ufffd", "&amp; already", "--> <!--", evil}
	hrefs := []string{"", "/reports/" + strings.Repeat("ab", 32), "/catalog?gpu=H100&provider=aws", "javascript:alert(1)", "/a b?c=d e#f",
		"/x?q=<script>", `/"onmouseover="x`, "https://example.com/ü", "data:text/html,hi", "/p?a=1+2", "\x00", "/\xff"}
	h := &htmlTable{}
	for i, tx := range texts {
		for j, hr := range hrefs {
			h.Rows = append(h.Rows, []cell{{Text: tx, Href: hr, Right: (i+j)%2 == 0}, {Text: tx}, {Text: hr, Right: true}})
		}
	}
	if got, want := string(h.Body()), bodyOf(t, h); got != want {
		t.Errorf("Body differs from the template's rows:\n got %q\nwant %q", got, want)
	}
	if got := string((&htmlTable{}).Body()); got != "" {
		t.Errorf("Body of no rows = %q, want empty", got)
	}
}

// Random texts and links from the characters escapers treat specially
// (a seeded generator, so a failure reproduces): Body writes what the
// template writes for each. A property test rather than a fuzz target:
// the fuzz step would build and link the whole dashboard once more.
func TestTableBodyIsTheTemplatesRandom(t *testing.T) {
	parts := []string{"<", ">", "&", "'", "\"", "+", "\x00", "\xff", "é", "\u2028", "/", "?", "=", "#", " ", ":", "javascript:", "data:", "%", "%2", "a", "1", "&amp;", "\t", "\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		return b.String()
	}
	h := &htmlTable{}
	for range 3000 {
		text, href := word(), word()
		h.Rows = append(h.Rows, []cell{{Text: text, Href: href, Right: rng.IntN(2) == 0}, {Text: href}})
	}
	got, want := string(h.Body()), bodyOf(t, h)
	if got == want {
		return
	}
	for _, r := range h.Rows { // name the first row that differs
		one := &htmlTable{Rows: [][]cell{r}}
		if g, w := string(one.Body()), bodyOf(t, one); g != w {
			t.Fatalf("Body(%q, %q) = %q, the template writes %q", r[0].Text, r[0].Href, g, w)
		}
	}
	t.Fatal("Body differs from the template's rows, though no row alone does")
}
