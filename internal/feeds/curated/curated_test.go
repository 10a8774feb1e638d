package curated

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
