package browsercheck

import (
	"cmp"
	"fmt"
	"html"
	"os"
	"slices"
	"strings"
	"sync"
)

// shot is one screenshot and what the checks found on it.
type shot struct {
	page     string
	width    int
	file     string // beside index.html
	findings []string
	known    string // why the page is in knownBadPages, if it is
}

// shots collects the screenshots of parallel subtests for an index page.
type shots struct {
	mu   sync.Mutex
	list []shot
}

func (s *shots) add(x shot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, x)
}

// write writes an HTML page that shows every screenshot with its findings,
// page by page, widest first, so that a person can look at a run's
// artefacts in one place.
func (s *shots) write(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	slices.SortFunc(s.list, func(a, b shot) int {
		return cmp.Or(cmp.Compare(a.page, b.page), cmp.Compare(b.width, a.width))
	})
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>gpuscout browser checks</title>
<style>body{font-family:sans-serif;margin:1em} figure{margin:0 0 2em} img{max-width:100%;border:1px solid #ccc}
.bad{color:#b00} .known{color:#a60} li{font-size:.9em}</style></head><body>
<h1>gpuscout browser checks</h1>
`)
	for _, x := range s.list {
		status, class := "passes every check", ""
		switch {
		case len(x.findings) > 0 && x.known != "":
			status, class = fmt.Sprintf("%d problem(s), known bad: %s", len(x.findings), x.known), "known"
		case len(x.findings) > 0:
			status, class = fmt.Sprintf("%d problem(s)", len(x.findings)), "bad"
		}
		fmt.Fprintf(&b, "<figure><h2>%s at %d px</h2><p class=%q>%s</p>\n", html.EscapeString(x.page), x.width, class, html.EscapeString(status))
		if len(x.findings) > 0 {
			b.WriteString("<ul>")
			for _, f := range x.findings {
				fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(f))
			}
			b.WriteString("</ul>\n")
		}
		fmt.Fprintf(&b, "<a href=%q><img src=%q alt=\"%s at %d px\" loading=lazy></a></figure>\n", x.file, x.file, html.EscapeString(x.page), x.width)
	}
	b.WriteString("</body></html>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
