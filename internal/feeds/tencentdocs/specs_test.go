package tencentdocs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentdocs"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// TestCuratedSpecsAgreeWithThePricePages: every type the feed prices has a
// spec in data/curated/tencent.yaml (a spec-only file), and the GPUs,
// vCPUs and memory there are what the price pages state of the type.
func TestCuratedSpecsAgreeWithThePricePages(t *testing.T) {
	fh, err := os.Open(filepath.Join(shareddata.ModuleRoot(t), "data", "curated", "tencent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	cf, err := curated.Parse(fh)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range cf.Instances {
		if len(in.Offers) > 0 {
			t.Errorf("tencent.yaml %s: an offer in the spec-only file (the feed gives the offers)", in.Type)
		}
	}
	spec := func(typ string) *curated.Instance {
		t.Helper()
		in := cf.Instance(typ)
		if in == nil {
			t.Errorf("%s: priced by the feed, no spec in tencent.yaml", typ)
		}
		return in
	}
	list, err := tencentdocs.ParseList(shareddata.Open(t, files.List.Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if in := spec(r.InstanceType); in != nil && in.GPUCount != r.GPUCount {
			t.Errorf("%s: %v GPUs in tencent.yaml, %v (%s) on the China-site list", r.InstanceType, in.GPUCount, r.GPUCount, r.GPU)
		}
	}
	cvm, err := tencentdocs.ParseCVMPage(shareddata.Open(t, files.CVM.Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cvm {
		if !r.GPU() {
			continue
		}
		if in := spec(r.InstanceType); in != nil && (in.VCPUs != float64(r.VCPUs) || in.MemoryGiB != r.MemoryGB.InexactFloat64()) {
			t.Errorf("%s: %v vCPUs, %v GB in tencent.yaml; the CVM page (line %d) %d, %s", r.InstanceType, in.VCPUs, in.MemoryGiB, r.Line, r.VCPUs, r.MemoryGB)
		}
	}
	ov, err := tencentdocs.ParseOverview(shareddata.Open(t, files.Overview.Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ov.Rows {
		in := spec(r.InstanceType)
		if in == nil {
			continue
		}
		if in.GPUCount != r.GPUCount || in.VCPUs != float64(r.VCPUs) || in.MemoryGiB != float64(r.MemoryGB) {
			t.Errorf("%s: %v GPUs, %v vCPUs, %v GB in tencent.yaml; the GPU overview (line %d) %v, %d, %d", r.InstanceType, in.GPUCount, in.VCPUs, in.MemoryGiB, r.Line, r.GPUCount, r.VCPUs, r.MemoryGB)
		}
		// The overview states GPU memory per instance; a slice's is its own.
		if in.GPUCount < 1 && in.GPUMemoryGiB != float64(r.GPUMemoryGB) {
			t.Errorf("%s: %v GiB per slice in tencent.yaml; the GPU overview %d GB", r.InstanceType, in.GPUMemoryGiB, r.GPUMemoryGB)
		}
	}
}
