package registry

import (
	"reflect"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds/skypilot"
)

// TestImportersDistinct: one importer per provider, and each --format name
// belongs to one importer only, so `catalog refresh --format X` is
// unambiguous, unless every importer reading it marks it PerProvider (then
// --provider picks the importer).
func TestImportersDistinct(t *testing.T) {
	providers, formats, perProvider := map[string]bool{}, map[string]string{}, map[string]bool{}
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
			if other, dup := formats[f.Name]; dup && !(f.PerProvider && perProvider[f.Name]) {
				t.Errorf("format %q is read by both %s and %s, and not marked PerProvider by both", f.Name, other, p)
			}
			if _, dup := formats[f.Name]; !dup {
				perProvider[f.Name] = f.PerProvider
			}
			formats[f.Name] = p
		}
	}
	if ImporterFor("no-such-provider") != nil {
		t.Error("ImporterFor(no-such-provider) != nil")
	}
}

// TestSkyPilotImporters: the clouds the embedded build prices from SkyPilot's
// catalog, AWS apart (it has its own importer), each get a skypilot-csv
// importer with the build's options for the cloud (Vast: memory is the
// instance total, regions are "State, CC, Continent").
func TestSkyPilotImporters(t *testing.T) {
	got := map[string]skypilot.File{}
	for _, im := range Importers() {
		for _, f := range im.Formats() {
			if f.Name == skypilot.Format {
				got[im.Provider()] = im.(*skypilot.Importer).File
			}
		}
	}
	want := map[string]skypilot.File{
		"lambda": {Cloud: "lambda"}, "fluidstack": {Cloud: "fluidstack"}, "seeweb": {Cloud: "seeweb"}, "nebius": {Cloud: "nebius"},
		"vast": {Cloud: "vast", MemoryIsTotal: true, StateCountryContinent: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skypilot-csv importers = %+v\nwant %+v", got, want)
	}
}
