package registry

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

const module = "github.com/gpuscout/gpuscout/"

// Every registered feed has a unique id, runs the conformance suite in its
// own tests and has a fuzz target for its parser.
func TestEveryFeedIsConformanceTestedAndFuzzed(t *testing.T) {
	root := shareddata.ModuleRoot(t)
	ids := map[string]bool{}
	for _, s := range Sources() {
		if ids[s.ID()] {
			t.Errorf("feed id %q registered twice", s.ID())
		}
		ids[s.ID()] = true
		if Lookup(s.ID()) == nil {
			t.Errorf("Lookup(%q) = nil", s.ID())
		}
		typ := reflect.TypeOf(s)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		dir := filepath.Join(root, strings.TrimPrefix(typ.PkgPath(), module))
		tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, p := range tests {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			all.Write(b)
		}
		src := all.String()
		if !strings.Contains(src, "feedstest.Run(") {
			t.Errorf("feed %s (%s): no test calls feedstest.Run", s.ID(), dir)
		}
		if !strings.Contains(src, "\nfunc Fuzz") {
			t.Errorf("feed %s (%s): no fuzz target", s.ID(), dir)
		}
	}
	if Lookup("no-such-feed") != nil {
		t.Error("Lookup of an unknown id returned a feed")
	}
}
