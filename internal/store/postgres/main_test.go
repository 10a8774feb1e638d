package postgres

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/gpuscout/gpuscout/internal/store/postgres/pgtest"
)

// server is the package's one PostgreSQL server; nil when unavailable.
var server *pgtest.Server

func TestMain(m *testing.M) {
	flag.Parse()
	// Benchmarks measure a durable server; the tests a fast one.
	durable := flag.Lookup("test.bench").Value.String() != ""
	var err error
	server, err = pgtest.Start(durable)
	if err != nil && (pgtest.Required() || !errors.Is(err, pgtest.ErrUnavailable)) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if server != nil {
		if err := server.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// newDB returns a fresh database's connection string, skipping the test
// when no server could start.
func newDB(t testing.TB) string {
	t.Helper()
	if server == nil {
		t.Skip(pgtest.ErrUnavailable)
	}
	url, err := server.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return url
}
