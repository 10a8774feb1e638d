package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/server/dashboard"
	"github.com/gpuscout/gpuscout/internal/store"
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

// queryCounter counts the store reads (queries) the dashboard makes.
type queryCounter struct {
	store.Store
	n atomic.Int64
}

func (s *queryCounter) GetDocument(ctx context.Context, id string) (*store.Document, error) {
	s.n.Add(1)
	return s.Store.GetDocument(ctx, id)
}

func (s *queryCounter) GetDocuments(ctx context.Context, ids []string) ([]store.Document, error) {
	s.n.Add(1)
	return s.Store.GetDocuments(ctx, ids)
}

func (s *queryCounter) ListDocuments(ctx context.Context, f store.Filter, withBody bool) ([]store.Document, error) {
	s.n.Add(1)
	return s.Store.ListDocuments(ctx, f, withBody)
}

func (s *queryCounter) CountDocuments(ctx context.Context, kind string) (int, error) {
	s.n.Add(1)
	return s.Store.CountDocuments(ctx, kind)
}

// Each kind of upload through the API makes stale exactly the dashboard
// pages that read that kind: after it, every page is what a dashboard
// without a cache renders (never stale); the pages that read the kind show
// the new document, the others are served from the cache (no store read).
func TestUploadInvalidatesOnlyThePagesOfItsKind(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	plan, err := os.ReadFile("dashboard/testdata/plan-a100.json")
	if err != nil {
		t.Fatal(err)
	}
	var planDoc map[string]any
	if err := json.Unmarshal(plan, &planDoc); err != nil {
		t.Fatal(err)
	}
	uploads := map[string]func(n int) []byte{
		store.KindBench: func(n int) []byte { return reportWith(t, fmt.Sprintf("node-%d", n)) },
		store.KindPlan: func(n int) []byte {
			planDoc["summary"] = []any{fmt.Sprintf("seed %d", n)} // a distinct document, within the schema
			b, _ := json.Marshal(planDoc)
			return b
		},
		store.KindAgent: func(n int) []byte {
			return fmt.Appendf(nil, `{"schema_version":1,"kind":"agent_hourly","hour_start":"2026-11-30T22:00:00Z","hour_end":"2026-11-30T23:00:00Z","host":"agent-%d","gpu":"L4","samples":%d,"gpu_utilization_mean":0.5,"gpu_utilization_max":1,"egress_bytes":0,"spend":null}`, n, 10+n)
		},
	}
	// What each page reads; a report's page and a comparison show
	// documents that never change.
	reads := map[string][]string{
		"/":            {store.KindBench, store.KindPlan, store.KindAgent},
		"/reports":     {store.KindBench},
		"/leaderboard": {store.KindBench},
		"/priceperf":   {store.KindBench},
		"/plans":       {store.KindPlan},
		"/agents":      {store.KindAgent},
	}
	for i, kind := range []string{store.KindBench, store.KindPlan, store.KindAgent} {
		t.Run(kind, func(t *testing.T) {
			var qc *queryCounter
			f := newFixture(t, func(c *Config) {
				c.ReadOpen, c.Now = true, now
				qc = &queryCounter{Store: c.Store}
				c.Dashboard = dashboard.New(dashboard.Config{Store: qc, Catalog: c.Catalog, Now: now, CacheTTL: time.Hour})
			})
			fresh := dashboard.New(dashboard.Config{Store: f.st, Catalog: f.srv.cfg.Catalog, Now: now, CacheTTL: -1})
			// One document of each kind first, then the report pages.
			var first string
			for j, k := range []string{store.KindBench, store.KindPlan, store.KindAgent} {
				w := f.do(t, "POST", "/api/v1/reports?kind="+k, f.write, uploads[k](100+j))
				if w.Code != 201 {
					t.Fatalf("upload %s: status %d %s", k, w.Code, w.Body)
				}
				if k == store.KindBench {
					var a struct{ ID string }
					decode(t, w, &a)
					first = a.ID
				}
			}
			reads["/reports/"+first] = nil
			reads["/compare?ids="+first] = nil
			before := map[string]string{}
			for path := range reads {
				f.do(t, "GET", path, "", nil)
				w := f.do(t, "GET", path, "", nil) // cached
				if w.Code != 200 {
					t.Fatalf("GET %s: status %d", path, w.Code)
				}
				before[path] = w.Body.String()
			}
			if w := f.do(t, "POST", "/api/v1/reports?kind="+kind, f.write, uploads[kind](i)); w.Code != 201 {
				t.Fatalf("upload %s: status %d %s", kind, w.Code, w.Body)
			}
			for path, kinds := range reads {
				n := qc.n.Load()
				got := f.do(t, "GET", path, "", nil).Body.String()
				queries := qc.n.Load() - n
				_, want := getFrom(t, fresh, path)
				if got != want {
					t.Errorf("GET %s after a %s upload: the page differs from a fresh render (stale)", path, kind)
				}
				if slices.Contains(kinds, kind) {
					if got == before[path] {
						t.Errorf("GET %s after a %s upload: the page did not change; the upload should show on it", path, kind)
					}
				} else if queries != 0 {
					t.Errorf("GET %s after a %s upload it does not read: %d store queries, want 0 (kept in the cache)", path, kind, queries)
				}
			}
		})
	}
}

// getFrom reads a page from a handler directly.
func getFrom(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w.Code, w.Body.String()
}
