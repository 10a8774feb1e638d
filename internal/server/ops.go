package server

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus series.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpuscout_http_requests_total", Help: "HTTP requests by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gpuscout_http_request_duration_seconds", Help: "HTTP request latency by route pattern, method and status code.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route", "method", "code"}),
	}
	reg.MustRegister(m.requests, m.latency, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// recorder keeps the status code written, and adds Retry-After to a 503
// that has none: every 503 of the server is a store that could not do it
// now (locked, read-only, down), worth a retry after storeRetryAfter.
type recorder struct {
	http.ResponseWriter
	code int
}

// storeRetryAfter is the Retry-After of a 503: SQLite's busy timeout, the
// time a lock held elsewhere makes a write wait before it fails.
const storeRetryAfter = 5 * time.Second

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
		if code == http.StatusServiceUnavailable && r.Header().Get("Retry-After") == "" {
			r.Header().Set("Retry-After", retryAfter(storeRetryAfter))
		}
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// wrap puts a route's handler behind metrics, the log line, auth, the rate
// limit (lim's buckets) and the body limit. An answer to a route that may
// need a token is never stored by a browser or a proxy (no-store), and a
// body its Content-Length says is over the limit is refused unread.
func (s *Server) wrap(route string, need access, lim *limiter, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		defer func() {
			code := rec.code
			if code == 0 {
				code = http.StatusOK
			}
			d := time.Since(start)
			c := strconv.Itoa(code)
			s.metrics.requests.WithLabelValues(route, r.Method, c).Inc()
			s.metrics.latency.WithLabelValues(route, r.Method, c).Observe(d.Seconds())
			attrs := []any{"method", r.Method, "route", route, "path", r.URL.Path, "code", code, "ms", float64(d.Microseconds()) / 1000}
			if t := caller(r.Context()); t != nil {
				attrs = append(attrs, "token", t.Name)
			}
			s.cfg.Logger.Info("request", attrs...)
		}()
		if need != open {
			rec.Header().Set("Cache-Control", "no-store")
		}
		t, ok := s.authenticate(rec, r, need)
		if !ok {
			return
		}
		if need != open {
			key := "addr:" + clientAddr(r)
			if t != nil {
				key = "token:" + t.ID
			}
			if ok, wait := lim.allow(key); !ok {
				rec.Header().Set("Retry-After", retryAfter(wait))
				writeError(rec, http.StatusTooManyRequests, "rate_limited", "too many requests; retry after "+retryAfter(wait)+" s", nil)
				return
			}
		}
		if r.ContentLength > s.cfg.MaxBody {
			// From the header, before a byte is read; the server closes the
			// connection rather than read the rest.
			tooLarge(rec, s.cfg.MaxBody)
			return
		}
		if t != nil {
			r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, t))
		}
		r.Body = http.MaxBytesReader(rec, r.Body, s.cfg.MaxBody)
		h(rec, r)
	})
}

func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// healthz answers 200 when the store answers a read (a ping, each time)
// and can commit a write (a probe of the health table, at most every
// healthProbeEvery; health.go), both within healthWait. It needs no token,
// so a failure's detail (a database error names the host, user and
// database) goes to the log; the answer says which kind of failure.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthWait)
	defer cancel()
	if err := s.cfg.Store.Ping(ctx); err != nil {
		s.cfg.Logger.Error("healthz: store ping", "err", err)
		writeError(w, http.StatusServiceUnavailable, "store_down", "the store does not answer; the server's log has the error", nil)
		return
	}
	if err := s.health.check(ctx, s.cfg.Now, s.cfg.Store.ProbeWrite); err != nil {
		s.cfg.Logger.Error("healthz: store write probe", "err", err)
		writeError(w, http.StatusServiceUnavailable, "store_cannot_write", cannotWrite(err), nil)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
