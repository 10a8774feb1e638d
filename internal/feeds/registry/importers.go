package registry

import (
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/alibabaecs"
	"github.com/gpuscout/gpuscout/internal/feeds/awsprices"
	"github.com/gpuscout/gpuscout/internal/feeds/azureretail"
	"github.com/gpuscout/gpuscout/internal/feeds/gcpbilling"
	"github.com/gpuscout/gpuscout/internal/feeds/skypilot"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentcvm"
)

// Importers returns the live price importers `gpuscout catalog refresh`
// runs, one per provider feed, each also reading its offline formats
// (`catalog refresh --from-file F --format X`). A provider's importer is one
// line here; the clouds priced from SkyPilot's catalog follow, one importer
// each (format skypilot-csv), from the embedded build's files of them.
func Importers() []feeds.Importer {
	out := []feeds.Importer{
		alibabaecs.New(),
		awsprices.New(),
		azureretail.New(),
		gcpbilling.New(nil), // the refresh passes the catalog's GCP machine shapes (feeds.SpecTaker)
		tencentcvm.New(),
	}
	return append(out, skyPilotImporters(out)...)
}

// skyPilotImporters returns an importer of SkyPilot's hosted catalog for
// every cloud the embedded build reads from SkyPilot that has no importer
// of its own in own (AWS has), with the build's per-cloud options.
func skyPilotImporters(own []feeds.Importer) []feeds.Importer {
	var out []feeds.Importer
	for _, src := range Sources() {
		sp, ok := src.(*skypilot.Feed)
		if !ok {
			continue
		}
	files:
		for _, f := range sp.Files {
			for _, im := range own {
				if im.Provider() == f.Cloud {
					continue files
				}
			}
			out = append(out, skypilot.NewImporter(skypilot.File{Cloud: f.Cloud, MemoryIsTotal: f.MemoryIsTotal, StateCountryContinent: f.StateCountryContinent}))
		}
	}
	return out
}

// ImporterFor returns the registered importer of the provider (its catalog
// name), or nil.
func ImporterFor(provider string) feeds.Importer {
	for _, im := range Importers() {
		if im.Provider() == provider {
			return im
		}
	}
	return nil
}
