package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// offerRow is the -o json row of offers for the type and region.
func offerRow(t *testing.T, provider, gpu, typ, region string) map[string]any {
	t.Helper()
	out, errOut, code := run(t, "offers", "--provider", provider, "--gpu", gpu, "--all-regions", "-o", "json")
	if code != 0 {
		t.Fatalf("offers: exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r["instance_type"] == typ && r["region"] == region {
			return r
		}
	}
	t.Fatalf("offers lists no %s in %s", typ, region)
	return nil
}

// TestRefreshGCPBilling: the recorded Cloud Billing page, offline and from a
// fake API, priced for the catalog's a2-highgpu-8g: 8 × 2.933908 + 96 ×
// 0.031611 + 680 × 0.004237 = 29.38708 per hour.
func TestRefreshGCPBilling(t *testing.T) {
	file := filepath.Join(shareddata.Dir(t), "price-feeds", "gcp-catalog-skus.json")
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(usercatalog.EnvDir, t.TempDir())
	out, errOut, code := run(t, "catalog", "refresh", "--from-file", file, "--format", "gcp-skus")
	if code != 0 {
		t.Fatalf("refresh --from-file: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `price in "IDR", expected USD`) {
		t.Errorf("refresh output does not count the IDR SKUs left out:\n%s", out)
	}
	row := offerRow(t, "gcp", "A100-SXM4-40GB", "a2-highgpu-8g", "us-east1")
	if row["price_per_hour"] != 29.38708 || !strings.HasPrefix(row["price_source"].(string), "file:gcp-catalog-skus.json@") {
		t.Errorf("offline refresh: row %v, want 29.38708 from file:gcp-catalog-skus.json", row)
	}

	page := []byte(strings.Replace(string(body), `"nextPageToken"`, `"recordedNextPageToken"`, 1))
	var key string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key = r.Header.Get("X-Goog-Api-Key")
		_, _ = w.Write(page) // the recorded page as the last one
	}))
	t.Cleanup(srv.Close)
	t.Setenv(usercatalog.EnvDir, t.TempDir())
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GCP_API_KEY", "")
	if _, errOut, code := run(t, "catalog", "refresh", "--provider", "gcp", "--endpoint", srv.URL); code != 2 || !strings.Contains(errOut, "GOOGLE_API_KEY") {
		t.Errorf("no key: exit %d, %q: want 2 naming GOOGLE_API_KEY", code, errOut)
	}
	t.Setenv("GOOGLE_API_KEY", "test-key-42")
	out, errOut, code = run(t, "catalog", "refresh", "--provider", "gcp", "--region", "us-central1", "--endpoint", srv.URL)
	if code != 0 {
		t.Fatalf("refresh --provider gcp: exit %d: %s", code, errOut)
	}
	if key != "test-key-42" || strings.Contains(out+errOut, "test-key-42") {
		t.Errorf("key sent %q; output shows it: %v", key, strings.Contains(out+errOut, "test-key-42"))
	}
	row = offerRow(t, "gcp", "A100-SXM4-40GB", "a2-highgpu-8g", "us-central1")
	if row["price_per_hour"] != 29.38708 || !strings.HasPrefix(row["price_source"].(string), "gcp-billing-catalog@") {
		t.Errorf("live refresh: row %v, want 29.38708 from gcp-billing-catalog", row)
	}
}

// TestRefreshAzureRetail: the ND fixture (the catalog's sourced eastus
// prices), offline and from a fake Retail Prices API.
func TestRefreshAzureRetail(t *testing.T) {
	file := filepath.Join("..", "feeds", "azureretail", "testdata", "azure-retail-nd-eastus.json")
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(usercatalog.EnvDir, t.TempDir())
	if _, errOut, code := run(t, "catalog", "refresh", "--from-file", file, "--format", "azure-retail", "--as-of", "2026-11-29"); code != 0 {
		t.Fatalf("refresh --from-file: exit %d: %s", code, errOut)
	}
	row := offerRow(t, "azure", "H100-SXM5-80GB", "Standard_ND96isr_H100_v5", "eastus")
	if row["price_per_hour"] != 98.32 || row["price_source"] != "file:azure-retail-nd-eastus.json@2026-11-29" || row["price_as_of"] != "2026-11-29" {
		t.Errorf("offline refresh: row %v, want 98.32 from the file, dated by --as-of 2026-11-29", row)
	}

	var filters []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		filters = append(filters, r.URL.Query().Get("$filter"))
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	t.Setenv(usercatalog.EnvDir, t.TempDir())
	if _, errOut, code := run(t, "catalog", "refresh", "--provider", "azure", "--region", "eastus", "--endpoint", srv.URL); code != 0 {
		t.Fatalf("refresh --provider azure: exit %d: %s", code, errOut)
	}
	if len(filters) != 1 || !strings.Contains(filters[0], "armRegionName eq 'eastus'") {
		t.Errorf("filters %q, want one page for eastus", filters)
	}
	row = offerRow(t, "azure", "A100-SXM4-40GB", "Standard_ND96asr_v4", "eastus")
	if row["price_per_hour"] != 27.197 || !strings.HasPrefix(row["price_source"].(string), "azure-retail-prices@") {
		t.Errorf("live refresh: row %v, want 27.197 from azure-retail-prices", row)
	}
}
