// Package server is the HTTP side of `gpuscout serve`: the JSON API under
// /api/v1 (catalog queries, uploaded reports and plans, tokens), its auth,
// body and rate limits, and the operations endpoints (/healthz, /metrics).
// It computes nothing itself: catalog queries go to internal/catalog, and
// documents to the store. The dashboard is a separate handler mounted at /.
package server

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/store"
)

// Config is what a Server needs. Store and Catalog are required.
type Config struct {
	Store   store.Store
	Catalog *catalog.Catalog
	// FX converts prices between currencies (nil: money.DefaultFX()).
	FX *money.FX
	// ReadOpen lets GET requests through without a token; writes always need one.
	ReadOpen bool
	// MaxBody bounds a request body in bytes (0: DefaultMaxBody); more is a 413.
	MaxBody int64
	// RatePerToken is the sustained requests per second one token (or, for
	// open reads, one client address) may make; 0: DefaultRatePerToken.
	// Bursts of up to twice the rate (at least 10) pass.
	RatePerToken float64
	// ExpensiveRate is RatePerToken for the calls that compute over the
	// whole catalog (POST /api/v1/advise and /api/v1/cost), a bucket of
	// their own: 0: DefaultExpensiveRate. Bursts as RatePerToken's.
	ExpensiveRate float64
	// AuthFailures is how many failed sign-ins (a wrong, revoked or
	// malformed token) one client address may make a minute before its
	// requests with credentials get 429 (0: DefaultAuthFailures).
	AuthFailures int
	// MetricsToken makes /metrics need a token (any scope, as a Bearer
	// token, even with ReadOpen); without it /metrics is open to anyone who
	// reaches the server.
	MetricsToken bool
	// Dashboard serves everything outside /api/, /healthz and /metrics;
	// nil: a plain landing page. After each upload that created a document,
	// before the upload is answered, it is told, by the first of these
	// methods it has: Stored(ctx, *store.Document, decoded any) (the
	// document with its body, and the body as its schema package decoded
	// it: a *benchreport.Document for a bench report; the dashboard's
	// Stored returns once its pages show it, so a page read after the
	// answer does), InvalidateKind(kind string), or Invalidate().
	Dashboard http.Handler
	// Keys are the node HMAC keys by key id: an upload signed with one of
	// them is verified (401 when the signature does not match).
	Keys map[string][]byte
	// Logger receives one structured line per request; nil: discard.
	Logger *slog.Logger
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// Limits' defaults and bounds.
const (
	DefaultMaxBody      = 8 << 20 // 8 MiB: a bench report with sweeps is well under 1 MiB
	MaxMaxBody          = 1 << 30
	DefaultRatePerToken = 50.0
	MaxRate             = 1e6
	// DefaultExpensiveRate: an advise call takes tens of milliseconds of
	// CPU; 2 a second (bursts of 10) per token leaves the server to the
	// others.
	DefaultExpensiveRate = 2.0
	// DefaultAuthFailures a minute per client address: far more than a
	// person mistyping or a misconfigured uploader retrying, far fewer than
	// guessing needs (a token is 256 random bits; the limit is against load
	// and noise more than against luck).
	DefaultAuthFailures = 20
	MaxAuthFailures     = 100000
)

// Server is the API's http.Handler.
type Server struct {
	cfg       Config
	mux       *http.ServeMux
	limiter   *limiter // the cheap calls' buckets
	expensive *limiter // advise's and cost's
	authFails *limiter // failed sign-ins by client address
	health    writeProbe
	metrics   *metrics
	routes    []Route
	// scenarios are advise's workload scenarios (embedded), loaded once.
	scenarios *advise.Scenarios

	tokens  tokenCache
	touchMu sync.Mutex
	touched map[string]time.Time // token id → last recorded use
}

// Route is one registered API route: its method and path pattern.
type Route struct{ Method, Path string }

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: no store")
	}
	if cfg.Catalog == nil {
		return nil, errors.New("server: no catalog")
	}
	switch {
	case cfg.MaxBody == 0:
		cfg.MaxBody = DefaultMaxBody
	case cfg.MaxBody < 1024 || cfg.MaxBody > MaxMaxBody:
		return nil, errors.New("server: MaxBody must be from 1 KiB to 1 GiB")
	}
	switch {
	case cfg.RatePerToken == 0:
		cfg.RatePerToken = DefaultRatePerToken
	case cfg.RatePerToken < 0 || cfg.RatePerToken > MaxRate:
		return nil, errors.New("server: RatePerToken must be from 0 to 1e6 per second")
	}
	switch {
	case cfg.ExpensiveRate == 0:
		cfg.ExpensiveRate = DefaultExpensiveRate
	case cfg.ExpensiveRate < 0 || cfg.ExpensiveRate > MaxRate:
		return nil, errors.New("server: ExpensiveRate must be from 0 to 1e6 per second")
	}
	switch {
	case cfg.AuthFailures == 0:
		cfg.AuthFailures = DefaultAuthFailures
	case cfg.AuthFailures < 0 || cfg.AuthFailures > MaxAuthFailures:
		return nil, errors.New("server: AuthFailures must be from 0 to 100000 a minute")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FX == nil {
		cfg.FX = money.DefaultFX()
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), metrics: newMetrics(prometheus.NewRegistry()), touched: map[string]time.Time{}}
	s.limiter = newLimiter(cfg.RatePerToken, cfg.Now)
	s.expensive = newLimiter(cfg.ExpensiveRate, cfg.Now)
	s.authFails = newBucketLimiter(float64(cfg.AuthFailures)/60, float64(cfg.AuthFailures), cfg.Now)
	var err error
	if s.scenarios, err = advise.LoadScenarios(); err != nil {
		return nil, err
	}
	s.routes_()
	return s, nil
}

// Routes lists the API routes (for the OpenAPI check).
func (s *Server) Routes() []Route { return append([]Route(nil), s.routes...) }

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// access is what a route needs of the caller.
type access int

const (
	open      access = iota // no token ever (healthz, metrics)
	readScope               // a read token, or none when ReadOpen
	writeScope
	adminScope
	pageScope    // a dashboard page: a read token (Bearer or Basic), or none when ReadOpen
	metricsScope // /metrics with MetricsToken: any token, even with ReadOpen
)

// handle registers an API route: metrics, logging, auth, limits, then h.
func (s *Server) handle(method, path string, need access, h http.HandlerFunc) {
	s.routes = append(s.routes, Route{method, path})
	s.mux.Handle(method+" "+path, s.wrap(path, need, s.limiter, h))
}

// handleExpensive is handle for a call that computes over the catalog: its
// rate limit is the expensive calls' bucket, not the cheap calls'.
func (s *Server) handleExpensive(method, path string, need access, h http.HandlerFunc) {
	s.routes = append(s.routes, Route{method, path})
	s.mux.Handle(method+" "+path, s.wrap(path, need, s.expensive, h))
}

func (s *Server) routes_() {
	s.handle("GET", "/api/v1/gpus", readScope, s.getGPUs)
	s.handle("GET", "/api/v1/offerings", readScope, s.getOfferings)
	s.handleExpensive("POST", "/api/v1/advise", readScope, s.postAdvise)
	s.handleExpensive("POST", "/api/v1/cost", readScope, s.postCost)
	s.handle("POST", "/api/v1/reports", writeScope, s.postReport)
	s.handle("GET", "/api/v1/reports", readScope, s.listReports)
	s.handle("GET", "/api/v1/reports/compare", readScope, s.compareReports)
	s.handle("GET", "/api/v1/reports/{id}", readScope, s.getReport)
	s.handle("GET", "/api/v1/plans", readScope, s.listPlans)
	s.handle("POST", "/api/v1/tokens", adminScope, s.postToken)
	s.handle("GET", "/api/v1/tokens", adminScope, s.listTokens)
	s.handle("DELETE", "/api/v1/tokens/{name}", adminScope, s.deleteToken)
	s.handle("GET", "/healthz", open, s.healthz)
	if s.cfg.MetricsToken {
		s.handle("GET", "/metrics", metricsScope, s.metrics.handler().ServeHTTP)
	} else { // open, uncounted: a scrape is not a request of the API
		s.mux.Handle("GET /metrics", s.metrics.handler())
		s.routes = append(s.routes, Route{"GET", "/metrics"})
	}
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no API route "+r.Method+" "+r.URL.Path+"; see docs/openapi.yaml", nil)
	})
	// The dashboard's pages are counted and logged under the route "/";
	// they show what the API's reads show, so they need what those need.
	if s.cfg.Dashboard != nil {
		s.mux.Handle("/", s.wrap("/", pageScope, s.limiter, s.cfg.Dashboard.ServeHTTP))
	} else {
		s.mux.Handle("GET /{$}", s.wrap("/", open, s.limiter, landing)) // no data on it
	}
}

func landing(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	io.WriteString(w, "<!doctype html><title>gpuscout</title><h1>gpuscout</h1><p>API at <code>/api/v1</code>; see docs/openapi.yaml.</p>\n")
}
