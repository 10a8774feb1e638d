package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Every gpuscout call runs every package's initialisation before main, so
// nothing in ours compiles a regular expression or parses a template
// there: a package-level variable that needs one is a sync.OnceValue (or
// is built in a function), paid for by the command that uses it.
func TestNoRegexpOrTemplateAtInit(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() && (strings.HasSuffix(d.Name(), "test") || d.Name() == "browsercheck") {
			return filepath.SkipDir // helpers only tests import: not in the binary
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil // a program of its own (bench/gpucheck), not gpuscout's
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					ast.Inspect(v, func(n ast.Node) bool {
						if _, lit := n.(*ast.FuncLit); lit {
							return false // runs when called, not at init
						}
						call, ok := n.(*ast.CallExpr)
						if !ok {
							return true
						}
						sel, ok := call.Fun.(*ast.SelectorExpr)
						if !ok {
							return true
						}
						pkg, ok := sel.X.(*ast.Ident)
						if !ok {
							return true
						}
						switch {
						case pkg.Name == "regexp" && strings.HasPrefix(sel.Sel.Name, "MustCompile"), pkg.Name == "regexp" && sel.Sel.Name == "Compile",
							strings.HasSuffix(pkg.Name, "template") && (sel.Sel.Name == "Must" || sel.Sel.Name == "New"):
							t.Errorf("%s: a package-level variable calls %s.%s at start-up; make it a sync.OnceValue", fset.Position(call.Pos()), pkg.Name, sel.Sel.Name)
						}
						return true
					})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
