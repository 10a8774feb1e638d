package server

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/server/dashboard"
)

// An upload through the API that creates a document invalidates the
// dashboard's cached pages: the next page shows the new report at once,
// although the cache's TTL is an hour.
func TestUploadInvalidatesDashboardCache(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.ReadOpen = true
		c.Dashboard = dashboard.New(dashboard.Config{Store: c.Store, Catalog: c.Catalog, CacheTTL: time.Hour})
	})
	page := func() string {
		t.Helper()
		w := f.do(t, "GET", "/reports", "", nil)
		if w.Code != 200 {
			t.Fatalf("GET /reports: status %d", w.Code)
		}
		return w.Body.String()
	}
	if b := page(); strings.Contains(b, "node-7") {
		t.Fatalf("GET /reports before any upload shows node-7")
	}
	page() // now cached
	if w := f.do(t, "POST", "/api/v1/reports?kind=bench", f.write, reportWith(t, "node-7")); w.Code != 201 {
		t.Fatalf("upload: status %d %s, want 201", w.Code, w.Body)
	}
	if b := page(); !strings.Contains(b, "node-7") {
		t.Errorf("GET /reports after the upload: the new report from node-7 is not listed")
	}
}
