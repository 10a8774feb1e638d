package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// racePatterns reads RACE_PKGS, the packages scripts/test.sh tests under
// the race detector, as paths from the module root ("internal/agent/..."
// covers the subpackages).
func racePatterns(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../scripts/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\nRACE_PKGS="([^"]*)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal(`scripts/test.sh: no RACE_PKGS="..." line`)
	}
	var pats []string
	for _, f := range strings.Fields(string(m[1])) {
		f, _, _ = strings.Cut(f, ":") // PKG:REGEXP: some of its tests
		pats = append(pats, strings.TrimPrefix(f, "./"))
	}
	return pats
}

func raceCovers(pats []string, dir string) bool {
	for _, p := range pats {
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			if dir == base || strings.HasPrefix(dir, base+"/") {
				return true
			}
		} else if dir == p {
			return true
		}
	}
	return false
}

// startsGoroutines reports whether a non-test file of dir starts a
// goroutine: a go statement, or a call of a method named Go
// (sync.WaitGroup.Go, errgroup.Group.Go).
func startsGoroutines(t *testing.T, dir string) bool {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				found = true
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// Every package whose own code starts goroutines has its tests run under
// the race detector; the rest run without it (scripts/test.sh RACE_PKGS).
func TestRaceListCoversGoroutines(t *testing.T) {
	pats := racePatterns(t)
	var missing []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, "../"))
		if n := d.Name(); path != ".." && (n == "testdata" || strings.HasPrefix(n, ".") || n == "node_modules") {
			return filepath.SkipDir
		}
		if !strings.HasPrefix(rel, "internal") && !strings.HasPrefix(rel, "cmd") && !strings.HasPrefix(rel, "scripts") {
			if path != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		if startsGoroutines(t, path) && !raceCovers(pats, rel) {
			missing = append(missing, "./"+rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("these packages start goroutines but scripts/test.sh does not test them under the race detector: add them to RACE_PKGS: %s", strings.Join(missing, " "))
	}
	// Every pattern names a package directory that exists.
	for _, p := range pats {
		dir := "../" + strings.TrimSuffix(p, "/...")
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			t.Errorf("RACE_PKGS names %s, which is not a directory", p)
		}
	}
	if !slices.Contains(pats, "internal/server") {
		t.Error("RACE_PKGS lost ./internal/server, whose handlers serve concurrently")
	}
}

// The detector of goroutine starts finds them (a check of the check).
func TestStartsGoroutinesFinds(t *testing.T) {
	if !startsGoroutines(t, "agent") {
		t.Error("internal/agent starts goroutines (Serve) but was not found")
	}
	if startsGoroutines(t, "money") {
		t.Error("internal/money starts none but was found to")
	}
}
