package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/store"
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
