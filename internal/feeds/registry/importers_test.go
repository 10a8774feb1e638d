package registry

import (
	"reflect"
	"testing"
)

// TestImportersDistinct: one importer per provider, and each --format name
// belongs to one importer only, so `catalog refresh --format X` is unambiguous.
func TestImportersDistinct(t *testing.T) {
	providers, formats := map[string]bool{}, map[string]string{}
	for _, im := range Importers() {
		p := im.Provider()
		if p == "" || providers[p] {
			t.Errorf("importer provider %q is empty or registered twice", p)
		}
		providers[p] = true
		if got := ImporterFor(p); got == nil || got.Provider() != p || !reflect.DeepEqual(got.Formats(), im.Formats()) {
			t.Errorf("ImporterFor(%q) is not the registered importer", p)
		}
		if len(im.Formats()) == 0 {
			t.Errorf("%s: no offline format", p)
		}
		for _, f := range im.Formats() {
			if f.Name == "" || f.Title == "" {
				t.Errorf("%s: format %+v needs a name and a title", p, f)
			}
			if other, dup := formats[f.Name]; dup {
				t.Errorf("format %q is read by both %s and %s", f.Name, other, p)
			}
			formats[f.Name] = p
		}
	}
	if ImporterFor("no-such-provider") != nil {
		t.Error("ImporterFor(no-such-provider) != nil")
	}
}
