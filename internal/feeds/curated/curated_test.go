package curated

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestParseProjectFiles(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(shareddata.ModuleRoot(t), "data", "curated", "*.yaml"))
	if len(paths) < 5 {
		t.Fatalf("found %d curated files, want aws, gcp, azure, alibaba, tencent", len(paths))
	}
	for _, p := range paths {
		fh, _ := os.Open(p)
		f, err := Parse(fh)
		fh.Close()
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		// A file is named after its provider: PROVIDER.yaml, or
		// PROVIDER-PART.yaml where one provider's data is split (specs
		// in one file, unpriced offers in another).
		if base := filepath.Base(p); f.Provider+".yaml" != base && !strings.HasPrefix(base, f.Provider+"-") {
			t.Errorf("%s declares provider %q: name the file %s.yaml or %s-PART.yaml", p, f.Provider, f.Provider, f.Provider)
		}
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"no gpu":      {"provider: x\ninstances:\n  - {type: a, gpu_count: 1, vcpus: 1, memory_gib: 1}\n", "line 3"},
		"twice":       {"provider: x\ninstances:\n  - {type: a, gpu: T4, gpu_count: 1, vcpus: 1, memory_gib: 1}\n  - {type: a, gpu: T4, gpu_count: 1, vcpus: 1, memory_gib: 1}\n", "line 4"},
		"unsourced":   {"provider: x\ninstances:\n  - {type: a, gpu: T4, gpu_count: 1, vcpus: 1, memory_gib: 1, offers: [{region: r, price: 1}]}\n", "needs source"},
		"unknown key": {"provider: x\nbogus: 1\n", "bogus"},
	} {
		_, err := Parse(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("provider: x\ninstances:\n  - {type: a, gpu: T4, gpu_count: 1, vcpus: 1, memory_gib: 1, offers: [{region: r, price: 1, currency: USD, source: s, as_of: 2026-01-01}]}\n")
	f.Fuzz(func(t *testing.T, s string) {
		file, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, in := range file.Instances {
			if in.GPUCount <= 0 || in.Type == "" {
				t.Fatalf("invalid instance accepted: %+v", in)
			}
			for _, o := range in.Offers {
				if o.Price.Valid && !o.Price.Decimal.IsPositive() {
					t.Fatal("non-positive price accepted")
				}
			}
		}
	})
}

// An instance's own spec_source replaces the file's for that instance only.
func TestInstanceSpecSource(t *testing.T) {
	in := "provider: aws\nspec_source: file-src\ninstances:\n" +
		"  - {type: a, gpu: T4, gpu_count: 1, vcpus: 1, memory_gib: 1}\n" +
		"  - {type: b, gpu: T4, gpu_count: 1, vcpus: 1, memory_gib: 1, spec_source: page-src}\n"
	res, err := New("*.yaml").Read(feeds.Inputs{Curated: fstest.MapFS{"aws.yaml": {Data: []byte(in)}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range res.Specs {
		got[s.InstanceType] = s.SpecSource
	}
	if got["a"] != "file-src" || got["b"] != "page-src" {
		t.Errorf("spec sources %v, want a: file-src, b: page-src", got)
	}
}
