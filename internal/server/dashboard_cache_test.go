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
	"sync"
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

// uploadFixture is a server with a dashboard (an hour's page cache) over
// dstore (nil: the server's store), open reads and no rate limit to speak
// of.
func uploadFixture(t *testing.T, dstore func(store.Store) store.Store) *fixture {
	return newFixture(t, func(c *Config) {
		c.ReadOpen, c.RatePerToken = true, MaxRate
		st := c.Store
		if dstore != nil {
			st = dstore(st)
		}
		c.Dashboard = dashboard.New(dashboard.Config{Store: st, Catalog: c.Catalog, CacheTTL: time.Hour})
	})
}

// uploadBench uploads a bench report from the host and returns its ID.
func (f *fixture) uploadBench(t *testing.T, host string) string {
	t.Helper()
	w := f.do(t, "POST", "/api/v1/reports?kind=bench", f.write, reportWith(t, host))
	if w.Code != 201 {
		t.Errorf("upload from %s: status %d %s, want 201", host, w.Code, w.Body)
		return ""
	}
	var a struct{ ID string }
	decode(t, w, &a)
	return a.ID
}

// A bench upload adds its report to the reports the dashboard keeps: the
// leaderboard and price/performance show it without reading the store
// (today's 1000 reports are not listed again per upload), and are what a
// dashboard without a cache renders.
func TestBenchUploadUpdatesTheLeaderboardInMemory(t *testing.T) {
	var qc *queryCounter
	f := uploadFixture(t, func(st store.Store) store.Store { qc = &queryCounter{Store: st}; return qc })
	fresh := dashboard.New(dashboard.Config{Store: f.st, Catalog: f.srv.cfg.Catalog, CacheTTL: -1})
	f.uploadBench(t, "node-a")
	for _, path := range []string{"/leaderboard", "/priceperf"} {
		f.do(t, "GET", path, "", nil)
		f.do(t, "GET", path, "", nil) // read since rendered: refreshed by an upload
	}
	for i := range 3 {
		n := qc.n.Load()
		id := f.uploadBench(t, fmt.Sprintf("node-%d", i))
		for _, path := range []string{"/leaderboard", "/priceperf"} {
			w := f.do(t, "GET", path, "", nil)
			if _, want := getFrom(t, fresh, path); w.Body.String() != want {
				t.Errorf("GET %s after upload %d: not what a dashboard without a cache renders", path, i)
			}
			if path == "/leaderboard" && !strings.Contains(w.Body.String(), id[:12]) {
				t.Errorf("GET /leaderboard after upload %d: report %s not shown", i, id[:12])
			}
		}
		if got := qc.n.Load() - n; got != 0 {
			t.Errorf("upload %d and the pages after it: %d store queries by the dashboard, want 0 (the report added in memory)", i, got)
		}
	}
}

// gatedStore holds the dashboard's listings while closed: the first held
// says so on entered.
type gatedStore struct {
	store.Store
	mu      sync.Mutex
	gate    chan struct{} // nil: open
	entered chan struct{}
}

func (s *gatedStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate, s.entered = make(chan struct{}), make(chan struct{})
}

func (s *gatedStore) open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.gate)
	s.gate = nil
}

func (s *gatedStore) ListDocuments(ctx context.Context, f store.Filter, withBody bool) ([]store.Document, error) {
	s.mu.Lock()
	gate, entered := s.gate, s.entered
	if gate != nil {
		select {
		case <-entered:
		default:
			close(entered)
		}
	}
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return s.Store.ListDocuments(ctx, f, withBody)
}

// While an upload's pages are rendered again, readers are served the page
// as it was (they never wait on a render an upload caused), and the upload
// is answered only once its pages show it: a read after the answer does.
func TestReadersDoNotWaitForAnUploadsRender(t *testing.T) {
	gs := &gatedStore{}
	f := uploadFixture(t, func(st store.Store) store.Store { gs.Store = st; return gs })
	f.uploadBench(t, "node-old")
	f.do(t, "GET", "/reports", "", nil)
	f.do(t, "GET", "/reports", "", nil) // cached, and read since
	gs.close()
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- f.do(t, "POST", "/api/v1/reports?kind=bench", f.write, reportWith(t, "node-new")) }()
	select {
	case <-gs.entered: // the upload's render of /reports reached the store
	case w := <-done:
		gs.open()
		t.Fatalf("the upload was answered (%d) before /reports was rendered with it", w.Code)
	case <-time.After(10 * time.Second):
		gs.open()
		t.Fatalf("the upload did not render /reports again")
	}
	read := make(chan string, 1)
	go func() { read <- f.do(t, "GET", "/reports", "", nil).Body.String() }()
	select {
	case b := <-read:
		if !strings.Contains(b, "node-old") || strings.Contains(b, "node-new") {
			t.Errorf("GET /reports during the upload's render: want the page as it was before the upload")
		}
	case <-time.After(5 * time.Second):
		gs.open()
		t.Fatalf("GET /reports during the upload's render waited for it")
	}
	select {
	case w := <-done:
		t.Errorf("the upload was answered (%d) while its page was being rendered", w.Code)
	default:
	}
	gs.open()
	if w := <-done; w.Code != 201 {
		t.Fatalf("upload: status %d %s", w.Code, w.Body)
	}
	if b := f.do(t, "GET", "/reports", "", nil).Body.String(); !strings.Contains(b, "node-new") {
		t.Errorf("GET /reports after the upload was answered: the new report is not listed")
	}
}

// Linearisable reads: with readers and an uploader at once, every page
// read that began after an upload was answered shows that upload (the
// uploader's own next read included); a read concurrent with it may or may
// not.
func TestAReadAfterAnUploadIsAnsweredShowsIt(t *testing.T) {
	f := uploadFixture(t, nil)
	const uploads = 30
	var (
		reads atomic.Int64
		mu    sync.Mutex
		acked []string // IDs of the answered uploads, in order
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	// check says what a page read that began when acked held ids lacks.
	check := func(path, body string, ids []string) string {
		if path == "/" {
			var n int
			if i := strings.Index(body, "Bench reports: "); i >= 0 {
				fmt.Sscanf(body[i:], "Bench reports: %d", &n)
			}
			if n < len(ids) {
				return fmt.Sprintf("%d bench reports counted, %d uploads answered before the read", n, len(ids))
			}
			return ""
		}
		for _, id := range ids {
			if !strings.Contains(body, id[:12]) {
				return "report " + id[:12] + ", answered before the read, is not shown"
			}
		}
		return ""
	}
	pages := []string{"/leaderboard", "/reports", "/"}
	for r := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				path := pages[(r+i)%len(pages)]
				mu.Lock()
				ids := slices.Clone(acked)
				mu.Unlock()
				reads.Add(1)
				b := f.do(t, "GET", path, "", nil).Body.String()
				if msg := check(path, b, ids); msg != "" {
					t.Errorf("GET %s: %s", path, msg)
					return
				}
			}
		})
	}
	for i := range uploads {
		id := f.uploadBench(t, fmt.Sprintf("node-%d", i))
		if id == "" {
			break
		}
		mu.Lock()
		acked = append(acked, id)
		ids := slices.Clone(acked)
		mu.Unlock()
		// The uploader's own next reads; the pages only it reads, now and
		// then, are cached but not read since some uploads (an upload
		// renders again only the pages read since their last render).
		mine := pages
		if i%3 == 0 {
			mine = append(slices.Clone(pages), "/leaderboard?page=1", "/reports?page=1")
		}
		for _, path := range mine {
			if msg := check(path, f.do(t, "GET", path, "", nil).Body.String(), ids); msg != "" {
				t.Errorf("upload %d, then GET %s: %s", i, path, msg)
			}
		}
	}
	close(stop)
	wg.Wait()
	if reads.Load() < uploads {
		t.Errorf("only %d reads beside %d uploads: the test did not read concurrently", reads.Load(), uploads)
	}
}
