package browsercheck

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/cli"
)

// knownBadPages lists pages that fail the browser checks today, with why:
// their findings are logged instead of failing the test, and a listed page
// that passes fails it (so the list cannot hide a regression). Empty: every
// page passes.
var knownBadPages = map[string]string{}

// commands produce the pictures through the CLI, as a user would, into the
// test's folder ({dir} is replaced by it).
var commands = [][]string{
	// The article's job: the plan report.
	{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--report", "{dir}/advise-a100.html"},
	// A fine-tune under a deadline and a budget: spot plans with Uniform Progress.
	{"advise", "--scenario", "llm-finetuning", "--model", "llama-3-70b", "--method", "lora", "--tokens", "2e9",
		"--deadline", "10d", "--budget", "20000USD", "--report", "{dir}/advise-lora-deadline.html"},
	// The Markdown report: its charts are SVG files beside it.
	{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--deadline", "9d", "--report", "{dir}/advise-md.md"},
	// Spot that looks cheapest but misses the deadline.
	{"spot", "--work", "48h", "--deadline", "52h", "--mtbf", "3h", "--spot-price", "0.918", "--od-price", "3.06",
		"--runs", "200", "--chart", "{dir}/spot-mtbf3h.svg"},
	// The article's spot scenario: policies that all complete.
	{"spot", "--offering", "aws/p4d.24xlarge/us-east-1", "--work", "72h", "--deadline", "100h", "--band", "10-15%",
		"--runs", "200", "--chart", "{dir}/spot-article.svg"},
	// Cost against hours a month, and the cash flow beside it.
	{"cost", "--offering", "gcp/a2-highgpu-8g/us-central1", "--hours-per-month", "420", "--horizon", "3y",
		"--chart", "{dir}/cost-a2-3y.svg"},
}

// page is one thing to look at: a file the CLI wrote, loaded as it is (an
// HTML report) or wrapped in a minimal page (an SVG chart).
type page struct {
	name string // the file's name
	url  string
	html bool // the CLI's own HTML: it must declare a viewport
}

// produce runs the commands and returns the pages they wrote.
func produce(t *testing.T, dir string) []page {
	t.Helper()
	for _, args := range commands {
		args = slices.Clone(args)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "{dir}", dir)
		}
		var out, errb bytes.Buffer
		if code := cli.Main(context.Background(), args, &out, &errb); code != cli.ExitOK {
			t.Fatalf("gpuscout %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pages []page
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch filepath.Ext(e.Name()) {
		case ".html":
			pages = append(pages, page{name: e.Name(), url: "file://" + path, html: true})
		case ".svg":
			pages = append(pages, page{name: e.Name(), url: "file://" + wrapSVG(t, path)})
		}
	}
	return pages
}

var xmlDecl = regexp.MustCompile(`^\s*<\?xml[^>]*\?>`)

// wrapSVG writes a minimal HTML page that shows the SVG inline, as a Markdown
// viewer or the HTML report does (at most the page's width, its aspect kept),
// and returns the page's path.
func wrapSVG(t *testing.T, path string) string {
	t.Helper()
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg = xmlDecl.ReplaceAll(svg, nil)
	doc := fmt.Sprintf(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>body{margin:8px;font-family:sans-serif} svg{display:block;max-width:100%%;height:auto}</style>
</head><body>
%s
</body></html>
`, html.EscapeString(filepath.Base(path)), svg)
	out := path + ".html"
	if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// maxFindings bounds the lines reported per page and width.
const maxFindings = 15

// TestPages renders every picture through the CLI and looks at it in
// Chromium at each width.
func TestPages(t *testing.T) {
	needBrowser(t)
	start := time.Now()
	pages := produce(t, t.TempDir())
	if len(pages) < 7 {
		t.Errorf("got %d pages, want the 2 HTML reports and at least 5 charts", len(pages))
	}
	arts := artefactDir(t)
	old, _ := filepath.Glob(filepath.Join(arts, "*.png"))
	for _, f := range old {
		os.Remove(f)
	}
	var gallery shots
	// The group returns when its parallel subtests have finished.
	t.Run("page", func(t *testing.T) {
		for _, p := range pages {
			t.Run(p.name, func(t *testing.T) {
				t.Parallel() // one tab each; the browser spreads them over its processes
				lookAtPage(t, tab(t), p, arts, &gallery)
			})
		}
	})
	for name := range knownBadPages {
		if !slices.ContainsFunc(pages, func(p page) bool { return p.name == name }) {
			t.Errorf("knownBadPages names %s, which no command wrote: remove it", name)
		}
	}
	if err := gallery.write(filepath.Join(arts, "index.html")); err != nil {
		t.Errorf("writing the screenshots' index: %v", err)
	}
	t.Logf("screenshots of %d pages at %v px: %s (%.1f s)", len(pages), widths, arts, time.Since(start).Seconds())
}

// lookAtPage loads the page at each width, saves a screenshot and reports
// what the checks find: as failures, or as log lines for a known bad page.
func lookAtPage(t *testing.T, ctx context.Context, p page, arts string, gallery *shots) {
	t.Helper()
	why, known := knownBadPages[p.name]
	clean := true
	for i, w := range widths {
		l, png, err := look(ctx, p.url, w, i == 0)
		if err != nil {
			t.Fatalf("%s at %d px: %v", p.name, w, err)
		}
		shotPath := filepath.Join(arts, fmt.Sprintf("%s-%d.png", p.name, w))
		if err := os.WriteFile(shotPath, png, 0o644); err != nil {
			t.Fatal(err)
		}
		bad := check(l, w, checkOptions{html: p.html})
		gallery.add(shot{page: p.name, width: w, file: filepath.Base(shotPath), findings: bad, known: why})
		if len(bad) == 0 {
			continue
		}
		clean = false
		msg := report(p.name, w, bad)
		if known {
			t.Logf("known bad page (%s), not failing:\n%s\n(screenshot: %s)", why, msg, shotPath)
		} else {
			t.Errorf("%s\n(screenshot: %s)", msg, shotPath)
		}
	}
	if known && clean {
		t.Errorf("%s passes every check now: remove it from knownBadPages so that a regression fails", p.name)
	}
}

// report formats a page's findings at one width, at most maxFindings lines.
func report(name string, width int, bad []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %d px: %d problem(s)", name, width, len(bad))
	for i, s := range bad {
		if i == maxFindings {
			fmt.Fprintf(&b, "\n  ... and %d more", len(bad)-maxFindings)
			break
		}
		b.WriteString("\n  " + s)
	}
	return b.String()
}
