package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/server"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

func TestUploadToServer(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Memory()
	key := []byte("k")
	srv, err := server.New(server.Config{Store: st, Catalog: cat, Keys: map[string][]byte{"node-1": key}})
	if err != nil {
		t.Fatal(err)
	}
	secret, tok, _ := server.NewToken("ci", nil, time.Now())
	st.CreateToken(context.Background(), tok)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	body, err := os.ReadFile("../../benchreport/testdata/report-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(ts.URL+"/", secret)
	if err != nil {
		t.Fatal(err)
	}
	c.KeyID, c.Key = "node-1", key
	for i, want := range []bool{true, false} {
		r, err := c.Upload(context.Background(), store.KindBench, body)
		if err != nil || r.ID != store.DocumentID(body) || r.Created != want {
			t.Fatalf("upload %d: got %+v %v, want created %v", i, r, err, want)
		}
	}
	d, _ := st.GetDocument(context.Background(), store.DocumentID(body))
	if d.SignedBy != "node-1" {
		t.Fatalf("signed_by: got %q, want node-1", d.SignedBy)
	}
	bad, _ := New(ts.URL, "gps_wrong")
	bad.Attempts = 3
	_, err = bad.Upload(context.Background(), store.KindBench, body)
	var e *Error
	if !errors.As(err, &e) || e.Status != 401 || e.Retryable() {
		t.Fatalf("wrong token: got %v, want a 401 not retried", err)
	}
}

func TestUploadRetries(t *testing.T) {
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(503)
			w.Write([]byte(`{"error":{"code":"store","message":"retry"}}`))
			return
		}
		w.WriteHeader(201)
		w.Write([]byte(`{"id":"ab","kind":"plan","created":true}`))
	}))
	defer ts.Close()
	c, _ := New(ts.URL, "t")
	c.Backoff = time.Millisecond
	r, err := c.Upload(context.Background(), store.KindPlan, []byte(`{}`))
	if err != nil || r.ID != "ab" || calls.Load() != 3 {
		t.Fatalf("got %+v %v after %d calls, want success on the 3rd", r, err, calls.Load())
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct{ url, token string }{
		{"ftp://x", "t"}, {"localhost:8080", "t"}, {"http://", "t"}, {"http://x?a=1", "t"}, {"http://x", " "},
	} {
		if _, err := New(tc.url, tc.token); err == nil {
			t.Errorf("New(%q, %q): got no error", tc.url, tc.token)
		}
	}
}
