package feeds

// SpecTaker is implemented by an importer that needs the catalog's machine
// shapes: GCP's Cloud Billing Catalog prices a GPU, a vCPU and a GiB apart,
// so its importer sums them per machine type; Azure's keeps the catalog's
// GPU sizes. The refresh passes the catalog's specs of the importer's
// provider (instance type, GPU, GPU count, vCPUs, memory, local disk) and
// runs the importer WithSpecs returns; an importer imports nothing of the
// catalog itself.
type SpecTaker interface {
	WithSpecs(specs []Spec) Importer
}
