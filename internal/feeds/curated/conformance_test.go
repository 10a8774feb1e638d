package curated_test

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestConformance(t *testing.T) {
	dir := filepath.Join(shareddata.ModuleRoot(t), "data", "curated")
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no curated files in %s (%v)", dir, err)
	}
	rows := map[string]int{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Accelerators map[string]string `yaml:"accelerators"`
			Instances    []yaml.Node       `yaml:"instances"`
		}
		if err := yaml.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		rows[filepath.Base(p)] = len(f.Instances) + len(f.Accelerators)
	}
	feedstest.Run(t, registry.Lookup("curated"), feedstest.Want{Rows: rows})
}
