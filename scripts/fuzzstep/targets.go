package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Target is one fuzz function: the package folder it lives in, relative to
// the module root ("internal/spot"), and its name ("FuzzParseTrace").
type Target struct {
	Dir  string
	Name string
}

func (t Target) String() string { return "./" + t.Dir + ":" + t.Name }

// Package is the target's package as go test takes it.
func (t Target) Package() string { return "./" + filepath.ToSlash(t.Dir) }

// CorpusDir is where go test writes the target's reproducers.
func (t Target) CorpusDir(root string) string {
	return filepath.Join(root, t.Dir, "testdata", "fuzz", t.Name)
}

// Discover finds every fuzz target under root: each top-level
// `func FuzzX(f *testing.F)` in a _test.go file, so a new parser's target
// runs without anyone listing it. It skips testdata, vendor and hidden
// folders, as go does; the result is sorted by folder and name.
func Discover(root string) ([]Target, error) {
	var out []Target
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && isFuzzFunc(fn) {
				out = append(out, Target{Dir: filepath.ToSlash(rel), Name: fn.Name.Name})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Dir != out[j].Dir {
			return out[i].Dir < out[j].Dir
		}
		return out[i].Name < out[j].Name
	})
	return out, err
}

// isFuzzFunc is go test's rule: a function (no receiver) named Fuzz or
// FuzzX with X not starting in lower case, taking one *testing.F.
func isFuzzFunc(fn *ast.FuncDecl) bool {
	name := fn.Name.Name
	if fn.Recv != nil || !strings.HasPrefix(name, "Fuzz") {
		return false
	}
	if rest := name[len("Fuzz"):]; rest != "" && rest[0] >= 'a' && rest[0] <= 'z' {
		return false
	}
	params := fn.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "F"
}
