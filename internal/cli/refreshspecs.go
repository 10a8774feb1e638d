package cli

import (
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds"
)

// withCatalogSpecs gives an importer that needs the catalog's machine shapes
// (feeds.SpecTaker: GCP's prices are per GPU, vCPU and GiB, summed per
// machine type; Azure's are kept to the catalog's GPU sizes) the instance
// types the catalog lists for its provider, each once.
func withCatalogSpecs(base *catalog.Catalog, im feeds.Importer) feeds.Importer {
	st, ok := im.(feeds.SpecTaker)
	if !ok {
		return im
	}
	seen := map[string]bool{}
	var specs []feeds.Spec
	for i := range base.Offerings {
		o := &base.Offerings[i]
		if o.Provider != im.Provider() || seen[o.InstanceType] {
			continue
		}
		seen[o.InstanceType] = true
		s := feeds.Spec{Origin: "catalog", Provider: o.Provider, InstanceType: o.InstanceType, GPUMemoryGiB: o.GPUMemoryGiB,
			Machine: feeds.Machine{GPUCount: o.GPUCount, VCPUs: o.VCPUs, MemoryGiB: o.MemoryGiB, LocalDiskGB: o.LocalDiskGB}}
		if o.GPU != nil {
			s.GPU = o.GPU.Name
		}
		specs = append(specs, s)
	}
	return st.WithSpecs(specs)
}
