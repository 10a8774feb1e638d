package server

import (
	"bytes"
	"context"
	"errors"
	"github.com/gpuscout/gpuscout/internal/store/sqlite/sqlitelock"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/sqlite"
)

// downStore is a store whose ping fails with a database's detailed error.
type downStore struct{ store.Store }

func (downStore) Ping(context.Context) error {
	return errors.New("failed to connect to `user=gpuscout database=gpuscout`: 10.0.3.7:5432: dial error: connection refused")
}

// /healthz needs no token: when the store is down it answers 503 without
// the database's error (host, user, database), which goes to the log.
func TestHealthzHidesTheStoreError(t *testing.T) {
	var log bytes.Buffer
	f := newFixture(t, func(c *Config) {
		c.Store = downStore{c.Store}
		c.Logger = slog.New(slog.NewJSONHandler(&log, nil))
	})
	w := f.do(t, "GET", "/healthz", "", nil)
	if w.Code != 503 || !strings.Contains(w.Body.String(), `"store_down"`) {
		t.Fatalf("got %d %s, want 503 store_down", w.Code, w.Body)
	}
	for _, secret := range []string{"10.0.3.7", "user=gpuscout", "database="} {
		if strings.Contains(w.Body.String(), secret) {
			t.Errorf("the answer shows %q: %s", secret, w.Body)
		}
	}
	if !strings.Contains(log.String(), "10.0.3.7:5432") {
		t.Errorf("the log lacks the store's error: %s", log.String())
	}
}

// Answers to requests that need a token, or carry one, are never kept by a
// browser or a proxy: Cache-Control: no-store (the pages show what only a
// token may read).
func TestTokenAnswersNotStored(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "reports of node-1") })
	f := newFixture(t, func(c *Config) { c.Dashboard = page })
	for _, tc := range []struct {
		path, auth string
		want       int
	}{
		{"/reports", basic("me", f.read), 200},
		{"/", "Bearer " + f.read, 200},
		{"/reports", "", 401},
		{"/api/v1/reports", "Bearer " + f.read, 200},
		{"/api/v1/tokens", "Bearer " + f.admin, 200},
		{"/api/v1/reports", "", 401},
	} {
		w := f.do(t, "GET", tc.path, "", nil, "Authorization", tc.auth)
		if w.Code != tc.want || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s (%.10s…): got %d Cache-Control %q, want %d no-store", tc.path, tc.auth, w.Code, w.Header().Get("Cache-Control"), tc.want)
		}
	}
}

// /healthz reports a store that answers reads but cannot commit a write
// (another process holds the database's write lock): 503 with the reason;
// once the lock is gone, 200 again.
func TestHealthzReportsAStoreThatCannotWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	st, err := sqlite.OpenWith(path, sqlite.Options{BusyTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f := newFixture(t, func(c *Config) { c.Store = st; c.Now = func() time.Time { return now } })
	if w := f.do(t, "GET", "/healthz", "", nil); w.Code != 200 {
		t.Fatalf("healthz: got %d %s, want 200", w.Code, w.Body)
	}
	release := sqlitelock.Hold(t, path)
	now = now.Add(time.Minute) // past the last probe's result
	w := f.do(t, "GET", "/healthz", "", nil)
	var e apiError
	decode(t, w, &e)
	if w.Code != 503 || e.Error.Code != "store_cannot_write" || !strings.Contains(e.Error.Message, "locked") {
		t.Fatalf("healthz with the write lock held elsewhere: got %d %s, want 503 store_cannot_write saying locked", w.Code, w.Body)
	}
	release()
	now = now.Add(time.Minute)
	if w := f.do(t, "GET", "/healthz", "", nil); w.Code != 200 {
		t.Fatalf("healthz after the lock is gone: got %d %s, want 200", w.Code, w.Body)
	}
}

// An upload that meets a write lock held by another process answers 503
// with Retry-After once the busy timeout has passed: a refusal to retry,
// not a hang, and nothing stored.
func TestUploadOnALockedStoreAnswers503(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	st, err := sqlite.OpenWith(path, sqlite.Options{BusyTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := newFixture(t, func(c *Config) { c.Store = st })
	secret, tok, _ := NewToken("locked-writer", []string{ScopeWrite}, time.Now())
	if err := st.CreateToken(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	sqlitelock.Hold(t, path)
	codes := make(chan *httptest.ResponseRecorder, 4)
	for i := range cap(codes) {
		go func() { codes <- f.do(t, "POST", "/api/v1/reports", secret, reportWith(t, "locked-"+strconv.Itoa(i))) }()
	}
	for range cap(codes) {
		select {
		case w := <-codes:
			if ra, _ := strconv.Atoi(w.Header().Get("Retry-After")); w.Code != 503 || ra < 1 {
				t.Errorf("upload under a lock: got %d Retry-After %q %s, want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"), w.Body)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("an upload under a lock has not answered in 60 s")
		}
	}
}

// /metrics is open unless MetricsToken (serve --metrics-token), which
// makes it need a token of any scope, even with ReadOpen.
func TestMetricsToken(t *testing.T) {
	const series = "gpuscout_http_requests_total"
	openMetrics := newFixture(t, func(c *Config) { c.ReadOpen = true })
	openMetrics.do(t, "GET", "/api/v1/gpus", "", nil)
	if w := openMetrics.do(t, "GET", "/metrics", "", nil); w.Code != 200 || !strings.Contains(w.Body.String(), series) {
		t.Fatalf("open /metrics: got %d, want 200 with %s", w.Code, series)
	}
	f := newFixture(t, func(c *Config) { c.ReadOpen, c.MetricsToken = true, true })
	f.do(t, "GET", "/api/v1/gpus", "", nil)
	for _, tc := range []struct {
		name, token string
		want        int
	}{{"no token", "", 401}, {"wrong token", "gps_nope", 401}, {"read token", f.read, 200}} {
		w := f.do(t, "GET", "/metrics", tc.token, nil)
		if w.Code != tc.want {
			t.Errorf("/metrics with %s: got %d, want %d", tc.name, w.Code, tc.want)
		}
		if tc.want == 401 && (strings.Contains(w.Body.String(), series) || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer ")) {
			t.Errorf("/metrics with %s: the 401 shows the metrics or lacks the Bearer challenge: %q", tc.name, w.Body)
		}
		if tc.want == 200 && !strings.Contains(w.Body.String(), series) {
			t.Errorf("/metrics with %s: no %s", tc.name, series)
		}
	}
}
