package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
)

func TestReopenAndConcurrentMigrations(t *testing.T) {
	url := newDB(t)
	ctx := context.Background()
	// Three servers start at once on an empty database: the advisory lock
	// lets one migrate and the others find the schema done.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	stores := make([]*Store, 3)
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = Open(ctx, url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open #%d: %v", i, err)
		}
		defer stores[i].Close()
	}
	var n int
	if err := stores[0].pool.QueryRow(ctx, "SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil || n != schema.Latest() {
		t.Errorf("schema_migrations rows %d, %v; want %d", n, err, schema.Latest())
	}
	body := []byte(`{"x":1}`)
	d := &store.Document{ID: store.DocumentID(body), Kind: store.KindPlan, Body: body}
	if created, err := stores[1].PutDocument(ctx, d); err != nil || !created {
		t.Fatalf("PutDocument = %v, %v", created, err)
	}
	if _, err := stores[2].GetDocument(ctx, d.ID); err != nil {
		t.Errorf("another store on the same database: %v", err)
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	url := newDB(t)
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	newer := schema.Latest() + 1
	if _, err := s.pool.Exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'future', 0)", newer); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := Open(ctx, url); err == nil || !strings.Contains(err.Error(), "newer") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Open(a version %d database) = %v; want a 'newer' error", newer, err)
	}
}

func TestOpenErrorsHidePassword(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{
		"postgres://u:s3cret@[::1:5432/db",                                     // not a URL
		"postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=2&sslmode=disable", // nobody listens on port 1
	} {
		s, err := Open(ctx, url)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded; want an error", url)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open error shows the password: %v", err)
		}
	}
}

func TestPoolSize(t *testing.T) {
	url := newDB(t)
	ctx := context.Background()
	for _, c := range []struct {
		url  string
		want int32
	}{{url, DefaultMaxConns}, {url + " pool_max_conns=3", 3}} {
		s, err := Open(ctx, c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.pool.Config().MaxConns; got != c.want {
			t.Errorf("%s: pool of %d; want %d", c.url, got, c.want)
		}
		s.Close()
	}
}

// A server that takes no writes (a standby, or transactions read-only by
// default) answers reads; the health probe names it: ErrReadOnly.
func TestProbeWriteOnAReadOnlyServer(t *testing.T) {
	url := newDB(t)
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.ProbeWrite(ctx); err != nil {
		t.Fatalf("ProbeWrite: %v", err)
	}
	ro, err := pgxpool.New(ctx, url+" default_transaction_read_only=on")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	r := &Store{pool: ro}
	if err := r.Ping(ctx); err != nil {
		t.Fatalf("Ping of a read-only server: %v", err)
	}
	if err := r.ProbeWrite(ctx); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("ProbeWrite on a read-only server: %v; want ErrReadOnly", err)
	}
}
