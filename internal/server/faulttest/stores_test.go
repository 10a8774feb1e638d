package faulttest

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gpuscout/gpuscout/internal/cli"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/postgres"
	"github.com/gpuscout/gpuscout/internal/store/postgres/pgtest"
	"github.com/gpuscout/gpuscout/internal/store/sqlite"
)

// backend is a store serve can run on: where a fresh one is (serve's --db)
// and how the test opens it directly.
type backend struct {
	name  string
	newDB func(t *testing.T) string
	open  func(db string) (store.Store, error)
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "gpuscout.db") },
		func(db string) (store.Store, error) { return sqlite.Open(db) }},
	{"postgres", newPostgresDB,
		func(db string) (store.Store, error) { return postgres.Open(context.Background(), db) }},
}

// forEachStore runs test once per backend, as a subtest.
func forEachStore(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

var (
	pgOnce   sync.Once
	pgServer *pgtest.Server
	pgErr    error
)

// newPostgresDB returns a postgres:// URL of a fresh schema on the
// package's throwaway PostgreSQL server (started on first use, stopped by
// TestMain), skipping without the server binaries (failing with
// GPUSCOUT_REQUIRE_POSTGRES=1) or while serve cannot use PostgreSQL.
func newPostgresDB(t *testing.T) string {
	t.Helper()
	var out strings.Builder
	if code := cli.Main(context.Background(), []string{"token", "list", "--db", "postgres://x@127.0.0.1:1/x?connect_timeout=1"}, &out, &out); code == cli.ExitUsage {
		t.Skipf("serve has no PostgreSQL store yet: %s", strings.TrimSpace(out.String()))
	}
	pgOnce.Do(func() { pgServer, pgErr = pgtest.Start(false) })
	if pgErr != nil {
		if errors.Is(pgErr, pgtest.ErrUnavailable) && !pgtest.Required() {
			t.Skip(pgErr)
		}
		t.Fatal(pgErr)
	}
	dsn, err := pgServer.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dsnURL(t, dsn)
}

// dsnURL turns pgtest's key=value connection string into the postgres://
// URL serve's --db takes; keys other than user and dbname go in the query
// (pgx reads host, port, sslmode; search_path is sent as a run-time
// parameter).
func dsnURL(t *testing.T, dsn string) string {
	t.Helper()
	u := url.URL{Scheme: "postgres", Host: ""}
	q := url.Values{}
	for _, kv := range strings.Fields(dsn) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("pgtest connection string %q: %q is not key=value", dsn, kv)
		}
		switch k {
		case "user":
			u.User = url.User(v)
		case "dbname":
			u.Path = "/" + v
		default:
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func TestDSNURL(t *testing.T) {
	got := dsnURL(t, "host=/tmp/pg-1 port=5433 user=gpuscout dbname=postgres sslmode=disable search_path=t1")
	want := "postgres://gpuscout@/postgres?host=%2Ftmp%2Fpg-1&port=5433&search_path=t1&sslmode=disable"
	if got != want {
		t.Errorf("dsnURL = %s; want %s", got, want)
	}
}
