package dashboard

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/gpuscout/gpuscout/internal/store"
)

// DefaultCacheTTL is how long a store-dependent page is served from the
// cache when Config.CacheTTL is zero: the most a write made through another
// server replica (several servers on one PostgreSQL) stays unseen.
const DefaultCacheTTL = 2 * time.Second

// MaxCacheTTL bounds Config.CacheTTL.
const MaxCacheTTL = time.Hour

// maxStoreCached bounds the store-dependent pages kept; when full, stale
// entries are dropped, and if none is stale the cache starts afresh.
const maxStoreCached = 512

// storeCache keeps the final bytes and headers (the CSP with its hashes
// included) of pages built from the store, by method, path and normalised
// query. The store has a generation per kind of document, which an upload
// of that kind moves on, and one for everything; a page's generation is the
// sum of everything's and those of the kinds it reads (a sum of counters
// that only grow changes whenever one of them does). An entry is good while
// its page's generation is the one it was rendered under: an upload of a
// kind a page does not read leaves it cached. Once its TTL has passed it is
// still served while one background render refreshes it, so that no request
// waits on the store for a page merely old (a new generation, though,
// always waits for the fresh page). Concurrent misses of one key render
// once (singleflight), and no lock is held while rendering.
type storeCache struct {
	all   atomic.Uint64                // moved on by Invalidate
	kinds [len(docKinds)]atomic.Uint64 // by docKinds' index: moved on by InvalidateKind
	ttl   time.Duration                // <0: off
	mu    sync.Mutex
	pages map[string]storeEntry
	group singleflight.Group
}

// docKinds are the kinds of document, in the order of storeCache.kinds.
var docKinds = [...]string{store.KindBench, store.KindPlan, store.KindAgent}

// reads is the set of kinds of document a page is built from: a bit per
// index of docKinds.
type reads uint8

// readsOf returns the set of the kinds.
func readsOf(kinds ...string) reads {
	var r reads
	for _, k := range kinds {
		i := slices.Index(docKinds[:], k)
		if i < 0 {
			panic("dashboard: unknown kind of document " + k)
		}
		r |= 1 << i
	}
	return r
}

// gen is the generation of a page that reads the kinds r.
func (c *storeCache) gen(r reads) uint64 {
	g := c.all.Load()
	for i := range c.kinds {
		if r&(1<<i) != 0 {
			g += c.kinds[i].Load()
		}
	}
	return g
}

type storeEntry struct {
	reads   reads
	gen     uint64
	expires time.Time
	page    renderedPage
}

// renderedPage is a page as a handler wrote it.
type renderedPage struct {
	status int
	header http.Header
	body   []byte
}

// Handler is the dashboard's http.Handler. InvalidateKind drops the pages
// built from the store's documents of a kind; the server calls it after
// each upload that created a document. Invalidate drops every page built
// from the store.
type Handler struct {
	mux http.Handler
	d   *dash
}

// ServeHTTP serves a dashboard page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Invalidate makes every cached store-dependent page stale: the next
// request renders it afresh from the store.
func (h *Handler) Invalidate() { h.d.store.all.Add(1) }

// InvalidateKind makes the cached pages built from documents of the kind
// (store.KindBench, KindPlan or KindAgent) stale, after a document of that
// kind was stored: the next request for one renders it afresh from the
// store, and the others stay cached. (A bench report changes the overview,
// the report list, the leaderboard and price/performance; a plan the
// overview and the plan list; an agent summary the overview and the agent
// list. A page of one document, or a comparison of some, shows documents
// that never change: no upload makes it stale.) An unknown kind
// invalidates every page.
func (h *Handler) InvalidateKind(kind string) {
	i := slices.Index(docKinds[:], kind)
	if i < 0 {
		h.Invalidate()
		return
	}
	h.d.store.kinds[i].Add(1)
}

// cacheKey is the method, path and query with its parameters sorted.
func cacheKey(r *http.Request) string {
	return r.Method + " " + r.URL.Path + "?" + r.URL.Query().Encode()
}

// storeCached serves a page built from the store's documents of the kinds
// (none: only documents that never change, named in its URL) from the
// cache, or renders it (once for all concurrent requests of its key) and
// keeps it when it is a 200. The kinds must be every kind the page reads:
// an upload of another kind leaves the page cached.
func (d *dash) storeCached(next http.HandlerFunc, kinds ...string) http.HandlerFunc {
	c := &d.store
	if c.ttl < 0 {
		return next
	}
	rd := readsOf(kinds...)
	return func(w http.ResponseWriter, r *http.Request) {
		key := cacheKey(r)
		gen := c.gen(rd)
		c.mu.Lock()
		e, ok := c.pages[key]
		c.mu.Unlock()
		if ok && e.gen == gen {
			if !d.Now().Before(e.expires) {
				// Past its TTL, with no write seen here: serve it while one
				// render refreshes it in the background (DoChan does not wait).
				c.group.DoChan(strconv.FormatUint(gen, 10)+" "+key, d.render(next, r.Clone(context.WithoutCancel(r.Context())), key, rd, gen))
			}
			writePage(w, e.page)
			return
		}
		v, _, _ := c.group.Do(strconv.FormatUint(gen, 10)+" "+key, d.render(next, r.Clone(context.WithoutCancel(r.Context())), key, rd, gen))
		writePage(w, v.(renderedPage))
	}
}

// render returns the shared render of a page for singleflight: it keeps a
// 200 under the generation the render began in. The render must not fail
// because the request that started it went away, nor touch that request
// after its handler returned: r is a copy without its cancellation.
func (d *dash) render(next http.HandlerFunc, r *http.Request, key string, rd reads, gen uint64) func() (any, error) {
	return func() (any, error) {
		rec := &recorder{h: http.Header{}, status: http.StatusOK}
		next(rec, r)
		p := renderedPage{status: rec.status, header: rec.h, body: rec.body.Bytes()}
		if p.status == http.StatusOK {
			now := d.Now()
			d.store.put(key, storeEntry{reads: rd, gen: gen, expires: now.Add(d.store.ttl), page: p}, now)
		}
		return p, nil
	}
}

// put keeps an entry, making room when the cache is full.
func (c *storeCache) put(key string, e storeEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pages == nil {
		c.pages = map[string]storeEntry{}
	}
	if _, ok := c.pages[key]; !ok && len(c.pages) >= maxStoreCached {
		for k, old := range c.pages {
			if old.gen != c.gen(old.reads) || !now.Before(old.expires) {
				delete(c.pages, k)
			}
		}
		if len(c.pages) >= maxStoreCached {
			clear(c.pages)
		}
	}
	c.pages[key] = e
}

// writePage sends a rendered page; its header map is shared, so it is copied.
func writePage(w http.ResponseWriter, p renderedPage) {
	h := w.Header()
	for k, v := range p.header {
		h[k] = slices.Clone(v)
	}
	w.WriteHeader(p.status)
	_, _ = w.Write(p.body)
}
