package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// TestRefreshKeepsKindsTheFeedLacks: the recorded GCP SKU page has no
// Preemptible SKU of the A2 shapes, so a refresh from it prices a2-highgpu-8g
// on demand and leaves its embedded spot price (Cyclenerd's) in place, each
// with its own source and date; nothing is "no longer priced".
func TestRefreshKeepsKindsTheFeedLacks(t *testing.T) {
	t.Setenv(usercatalog.EnvDir, t.TempDir())
	file := filepath.Join(shareddata.Dir(t), "price-feeds", "gcp-catalog-skus.json")
	out, errOut, code := run(t, "catalog", "refresh", "--from-file", file, "--format", "gcp-skus")
	if code != 0 {
		t.Fatalf("refresh: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, " 0 no longer priced.") {
		t.Errorf("the refresh unprices something:\n%s", out)
	}
	row := offerRow(t, "gcp", "A100-SXM4-40GB", "a2-highgpu-8g", "us-central1")
	for k, want := range map[string]any{
		"price_per_hour": 29.38708, "spot_price_per_hour": 15.42416,
		"spot_source": "cyclenerd-gcp@2026-07-30", "spot_as_of": "2026-07-30",
	} {
		if row[k] != want {
			t.Errorf("%s = %v, want %v", k, row[k], want)
		}
	}
	// Dated by the file's own data: its SKUs' latest effectiveTime, 2023-08-10.
	if src := row["price_source"]; src != "file:gcp-catalog-skus.json@2023-08-10" || row["price_as_of"] != "2023-08-10" {
		t.Errorf("on-demand from %v as of %v, want file:gcp-catalog-skus.json@2023-08-10", src, row["price_as_of"])
	}
	if !strings.Contains(out, "Prices dated 2023-08-10: the file's own date") {
		t.Errorf("the refresh does not say how it dated the file:\n%s", out)
	}
}
