package agent

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// cachedMetrics serves /metrics from the exposition of the last snapshot,
// encoded once per snapshot (on the first scrape after a sample) and gzipped
// once for the clients that accept it: between samples a scrape copies
// bytes, whatever the scrape rate. The process metrics (RSS, CPU) are
// read at that encoding, so they too are as of the last sample.
type cachedMetrics struct {
	store *Store
	reg   *prometheus.Registry

	mu        sync.Mutex
	snap      *Snapshot
	plain, gz []byte
	encoded   bool
}

var textFormat = expfmt.NewFormat(expfmt.TypeTextPlain)

func (c *cachedMetrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	gzipOK := strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
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
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(c.plain)
		zw.Close()
		c.gz = buf.Bytes()
	}
	return c.gz, nil
}
