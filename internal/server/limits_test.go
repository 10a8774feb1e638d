package server

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// At the bound, the limiter forgets refilled buckets and keeps the empty
// ones: a client over its rate stays limited.
func TestLimiterEvictsOnlyRefilled(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l := newLimiter(1, func() time.Time { return now })
	for range 10 {
		l.allow("busy")
	}
	if ok, _ := l.allow("busy"); ok {
		t.Fatal("busy: want limited after its burst of 10")
	}
	for i := range maxBuckets - 1 {
		l.buckets[fmt.Sprint("idle", i)] = &bucket{tokens: 10, at: now.Add(-time.Hour)}
	}
	l.allow("new") // at the bound: evicts
	if len(l.buckets) != 2 {
		t.Fatalf("buckets after eviction: got %d, want 2 (busy, new)", len(l.buckets))
	}
	if ok, _ := l.allow("busy"); ok {
		t.Fatal("busy: want still limited after the eviction")
	}
}

// readCounter is a request body that counts the bytes read from it.
type readCounter struct{ n int64 }

func (r *readCounter) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.n += int64(len(p))
	return len(p), nil
}

// A body whose Content-Length is over the limit is refused from the
// header, with 413, before a byte of it is read.
func TestOversizedContentLengthRefusedUnread(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBody = 4096 })
	for _, path := range []string{"/api/v1/reports", "/api/v1/advise", "/api/v1/cost", "/api/v1/tokens"} {
		body := &readCounter{}
		req := httptest.NewRequest("POST", path, body)
		req.ContentLength = 1 << 30
		req.Header.Set("Authorization", "Bearer "+f.admin)
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, req)
		var e apiError
		decode(t, w, &e)
		if w.Code != 413 || e.Error.Code != "too_large" || body.n != 0 {
			t.Errorf("POST %s, Content-Length 1 GiB: got %d %s after reading %d bytes; want 413 too_large, nothing read", path, w.Code, w.Body, body.n)
		}
		if !strings.Contains(e.Error.Message, "4096") {
			t.Errorf("POST %s: the 413 should say the limit: %s", path, e.Error.Message)
		}
	}
}

// advise and cost compute for every offering: they draw on a bucket of
// their own, smaller than the cheap reads', so a client that spends it
// still reads, and reads do not spend it.
func TestExpensiveCallsHaveTheirOwnLimit(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f := newFixture(t, func(c *Config) { c.Now = func() time.Time { return now } })
	for i := range 60 { // cheap reads: within their own bucket, and they leave advise's alone
		if w := f.do(t, "GET", "/api/v1/gpus", f.write, nil); w.Code != 200 {
			t.Fatalf("read %d: got %d", i, w.Code)
		}
	}
	limited := -1
	for i := range 60 {
		w := f.do(t, "POST", "/api/v1/advise", f.write, []byte(`{}`)) // a 400, after the limit
		if w.Code == 429 {
			limited = i
			if w.Header().Get("Retry-After") == "" {
				t.Errorf("advise 429 without Retry-After")
			}
			break
		}
	}
	if limited < 1 || limited > 30 {
		t.Fatalf("advise calls before a 429: %d; want a limit of its own, at most 30 in a burst", limited)
	}
	if w := f.do(t, "POST", "/api/v1/cost", f.write, []byte(`{}`)); w.Code != 429 {
		t.Errorf("cost after advise spent the bucket: got %d, want 429 (one bucket for the expensive calls)", w.Code)
	}
	if w := f.do(t, "GET", "/api/v1/gpus", f.write, nil); w.Code != 200 {
		t.Errorf("a cheap read after advise's bucket is spent: got %d, want 200", w.Code)
	}
	if w := f.do(t, "POST", "/api/v1/advise", f.read, []byte(`{}`)); w.Code == 429 {
		t.Errorf("another token's advise: got 429, want its own bucket")
	}
}
