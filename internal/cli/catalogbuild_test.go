package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// TestCatalogBuildRefusesMalformedFeed: a truncated source file stops the
// build with the file, its line and what is wrong (exit 2), and the catalog
// folder keeps its files byte for byte.
func TestCatalogBuildRefusesMalformedFeed(t *testing.T) {
	shared := shareddata.Dir(t)
	root := shareddata.ModuleRoot(t)
	// The shared data as symlinks, but for one truncated file.
	bad := "price-sources/aws-capacity-blocks-pricing.json"
	tree := t.TempDir()
	err := filepath.WalkDir(shared, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(shared, path)
		dst := filepath.Join(tree, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case filepath.ToSlash(rel) == bad:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b[:3000], 0o644)
		}
		return os.Symlink(path, dst)
	})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	before := map[string][]byte{}
	entries, err := os.ReadDir(filepath.Join(root, "internal", "catalog", "data"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(root, "internal", "catalog", "data", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		before[e.Name()] = b
		if err := os.WriteFile(filepath.Join(out, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, code := run(t, "catalog", "build", "--shared", tree, "--curated", filepath.Join(root, "data", "curated"), "--out", out)
	if code != ExitUsage || !strings.Contains(errOut, bad+": line 100: p6-b200.48xlarge pricing row: unexpected EOF") || !strings.Contains(errOut, "is unchanged") {
		t.Errorf("exit %d, stderr %q; want 2 naming the file, line 100 and the truncation", code, errOut)
	}
	for name, b := range before {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s changed after a refused build (%v)", name, err)
		}
	}
}
