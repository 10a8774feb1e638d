package dashboard

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/agentsummary"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/store"
)

// Config is what the dashboard reads: the store of uploaded documents and
// the catalog that prices them.
type Config struct {
	Store   store.Store
	Catalog *catalog.Catalog
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Logger receives errors the pages could not show (nil: slog.Default).
	Logger *slog.Logger
	// CacheTTL is how long a page built from the store is served from the
	// cache, 0 to MaxCacheTTL (0: DefaultCacheTTL); negative turns that
	// cache off. Handler.InvalidateKind drops those built from a kind of
	// document at once, Handler.Invalidate all of them.
	CacheTTL time.Duration
}

// dash is the handler's state.
type dash struct {
	Config
	cache pageCache
	store storeCache
	bench benchSet // the newest bench reports, decoded (with the store cache on)
	// ppRows caches the catalog query of the price/performance page for ppDay.
	ppMu   sync.Mutex
	ppDay  string
	ppRows []catalog.Row
	// decoded keeps decoded bench reports by document ID.
	decMu   sync.Mutex
	decoded map[string]*benchreport.Document
	// gists and summaries keep decoded plans' gists and agent summaries.
	gists     decodedDocs[*planGist]
	summaries decodedDocs[*agentsummary.Summary]
	// priced keeps the leaderboard's entries by document ID for pricedDay.
	pricedMu  sync.Mutex
	pricedDay string
	priced    map[string]*entry
	// offers keeps matchOffering's answers by reference and day.
	offMu  sync.Mutex
	offers map[string]*pricedOffering
}

//go:embed assets/dash.css
var dashCSS []byte

// New returns the dashboard's handler: GET pages under "/" and its
// stylesheet at /static/dash.css. A CacheTTL above MaxCacheTTL is taken as
// MaxCacheTTL.
func New(c Config) *Handler {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	d := &dash{Config: c}
	d.gists.what, d.summaries.what = "plan", "agent summary"
	switch {
	case c.CacheTTL == 0:
		d.store.ttl = DefaultCacheTTL
	case c.CacheTTL > MaxCacheTTL:
		d.store.ttl = MaxCacheTTL
	default:
		d.store.ttl = c.CacheTTL
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /static/dash.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(dashCSS)
	})
	// Each page names the query parameters it reads; any other is a 400.
	// A page built from the store names the kinds of document it reads: an
	// upload of one of them makes it stale (InvalidateKind). A page of one
	// report, or a comparison of some, reads documents by ID, which never
	// change: no upload makes it stale.
	bench, plan, agent := store.KindBench, store.KindPlan, store.KindAgent
	mux.HandleFunc("GET /{$}", d.storeCached(d.page(only(d.overview)), bench, plan, agent))
	mux.HandleFunc("GET /catalog", d.cached(d.page(only(d.catalogPage, catalogParams...))))
	mux.HandleFunc("GET /priceperf", d.storeCached(d.page(only(d.pricePerf)), bench))
	mux.HandleFunc("GET /leaderboard", d.storeCached(d.page(only(d.leaderboard, "page")), bench))
	mux.HandleFunc("GET /reports", d.storeCached(d.page(only(d.reports, "gpu", "provider", "page")), bench))
	mux.HandleFunc("GET /reports/{id}", d.storeCached(d.page(only(d.report))))
	mux.HandleFunc("GET /compare", d.storeCached(d.page(only(d.compare, "ids"))))
	mux.HandleFunc("GET /plans", d.storeCached(d.page(only(d.plans, "page")), plan))
	mux.HandleFunc("GET /agents", d.storeCached(d.page(only(d.agents, "page")), agent))
	mux.HandleFunc("GET /plans/{id}", d.cached(d.plan)) // a document never changes: its ID is its hash
	mux.HandleFunc("GET /spot", d.cached(d.page(only(d.spotPage, "offering", "work", "deadline", "runs"))))
	// Anything else: a page saying so, under the same headers.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			d.page(func(*http.Request) (*page, error) {
				return nil, &httpError{http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: the dashboard's pages are read with GET", r.Method, r.URL.Path)}
			})(w, r)
			return
		}
		d.page(func(*http.Request) (*page, error) {
			return nil, notFound("no page at %s; the pages are listed above", r.URL.Path)
		})(w, r)
	})
	return &Handler{mux: mux, d: d}
}

// page is one dashboard page: a title, an optional filter form and blocks
// in reading order.
type page struct {
	Title  string
	Intro  []string
	Form   *form
	Blocks []block
}

// block is a section: a heading, paragraphs, links, a table or a chart.
type block struct {
	Heading string
	Paras   []string
	Links   []link
	Table   *htmlTable
	SVG     template.HTML // a chart render drew (our own SVG)
	Alt     string
}

type link struct{ Text, Href, Note string }

// form is a GET form of filters.
type form struct {
	Action string
	Fields []field
}

type field struct {
	Name, Label, Value string
	Kind               string // "text", "checkbox", "select"
	Checked            bool
	Options            []string
}

// htmlTable is a render.Table as HTML, with links in some cells.
type htmlTable struct {
	Header []cell
	Rows   [][]cell
	Notes  []string
}

type cell struct {
	Text, Href string
	Right      bool
}

// tableHTML turns a render.Table into cells; hrefs, when not nil, gives a
// link per row for the first column.
func tableHTML(t *render.Table, hrefs []string) *htmlTable {
	h := &htmlTable{Notes: t.Notes}
	for _, c := range t.Columns {
		h.Header = append(h.Header, cell{Text: c.Header, Right: c.Right})
	}
	for i, row := range t.Rows {
		cells := make([]cell, 0, len(row))
		for j, s := range row {
			c := cell{Text: s, Right: j < len(t.Columns) && t.Columns[j].Right}
			if j == 0 && i < len(hrefs) {
				c.Href = hrefs[i]
			}
			cells = append(cells, c)
		}
		h.Rows = append(h.Rows, cells)
	}
	if t.Legend && slices.ContainsFunc(t.Rows, func(r []string) bool {
		return slices.Contains(r, render.Unknown) || slices.Contains(r, render.NotApplied)
	}) {
		h.Notes = append(h.Notes, render.LegendNote)
	}
	return h
}

var nav = []link{{"Overview", "/", ""}, {"Catalog", "/catalog", ""}, {"Price/performance", "/priceperf", ""},
	{"Leaderboard", "/leaderboard", ""}, {"Reports", "/reports", ""}, {"Plans", "/plans", ""}, {"Agents", "/agents", ""}, {"Spot risk", "/spot", ""}}

var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · gpuscout</title>
<link rel="stylesheet" href="/static/dash.css"></head><body>
<nav aria-label="pages">{{range .Nav}}<a href="{{.Href}}">{{.Text}}</a>{{end}}</nav>
<main><h1>{{.Title}}</h1>
{{range .Intro}}<p>{{.}}</p>
{{end}}{{with .Form}}<form method="get" action="{{.Action}}">
{{range .Fields}}{{if eq .Kind "checkbox"}}<label class="check"><input type="checkbox" name="{{.Name}}" value="1"{{if .Checked}} checked{{end}}>{{.Label}}</label>
{{else if eq .Kind "select"}}<label>{{.Label}}<select name="{{.Name}}">{{$v := .Value}}{{range .Options}}<option{{if eq . $v}} selected{{end}}>{{.}}</option>{{end}}</select></label>
{{else}}<label>{{.Label}}<input type="text" name="{{.Name}}" value="{{.Value}}"></label>
{{end}}{{end}}<button type="submit">Show</button></form>
{{end}}{{range .Blocks}}{{with .Heading}}<h2>{{.}}</h2>
{{end}}{{range .Paras}}<p>{{.}}</p>
{{end}}{{with .Links}}<ul>
{{range .}}<li><a href="{{.Href}}">{{.Text}}</a>{{with .Note}} <span class="muted">{{.}}</span>{{end}}</li>
{{end}}</ul>
{{end}}{{if .SVG}}<figure role="group" aria-label="{{.Alt}}">{{.SVG}}</figure>
{{end}}{{with .Table}}<div class="scroll"><table><thead><tr>{{range .Header}}<th{{if .Right}} class="n"{{end}}>{{.Text}}</th>{{end}}</tr></thead><tbody>
{{.Body}}</tbody></table></div>
{{range .Notes}}<p class="muted">{{.}}</p>
{{end}}{{end}}{{end}}</main>
</body></html>
`))
})

// httpError is an error with its status: 400 for bad input (the message
// names the parameter, the value and what is allowed), 404 for nothing there.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// only wraps a page builder so that a query parameter the page does not
// read is a 400 naming it and the ones the page reads: a filter silently
// ignored (max_price on the catalog, which reads offers' max-price;
// gpu on the report list) would show an unfiltered page as if filtered.
func only(build func(*http.Request) (*page, error), names ...string) func(*http.Request) (*page, error) {
	return func(r *http.Request) (*page, error) {
		q := r.URL.Query()
		for _, k := range slices.Sorted(maps.Keys(q)) {
			if !slices.Contains(names, k) {
				reads := "no parameters"
				if len(names) > 0 {
					reads = strings.Join(names, ", ")
				}
				return nil, badRequest("%q: this page has no such parameter; it reads %s", k, reads)
			}
		}
		return build(r)
	}
}

// page adapts a page builder to a handler: it renders the page, or an
// error page with the error's status.
func (d *dash) page(build func(*http.Request) (*page, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := build(r)
		status := http.StatusOK
		if err != nil {
			status = http.StatusInternalServerError
			msg := "internal error; the server's log has the details"
			var he *httpError
			if errors.As(err, &he) {
				status, msg = he.status, he.msg
			} else {
				d.Logger.Error("dashboard page", "path", r.URL.Path, "err", err)
			}
			p = &page{Title: http.StatusText(status), Intro: []string{msg}}
		}
		var b bytes.Buffer
		if err := pageTmpl().Execute(&b, struct {
			*page
			Nav []link
		}{p, nav}); err != nil {
			d.Logger.Error("dashboard template", "path", r.URL.Path, "err", err)
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		writeHTML(w, status, b.Bytes())
	}
}

// writeHTML sends a page with its security headers; the CSP allows the
// stylesheet, data: images and exactly the inline styles the page carries
// (by hash), and no script at all.
func writeHTML(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", CSP(body))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// CSP returns the Content-Security-Policy for a page: nothing by default,
// styles from the server itself plus the hashes of the page's own inline
// styles (the SVG charts' style attributes, a report's <style>), images from
// the server and data: URLs, no script, no frames, forms to the server only.
func CSP(body []byte) string {
	var hashes []string
	seen := map[string]bool{}
	add := func(s string) {
		sum := sha256.Sum256([]byte(s))
		h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if !seen[h] {
			seen[h] = true
			hashes = append(hashes, h)
		}
	}
	attrs := false
	for _, v := range between(body, ` style="`, `"`) {
		add(html.UnescapeString(v))
		attrs = true
	}
	for _, v := range between(body, "<style>", "</style>") {
		add(v)
	}
	style := "style-src 'self'"
	if attrs {
		style += " 'unsafe-hashes'"
	}
	if len(hashes) > 0 {
		style += " " + strings.Join(hashes, " ")
	}
	return "default-src 'none'; " + style + "; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}

// svgOf renders a chart as inline SVG for a block.
func svgOf(c interface{ Write(io.Writer) error }) (template.HTML, error) {
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil // #nosec: SVG render drew, its texts escaped
}

// between returns every text of b that lies between open and the next close.
func between(b []byte, open, close string) []string {
	var out []string
	for {
		i := bytes.Index(b, []byte(open))
		if i < 0 {
			return out
		}
		b = b[i+len(open):]
		j := bytes.Index(b, []byte(close))
		if j < 0 {
			return out
		}
		out = append(out, string(b[:j]))
		b = b[j+len(close):]
	}
}
