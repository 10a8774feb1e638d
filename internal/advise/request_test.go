package advise

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Request.Validate: each bound named with its flag, the value and what is allowed.
func TestRequestValidate(t *testing.T) {
	a := advisor(t, money.USD)
	for _, tc := range []struct {
		name string
		edit func(*Request)
		want string
	}{
		{"a job", func(r *Request) { r.WorkGPUHours = 672 }, ""},
		{"a steady load", func(r *Request) { r.HoursPerMonth = 730 }, ""},
		{"no size", func(r *Request) {}, "--hours-per-month 0: want 1 minute (0.0167 h) to 730 h"},
		{"peak", func(r *Request) { r.Bursty, r.Base, r.Peak, r.PeakHours = true, 2, 1e9, 120 }, "--peak <= 100000"},
		{"base 0", func(r *Request) { r.Bursty, r.Base, r.Peak, r.PeakHours = true, 0, 8, 120 }, "--base 0"},
		{"peak hours", func(r *Request) { r.Bursty, r.Base, r.Peak, r.PeakHours = true, 1, 8, 800 }, "--peak-hours 800: want 1 minute (0.0167 h) to 730 h"},
		{"work", func(r *Request) { r.WorkGPUHours = 1e12 }, "want at most 1e+09"},
		{"deadline on a load", func(r *Request) { r.HoursPerMonth, r.Deadline = 730, 24 }, "--deadline applies to a job"},
		{"negative deadline", func(r *Request) { r.WorkGPUHours, r.Deadline = 10, -1 }, "--deadline -1 h"},
		{"objective", func(r *Request) { r.WorkGPUHours, r.Objective = 10, "fun" }, `--objective "fun"`},
		{"max nodes", func(r *Request) { r.WorkGPUHours, r.MaxNodes = 10, 20000 }, "--max-nodes 20000: want 1 to 10000"},
		{"spot band", func(r *Request) { r.WorkGPUHours, r.Usage.Spot.Band = 10, "200%" }, `--spot-band "200%"`},
		{"ref count", func(r *Request) { r.WorkGPUHours, r.RefCount = 10, 2e5 }, "want a count in (0, 100000]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := request(t, a, "cv-training", "A100-SXM4-40GB")
			tc.edit(r)
			r.Defaults()
			err := r.Validate()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// advise imports, of gpuscout's packages, only the layers below it; the
// schemas it reads and writes import at most catalog and money.
func TestImportLayering(t *testing.T) {
	allowed := map[string][]string{
		".":              {"cost", "spot", "catalog", "money", "benchreport", "plandoc", "agentconfig", "models"},
		"../benchreport": {"catalog", "money", "jsonfields"},
		"../agentconfig": {"catalog", "money", "yamlfields"},
	}
	const prefix = "github.com/gpuscout/gpuscout/internal/"
	for dir, ok := range allowed {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				if !strings.HasPrefix(p, prefix) {
					continue
				}
				name := strings.TrimPrefix(p, prefix)
				good := false
				for _, a := range ok {
					good = good || name == a
				}
				if !good {
					t.Errorf("%s imports %s; allowed: %v", f, name, ok)
				}
			}
		}
	}
}
