package agent

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// cachedMetrics serves /metrics from the exposition of the last snapshot,
// encoded once per snapshot and gzipped once for the clients that accept
// it: between samples a scrape copies bytes, whatever the scrape rate. The
// encoding happens at the first scrape after a sample or, while scrapes
// come more often than samples, at the sample (Endpoint.Tick). The process metrics (RSS, CPU) are
// read at that encoding, so they too are as of the last sample.
type cachedMetrics struct {
	store *Store
	reg   *prometheus.Registry

	mu        sync.Mutex
	snap      *Snapshot
	plain, gz []byte
	encoded   bool
	zw        *gzip.Writer // reused: a new one allocates about 1 MB

	// lastScrape (Unix nanoseconds) and lastGzip tell Tick whether scrapes
	// come often enough to encode ahead of them.
	lastScrape atomic.Int64
	lastGzip   atomic.Bool
}

var textFormat = expfmt.NewFormat(expfmt.TypeTextPlain)

// ServeHTTP writes the cached exposition, gzipped when the client accepts it.
func (c *cachedMetrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	gzipOK := strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
	c.lastScrape.Store(time.Now().UnixNano())
	c.lastGzip.Store(gzipOK)
	body, err := c.body(gzipOK)
	if err != nil {
		http.Error(w, "encoding the metrics: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", string(textFormat))
	if gzipOK {
		h.Set("Content-Encoding", "gzip")
	}
	w.Write(body)
}

func (c *cachedMetrics) body(gzipOK bool) ([]byte, error) {
	snap := c.store.Load()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.encoded || snap != c.snap {
		mfs, err := c.reg.Gather()
		if err != nil && len(mfs) == 0 {
			return nil, err
		}
		var buf bytes.Buffer
		enc := expfmt.NewEncoder(&buf, textFormat)
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				return nil, err
			}
		}
		c.snap, c.plain, c.gz, c.encoded = snap, buf.Bytes(), nil, true
	}
	if !gzipOK {
		return c.plain, nil
	}
	if c.gz == nil {
		var buf bytes.Buffer
		if c.zw == nil {
			c.zw, _ = gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		} else {
			c.zw.Reset(&buf)
		}
		c.zw.Write(c.plain)
		c.zw.Close()
		c.gz = buf.Bytes()
	}
	return c.gz, nil
}
