package dashboard

import (
	"bytes"
	"net/http"
	"sync"
)

// maxCached bounds the pages the cache keeps; when full it starts afresh.
const maxCached = 256

// pageCache keeps the bytes and headers of pages that depend only on their
// URL, the catalog (fixed while the server runs) and the day: the catalog
// browser and the spot simulation (seeded, so the same query gives the
// same runs). Pages built from the store are never cached.
type pageCache struct {
	mu    sync.Mutex
	pages map[string]cachedPage
}

type cachedPage struct {
	header http.Header
	body   []byte
}

// recorder captures a page as it is written.
type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) WriteHeader(status int)      { r.status = status }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

// cached serves a page from the cache, or renders it and keeps it when it
// is a 200.
func (d *dash) cached(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := d.Now().UTC().Format("2006-01-02") + " " + r.URL.RequestURI()
		d.cache.mu.Lock()
		p, ok := d.cache.pages[key]
		d.cache.mu.Unlock()
		if !ok {
			rec := &recorder{h: http.Header{}, status: http.StatusOK}
			next(rec, r)
			p = cachedPage{header: rec.h, body: rec.body.Bytes()}
			if rec.status != http.StatusOK {
				copyHeader(w.Header(), rec.h)
				w.WriteHeader(rec.status)
				_, _ = w.Write(p.body)
				return
			}
			d.cache.mu.Lock()
			if d.cache.pages == nil || len(d.cache.pages) >= maxCached {
				d.cache.pages = map[string]cachedPage{}
			}
			d.cache.pages[key] = p
			d.cache.mu.Unlock()
		}
		copyHeader(w.Header(), p.header)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(p.body)
	}
}

func copyHeader(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}
