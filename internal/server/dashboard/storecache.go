package dashboard

import (
	"context"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/gpuscout/gpuscout/internal/agentsummary"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/plandoc"
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

// maxRefresh and maxRefreshWait bound what one write re-renders before it
// is answered (the pages of its kind read since their last render): at
// most maxRefresh pages, waiting at most maxRefreshWait in all; a page
// left out is rendered by its next reader, who waits for it as on a miss.
const (
	maxRefresh     = 16
	maxRefreshWait = 250 * time.Millisecond
)

// storeCache keeps the final bytes and headers (the CSP with its hashes
// included) of pages built from the store, by method, path and normalised
// query.
//
// Generations. There is a counter per kind of document, which a write of
// that kind moves on, and one for everything (Invalidate). A page is
// rendered under the counters as they were when its render began (gens):
// it shows every write whose counter move came before. Two sets of
// counters are kept: issued, moved on by a write once it is in the store
// (and in the dashboard's memory) and before its pages are refreshed; and
// answered, moved on to the write's issued value once its pages are
// refreshed, just before the write is answered.
//
// What a reader may be served. A cached page is served when it covers
// answered (for the counters it reads), so any write answered before the
// read began shows on it; a write still being refreshed may not, which is
// what a read concurrent with that write may see either way. A page that
// does not cover answered is rendered (once for all concurrent readers of
// the key, singleflight) and the reader waits for it, as it does on a
// miss.
//
// What a write waits for. Stored (and InvalidateKind) moves issued on,
// re-renders the pages of its kind that were read since their last render
// (at most maxRefresh, waiting at most maxRefreshWait) so that they cover
// it, then moves answered on: so readers of those pages are served the
// previous page while it is refreshed, and never wait on a render an
// upload caused. Renders of one key are coalesced: one in flight at a
// time, and a write waits for at most the one in flight and the next. A
// reader served a page behind issued starts that render itself, in the
// background. Invalidate moves issued and answered on at once: every page
// is rendered by its next reader.
//
// The TTL. Once an entry's TTL has passed it is still served while one
// background render refreshes it, so that no request waits on the store
// for a page merely old (the TTL is for writes through another replica,
// which this server never sees: they show within the TTL plus a render; a
// page built from the bench reports kept in memory expires a TTL after
// they were read from the store). No lock is held while rendering.
type storeCache struct {
	issued   [nGens]atomic.Uint64
	answered [nGens]atomic.Uint64
	ttl      time.Duration // <0: off
	mu       sync.Mutex
	pages    map[string]*storeEntry
	group    singleflight.Group
}

// docKinds are the kinds of document, in the order of the counters after
// everything's.
var docKinds = [...]string{store.KindBench, store.KindPlan, store.KindAgent}

// nGens counts the counters: everything's, then one per kind.
const nGens = 1 + len(docKinds)

// gens is a value of each counter.
type gens [nGens]uint64

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

// covers says whether a page rendered under g shows every write counted in
// want, for the kinds r it reads (everything's counter always counts).
func (g *gens) covers(want *gens, r reads) bool {
	if g[0] < want[0] {
		return false
	}
	for i := range docKinds {
		if r&(1<<i) != 0 && g[1+i] < want[1+i] {
			return false
		}
	}
	return true
}

// load reads counters.
func load(cs *[nGens]atomic.Uint64) gens {
	var g gens
	for i := range cs {
		g[i] = cs[i].Load()
	}
	return g
}

// raise moves a counter on to at least v.
func raise(c *atomic.Uint64, v uint64) {
	for {
		old := c.Load()
		if old >= v || c.CompareAndSwap(old, v) {
			return
		}
	}
}

type storeEntry struct {
	key     string
	reads   reads
	gens    gens
	expires time.Time
	page    renderedPage
	// req renders the page again (a copy of the request that first asked
	// for it, without its cancellation); next is the page's handler.
	req  *http.Request
	next http.HandlerFunc
	// used: served since it was rendered (a write refreshes only those).
	used atomic.Bool
	// refreshing: a background refresh of this entry was started.
	refreshing atomic.Bool
}

// renderedPage is a page as a handler wrote it.
type renderedPage struct {
	status int
	header http.Header
	body   []byte
}

// Handler is the dashboard's http.Handler. Stored (or InvalidateKind)
// refreshes the pages built from the store's documents of a kind; the
// server calls it after each upload that created a document. Invalidate
// drops every page built from the store.
type Handler struct {
	mux http.Handler
	d   *dash
}

// ServeHTTP serves a dashboard page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Invalidate makes every cached store-dependent page stale, and the
// dashboard's memory of the bench reports too: the next request for a page
// renders it afresh from the store.
func (h *Handler) Invalidate() {
	h.d.bench.reset()
	c := &h.d.store
	raise(&c.answered[0], c.issued[0].Add(1))
}

// InvalidateKind is Stored for a document of the kind that the dashboard
// is not given: the pages that read the kind are refreshed from the store
// (the bench reports the dashboard keeps in memory are read again). An
// unknown kind invalidates every page.
func (h *Handler) InvalidateKind(kind string) {
	if slices.Index(docKinds[:], kind) < 0 {
		h.Invalidate()
		return
	}
	if kind == store.KindBench {
		h.d.bench.markStale()
	}
	h.d.refreshKind(context.Background(), kind)
}

// Stored tells the dashboard that d (with its body) was stored, as a new
// document, and returns once every page that shows documents of its kind
// shows it: the pages of its kind read since their last render are
// rendered again (readers are served the previous page meanwhile), and any
// other is rendered by its next reader. So a page read that begins after
// Stored returned, on this server, shows d; a read concurrent with it shows
// the page with or without d. When ctx ends, Stored stops waiting for
// renders, and the pages of the kind not yet refreshed are rendered by
// their next reader: still never a page without d.
//
// decoded is d's body as the server decoded it with its kind's schema
// package (a *benchreport.Document for a bench report, a
// *plandoc.Document for a plan, an *agentsummary.Summary for an agent
// summary), or nil. A bench report is added to the reports the dashboard
// keeps in memory (the leaderboard and price/performance are built from
// them without reading the store), a plan's gist and an agent summary to
// those kept (their lists do not read their bodies).
//
// A bench report changes the overview, the report list, the leaderboard
// and price/performance; a plan the overview and the plan list; an agent
// summary the overview and the agent list. A page of one document, or a
// comparison of some, shows documents that never change. A kind it does
// not know invalidates every page.
func (h *Handler) Stored(ctx context.Context, d *store.Document, decoded any) {
	switch d.Kind {
	case store.KindBench:
		rep, _ := decoded.(*benchreport.Document) // nil: decoded by addBench
		h.d.addBench(d, rep)
	case store.KindPlan:
		if u, _ := decoded.(*plandoc.Document); u != nil {
			h.d.addPlan(d.ID, u)
		}
	case store.KindAgent:
		if u, _ := decoded.(*agentsummary.Summary); u != nil {
			h.d.addAgent(d.ID, u)
		}
	default:
		h.Invalidate()
		return
	}
	h.d.refreshKind(ctx, d.Kind)
}

// refreshKind moves the kind's counter on, refreshes the cached pages that
// read it and were read since rendered, and moves answered on.
func (d *dash) refreshKind(ctx context.Context, kind string) {
	c := &d.store
	i := slices.Index(docKinds[:], kind)
	v := c.issued[1+i].Add(1)
	defer raise(&c.answered[1+i], v)
	if c.ttl < 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, maxRefreshWait)
	defer cancel()
	want := load(&c.issued)
	bit := reads(1 << i)
	var todo []*storeEntry
	c.mu.Lock()
	for _, e := range c.pages {
		if e.reads&bit != 0 && e.used.Load() && len(todo) < maxRefresh {
			todo = append(todo, e)
		}
	}
	c.mu.Unlock()
	for _, e := range todo {
		if d.renderCovering(ctx, e.key, &want, e.reads, e.req, e.next) == nil {
			return // ctx ended; the render goes on for the page's readers
		}
	}
}

// cacheKey is the method, path and query with its parameters sorted.
func cacheKey(r *http.Request) string {
	return r.Method + " " + r.URL.Path + "?" + r.URL.Query().Encode()
}

// storeCached serves a page built from the store's documents of the kinds
// (none: only documents that never change, named in its URL) from the
// cache, or renders it (once for all concurrent requests of its key) and
// keeps it when it is a 200. The kinds must be every kind the page reads:
// a write of another kind leaves the page cached.
func (d *dash) storeCached(next http.HandlerFunc, kinds ...string) http.HandlerFunc {
	c := &d.store
	if c.ttl < 0 {
		return next
	}
	rd := readsOf(kinds...)
	return func(w http.ResponseWriter, r *http.Request) {
		key := cacheKey(r)
		floor := load(&c.answered)
		c.mu.Lock()
		e := c.pages[key]
		c.mu.Unlock()
		if e != nil && e.gens.covers(&floor, rd) {
			if !e.used.Load() {
				e.used.Store(true)
			}
			// Past its TTL, or behind a write being refreshed: serve it
			// while one render refreshes it in the background.
			if cur := load(&c.issued); (!e.gens.covers(&cur, rd) || !d.Now().Before(e.expires)) && e.refreshing.CompareAndSwap(false, true) {
				ch := c.group.DoChan(key, d.render(key, rd, e.req, e.next))
				go func() { // a refresh that failed is tried again by a later reader
					<-ch
					e.refreshing.Store(false)
				}()
			}
			writePage(w, e.page)
			return
		}
		e = d.renderCovering(context.Background(), key, &floor, rd, r.Clone(context.WithoutCancel(r.Context())), next)
		e.used.Store(true)
		writePage(w, e.page)
	}
}

// renderCovering returns a render of the key that covers want: the render
// in flight when it does (it began after want's writes), else the next one.
// An error page is returned as it is; nil when ctx ended first (the
// render goes on).
func (d *dash) renderCovering(ctx context.Context, key string, want *gens, rd reads, r *http.Request, next http.HandlerFunc) *storeEntry {
	c := &d.store
	// A render joined began before this call; once it is over, the next
	// one begins after: two suffice.
	for range 2 {
		var res singleflight.Result
		select {
		case res = <-c.group.DoChan(key, d.render(key, rd, r, next)):
		case <-ctx.Done():
			return nil
		}
		e := res.Val.(*storeEntry)
		if e.page.status != http.StatusOK || e.gens.covers(want, rd) {
			return e
		}
	}
	v, _ := d.render(key, rd, r, next)()
	return v.(*storeEntry)
}

// render returns a render of the page for singleflight: it keeps a 200
// under the counters as they were when the render began. The render must
// not fail because the request that started it went away, nor touch that
// request after its handler returned: r is a copy without its
// cancellation, kept with the entry to render it again.
func (d *dash) render(key string, rd reads, r *http.Request, next http.HandlerFunc) func() (any, error) {
	return func() (any, error) {
		g := load(&d.store.issued)
		rec := &recorder{h: http.Header{}, status: http.StatusOK}
		var asOf time.Time // of the bench reports kept in memory, if the page read them
		rr := r.WithContext(context.WithValue(r.Context(), asOfKey{}, &asOf))
		func() {
			// A render may run in a goroutine of its own (singleflight's
			// DoChan), where a panic would end the process: it is a 500.
			defer func() {
				if p := recover(); p != nil {
					d.Logger.Error("dashboard page panicked", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
					rec = &recorder{h: http.Header{}}
					http.Error(rec, "internal error", http.StatusInternalServerError)
				}
			}()
			next(rec, rr)
		}()
		now := d.Now()
		expires := now.Add(d.store.ttl)
		if !asOf.IsZero() && asOf.Add(d.store.ttl).Before(expires) {
			// Built from what the store held at asOf: as old as that.
			expires = asOf.Add(d.store.ttl)
		}
		e := &storeEntry{key: key, reads: rd, gens: g, expires: expires, req: r, next: next,
			page: renderedPage{status: rec.status, header: rec.h, body: rec.body.Bytes()}}
		if e.page.status == http.StatusOK {
			d.store.put(key, e, now)
		}
		return e, nil
	}
}

// asOfKey is the context key of a render's *time.Time: benchDocs sets it
// to when the bench reports kept in memory were read from the store, so
// that the page expires a TTL after that (writes through another replica
// show within the TTL), not a TTL after its render.
type asOfKey struct{}

// put keeps an entry unless the one kept is newer (a render that began
// later), making room when the cache is full.
func (c *storeCache) put(key string, e *storeEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pages == nil {
		c.pages = map[string]*storeEntry{}
	}
	old, ok := c.pages[key]
	if ok && !e.gens.covers(&old.gens, e.reads) {
		return
	}
	if !ok && len(c.pages) >= maxStoreCached {
		floor := load(&c.answered)
		for k, old := range c.pages {
			if !old.gens.covers(&floor, old.reads) || !now.Before(old.expires) {
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
