package dashboard

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

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/store"
)

// countingStore counts the document reads the pages make; block, when not
// nil, holds each read until it is closed.
type countingStore struct {
	store.Store
	reads atomic.Int64
	block chan struct{}
}

func (s *countingStore) wait() {
	if s.block != nil {
		<-s.block
	}
}

func (s *countingStore) GetDocument(ctx context.Context, id string) (*store.Document, error) {
	s.reads.Add(1)
	s.wait()
	return s.Store.GetDocument(ctx, id)
}

func (s *countingStore) GetDocuments(ctx context.Context, ids []string) ([]store.Document, error) {
	s.reads.Add(1)
	s.wait()
	return s.Store.GetDocuments(ctx, ids)
}

func (s *countingStore) CountDocuments(ctx context.Context, kind string) (int, error) {
	s.reads.Add(1)
	s.wait()
	return s.Store.CountDocuments(ctx, kind)
}

func (s *countingStore) ListDocuments(ctx context.Context, f store.Filter, withBody bool) ([]store.Document, error) {
	s.reads.Add(1)
	s.wait()
	return s.Store.ListDocuments(ctx, f, withBody)
}

// clock is a fake clock tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// cachedFixture is the fixture's store behind a counter, under a fake clock.
func cachedFixture(t *testing.T, ttl time.Duration) (*fixture, *countingStore, *clock, *Handler) {
	t.Helper()
	f := newFixture(t)
	cs := &countingStore{Store: f.st}
	clk := &clock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: cs, Catalog: cat, Now: clk.Now, CacheTTL: ttl})
	f.h = h
	return f, cs, clk, h
}

// storePages are the pages built from the store.
func (f *fixture) storePages() []string {
	return []string{"/", "/reports", "/reports/" + f.onAWS, "/compare?ids=" + f.plain + "," + f.onAWS, "/leaderboard", "/priceperf", "/plans", "/agents"}
}

// pageReads is, for each page built from the store, the kinds of document
// whose upload changes it: what InvalidateKind must make stale. A page of
// one report, or a comparison, shows documents that never change.
func (f *fixture) pageReads() map[string][]string {
	return map[string][]string{
		"/":                   {store.KindBench, store.KindPlan, store.KindAgent},
		"/reports":            {store.KindBench},
		"/leaderboard":        {store.KindBench},
		"/priceperf":          {store.KindBench},
		"/plans":              {store.KindPlan},
		"/agents":             {store.KindAgent},
		"/reports/" + f.onAWS: nil,
		"/compare?ids=" + f.plain + "," + f.onAWS: nil,
	}
}

// newDoc is a document of the kind that every page reading that kind
// shows: a bench report priced on another offering, a plan, an agent
// summary; n makes it distinct.
func newDoc(t *testing.T, kind string, n int) []byte {
	t.Helper()
	switch kind {
	case store.KindBench:
		var doc map[string]any
		if err := json.Unmarshal(must(t, "../../cli/testdata/bench-h200-v1.json"), &doc); err != nil {
			t.Fatal(err)
		}
		doc["cloud"] = map[string]any{"provider": "aws", "instance_type": "p5en.48xlarge", "region": "us-west-2", "zone": "", "matched_offering": "aws/p5en.48xlarge/us-west-2"}
		doc["host"].(map[string]any)["hostname"] = fmt.Sprintf("node-new-%d", n)
		b, _ := json.Marshal(doc)
		return b
	case store.KindPlan:
		var plan map[string]any
		if err := json.Unmarshal(planJSON(t), &plan); err != nil {
			t.Fatal(err)
		}
		plan["seed"] = n
		b, _ := json.Marshal(plan)
		return b
	default:
		return fmt.Appendf(nil, `{"hour_start":"2026-11-30T22:00:00Z","hour_end":"2026-11-30T23:00:00Z","host":"agent-node-%d","provider":"aws","instance_type":"p5en.48xlarge","region":"us-east-1","gpu":"H200-SXM-141GB","samples":60,"gpu_utilization_mean":%d,"egress_bytes":1e9}`, n, 40+n)
	}
}

// An upload of a kind makes stale exactly the pages that read that kind:
// after it, every page built from the store is what a dashboard without a
// cache renders (never stale), the pages that read the kind show the new
// document (they changed), and the others are served from the cache (no
// store read).
func TestInvalidateKindDropsOnlyThePagesOfTheKind(t *testing.T) {
	for i, kind := range []string{store.KindBench, store.KindPlan, store.KindAgent} {
		t.Run(kind, func(t *testing.T) {
			f, cs, clk, h := cachedFixture(t, time.Hour)
			fresh := New(Config{Store: f.st, Catalog: h.d.Catalog, Now: clk.Now, CacheTTL: -1})
			before := map[string]string{}
			for path := range f.pageReads() {
				res, b := get(t, f.h, path)
				if res.StatusCode != 200 {
					t.Fatalf("GET %s: status %d", path, res.StatusCode)
				}
				before[path] = b
			}
			put(t, f.st, kind, newDoc(t, kind, i), time.Date(2026, 11, 30, 23, 55, 0, 0, time.UTC))
			h.InvalidateKind(kind)
			for path, kinds := range f.pageReads() {
				n := cs.reads.Load()
				res, got := get(t, f.h, path)
				reads := cs.reads.Load() - n
				resFresh, want := get(t, fresh, path)
				if got != want || res.StatusCode != resFresh.StatusCode || res.Header.Get("Content-Security-Policy") != resFresh.Header.Get("Content-Security-Policy") {
					t.Errorf("GET %s after a %s upload: the page differs from a fresh render (stale)", path, kind)
				}
				if slices.Contains(kinds, kind) {
					if got == before[path] {
						t.Errorf("GET %s after a %s upload: the page did not change; the test's upload should show on it", path, kind)
					}
				} else if reads != 0 {
					t.Errorf("GET %s after a %s upload it does not read: %d store reads, want 0 (kept in the cache)", path, kind, reads)
				}
			}
		})
	}
}

// Invalidate makes every page built from the store stale, whatever it
// reads, and the bench reports kept in memory: the first page built from
// them reads the store again.
func TestInvalidateDropsEveryStorePage(t *testing.T) {
	f, cs, _, h := cachedFixture(t, time.Hour)
	for path := range f.pageReads() {
		get(t, f.h, path)
	}
	h.Invalidate()
	for path := range f.pageReads() {
		h.d.bench.markStale() // so that each render reads the store
		n := cs.reads.Load()
		get(t, f.h, path)
		if cs.reads.Load() == n {
			t.Errorf("GET %s after Invalidate: served from the cache, want a render", path)
		}
	}
	h.Invalidate()
	n := cs.reads.Load()
	get(t, f.h, "/leaderboard")
	if cs.reads.Load() == n {
		t.Errorf("GET /leaderboard after Invalidate: no store read, want the reports read again")
	}
}

// An unknown kind is taken as any kind: every page is rendered afresh.
func TestInvalidateKindUnknownDropsEverything(t *testing.T) {
	f, cs, _, h := cachedFixture(t, time.Hour)
	get(t, f.h, "/agents")
	h.InvalidateKind("report")
	n := cs.reads.Load()
	get(t, f.h, "/agents")
	if cs.reads.Load() == n {
		t.Errorf("GET /agents after InvalidateKind(unknown): served from the cache, want a render")
	}
}

// The leaderboard reads its reports in at most three queries however many
// there are: the listing, whether older ones were left out, and the
// bodies of those not decoded yet in one query; once decoded, the listing
// alone.
func TestLeaderboardQueriesAreBounded(t *testing.T) {
	f := newFixture(t)
	cs := &countingStore{Store: f.st}
	for i := range 40 {
		put(t, f.st, store.KindBench, newDoc(t, store.KindBench, i), time.Date(2026, 11, 29, 0, i, 0, 0, time.UTC))
	}
	h := New(Config{Store: cs, Catalog: mustCatalog(t), Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }, CacheTTL: -1})
	for _, c := range []struct {
		name string
		max  int64
	}{{"first render (nothing decoded)", 2}, {"second render (all decoded)", 1}} {
		n := cs.reads.Load()
		if res, b := get(t, h, "/leaderboard"); res.StatusCode != 200 || !strings.Contains(b, "of 42 reports") {
			t.Fatalf("GET /leaderboard: status %d, or not 42 reports", res.StatusCode)
		}
		if got := cs.reads.Load() - n; got > c.max {
			t.Errorf("%s over 42 reports: %d store queries, want at most %d", c.name, got, c.max)
		}
	}
	// A new report: its body alone is read.
	put(t, f.st, store.KindBench, newDoc(t, store.KindBench, 99), time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC))
	n := cs.reads.Load()
	if _, b := get(t, h, "/leaderboard"); !strings.Contains(b, "of 43 reports") {
		t.Errorf("GET /leaderboard after a new report: not 43 reports")
	}
	if got := cs.reads.Load() - n; got > 2 {
		t.Errorf("render after one new report: %d store queries, want at most 2", got)
	}
}

func mustCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// A second request for a store page is answered from the cache: the store
// is not read again, and the bytes and every header (the CSP with its
// hashes) are the first answer's.
func TestStorePagesAreServedFromCache(t *testing.T) {
	f, cs, _, h := cachedFixture(t, 0)
	for _, path := range f.storePages() {
		h.d.bench.markStale() // so that the first render reads the store
		start := cs.reads.Load()
		r1, b1 := get(t, f.h, path)
		before := cs.reads.Load()
		if before == start {
			t.Errorf("GET %s: the first request read nothing from the store", path)
		}
		r2, b2 := get(t, f.h, path)
		if got := cs.reads.Load() - before; got != 0 {
			t.Errorf("GET %s again: %d store reads, want 0 (a cache hit)", path, got)
		}
		if r1.StatusCode != 200 || r2.StatusCode != 200 {
			t.Errorf("GET %s: status %d then %d, want 200", path, r1.StatusCode, r2.StatusCode)
		}
		if b1 != b2 {
			t.Errorf("GET %s: the cached body differs from the rendered one", path)
		}
		for _, k := range []string{"Content-Security-Policy", "Content-Type", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options"} {
			if g, w := r2.Header.Get(k), r1.Header.Get(k); g != w || w == "" {
				t.Errorf("GET %s: %s on the hit %q, on the miss %q", path, k, g, w)
			}
		}
		if csp := r2.Header.Get("Content-Security-Policy"); csp != CSP([]byte(b2)) {
			t.Errorf("GET %s: the hit's CSP %q is not the body's %q", path, csp, CSP([]byte(b2)))
		}
	}
}

// The query is normalised: parameters in another order are the same page.
func TestCacheKeyNormalisesTheQuery(t *testing.T) {
	f, cs, _, _ := cachedFixture(t, 0)
	get(t, f.h, "/reports?page=1")
	before := cs.reads.Load()
	get(t, f.h, "/reports?%70age=1") // the same query, escaped otherwise
	if got := cs.reads.Load() - before; got != 0 {
		t.Errorf("the same query reordered: %d store reads, want 0", got)
	}
}

// Invalidate makes the next request render afresh: a report put in the
// store since shows at once.
func TestInvalidateShowsNewDocuments(t *testing.T) {
	f, _, _, h := cachedFixture(t, time.Hour)
	if _, b := get(t, f.h, "/"); !strings.Contains(b, "Bench reports: 2") {
		t.Fatalf("GET /: want 2 reports first")
	}
	body := strings.Replace(string(must(t, "../../cli/testdata/bench-h200-v1.json")), "h200-node", "node-new", 1)
	put(t, f.st, store.KindBench, []byte(body), time.Date(2026, 11, 30, 23, 50, 0, 0, time.UTC))
	if _, b := get(t, f.h, "/"); !strings.Contains(b, "Bench reports: 2") {
		t.Errorf("GET / before Invalidate: want the cached page (2 reports)")
	}
	h.Invalidate()
	if _, b := get(t, f.h, "/"); !strings.Contains(b, "Bench reports: 3") {
		t.Errorf("GET / after Invalidate: want 3 reports")
	}
}

// A page is served from the cache until its TTL has passed; then it is
// served once more while one background render refreshes it, and a report
// another replica put in the store shows.
func TestCacheTTLExpires(t *testing.T) {
	f, cs, clk, _ := cachedFixture(t, 2*time.Second)
	if _, b := get(t, f.h, "/"); !strings.Contains(b, "Bench reports: 2") {
		t.Fatalf("GET /: want 2 reports first")
	}
	body := strings.Replace(string(must(t, "../../cli/testdata/bench-h200-v1.json")), "h200-node", "node-new", 1)
	put(t, f.st, store.KindBench, []byte(body), time.Date(2026, 11, 30, 23, 50, 0, 0, time.UTC))
	for _, step := range []time.Duration{time.Second, 999 * time.Millisecond} {
		clk.add(step)
		before := cs.reads.Load()
		if _, b := get(t, f.h, "/"); !strings.Contains(b, "Bench reports: 2") || cs.reads.Load() != before {
			t.Errorf("at %s (within the TTL): want the cached page and no store read", clk.Now().Format("15:04:05.000"))
		}
	}
	clk.add(time.Millisecond) // the TTL has passed
	if _, b := get(t, f.h, "/"); !strings.Contains(b, "Bench reports: 2") {
		t.Errorf("the first request past the TTL: want the old page while it is refreshed")
	}
	deadline := time.Now().Add(30 * time.Second) // a background refresh; milliseconds unless the machine is busy
	for {
		_, b := get(t, f.h, "/")
		if strings.Contains(b, "Bench reports: 3") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("past the TTL: the page never showed the third report")
		}
		time.Sleep(time.Millisecond)
	}
	before := cs.reads.Load()
	get(t, f.h, "/")
	if cs.reads.Load() != before {
		t.Errorf("after the refresh: the page was rendered again, want a hit")
	}
}

// A negative TTL turns the cache off: every request reads the store.
func TestCacheOff(t *testing.T) {
	f, cs, _, _ := cachedFixture(t, -1)
	get(t, f.h, "/reports")
	before := cs.reads.Load()
	get(t, f.h, "/reports")
	if cs.reads.Load() == before {
		t.Errorf("CacheTTL -1: the second request did not read the store")
	}
}

// Concurrent misses of one key render once: the store is read by one of
// them while the others wait for its page.
func TestConcurrentMissesRenderOnce(t *testing.T) {
	f, cs, _, _ := cachedFixture(t, 0)
	cs.block = make(chan struct{})
	const n = 20
	var wg sync.WaitGroup
	bodies := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, bodies[i] = get(t, f.h, "/reports")
		}()
	}
	// Let the first render reach the store and the others queue behind it.
	for cs.reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(cs.block)
	wg.Wait()
	if got := cs.reads.Load(); got != 1 {
		t.Errorf("%d concurrent requests: %d store reads, want 1", n, got)
	}
	for i, b := range bodies {
		if b != bodies[0] || !strings.Contains(b, f.onAWS[:12]) {
			t.Errorf("request %d: a different or wrong page", i)
		}
	}
}

// Error pages are not kept: a report not there yet is a 404 until it is.
func TestErrorPagesAreNotCached(t *testing.T) {
	f, cs, _, _ := cachedFixture(t, time.Hour)
	missing := strings.Repeat("ab", 32)
	for range 2 {
		before := cs.reads.Load()
		if res, _ := get(t, f.h, "/reports/"+missing); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET a missing report: status %d, want 404", res.StatusCode)
		}
		if cs.reads.Load() == before {
			t.Errorf("GET a missing report again: answered from the cache")
		}
	}
}

// Escaping is unchanged on a hit: the hostname's script stays escaped.
func TestCachedPagesStayEscaped(t *testing.T) {
	f, _, _, _ := cachedFixture(t, 0)
	for range 2 {
		_, b := get(t, f.h, "/reports/"+f.onAWS)
		if strings.Contains(b, evil) || !strings.Contains(b, "&lt;script&gt;") {
			t.Errorf("GET the report with a script hostname: not escaped on this answer")
		}
	}
}

// The cache holds at most maxStoreCached pages.
func TestCacheIsBounded(t *testing.T) {
	f, _, _, h := cachedFixture(t, time.Hour)
	for i := range maxStoreCached + 10 {
		get(t, f.h, fmt.Sprintf("/reports?page=%d", i+1))
	}
	h.d.store.mu.Lock()
	n := len(h.d.store.pages)
	h.d.store.mu.Unlock()
	if n > maxStoreCached || n == 0 {
		t.Errorf("after %d distinct pages: %d kept, want 1 to %d", maxStoreCached+10, n, maxStoreCached)
	}
}

func must(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A write waits at most maxRefreshWait for its pages' renders: past it,
// Stored returns, and a reader of a page not refreshed yet waits for the
// render (never served the page without the write).
func TestStoredWaitsBoundedForRenders(t *testing.T) {
	f, cs, _, h := cachedFixture(t, time.Hour)
	get(t, f.h, "/reports")
	get(t, f.h, "/reports") // cached, read since
	cs.block = make(chan struct{})
	d := stored(t, f.st, store.KindBench, newDoc(t, store.KindBench, 3), time.Date(2026, 11, 30, 23, 55, 0, 0, time.UTC))
	start := time.Now()
	h.Stored(context.Background(), d, nil) // its render of /reports is held by the store
	if took := time.Since(start); took < maxRefreshWait || took > maxRefreshWait+5*time.Second {
		t.Errorf("Stored with its page's render held: returned after %s, want about %s", took, maxRefreshWait)
	}
	read := make(chan string, 1)
	go func() { _, b := get(t, f.h, "/reports"); read <- b }()
	select {
	case <-read:
		t.Fatalf("GET /reports while its render after the write is held: answered, want it to wait for the render")
	case <-time.After(50 * time.Millisecond):
	}
	close(cs.block)
	if b := <-read; !strings.Contains(b, d.ID[:12]) {
		t.Errorf("GET /reports after Stored returned: the report is not listed")
	}
}

// A render that panics is a 500 error page (logged), not the end of the
// process: renders may run in a goroutine of their own.
func TestARenderThatPanicsIsA500(t *testing.T) {
	_, _, _, h := cachedFixture(t, time.Hour)
	boom := func(http.ResponseWriter, *http.Request) { panic("boom") }
	e := h.d.renderCovering(context.Background(), "GET /boom?", &gens{}, 0, httptest.NewRequest("GET", "/boom", nil), boom)
	if e == nil || e.page.status != http.StatusInternalServerError {
		t.Fatalf("a render that panicked: %+v, want a 500 page", e)
	}
	if _, ok := h.d.store.pages["GET /boom?"]; ok {
		t.Errorf("the 500 page was cached")
	}
}
