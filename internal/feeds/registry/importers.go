package registry

import (
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/alibabaecs"
	"github.com/gpuscout/gpuscout/internal/feeds/awsprices"
	"github.com/gpuscout/gpuscout/internal/feeds/azureretail"
	"github.com/gpuscout/gpuscout/internal/feeds/gcpbilling"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentcvm"
)

// Importers returns the live price importers `gpuscout catalog refresh`
// runs, one per provider feed, each also reading its offline formats
// (`catalog refresh --from-file F --format X`). A provider's importer is one
// line here.
func Importers() []feeds.Importer {
	return []feeds.Importer{
		alibabaecs.New(),
		awsprices.New(),
		azureretail.New(),
		gcpbilling.New(nil), // the refresh passes the catalog's GCP machine shapes (feeds.SpecTaker)
		tencentcvm.New(),
	}
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
