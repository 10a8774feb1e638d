package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
)

func TestReopenKeepsDocuments(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"a":1}`)
	d := &store.Document{ID: store.DocumentID(body), Kind: store.KindBench, Body: body, ReceivedAt: time.Unix(1e9, 0)}
	if _, err := s.PutDocument(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path) // the migrations are not applied twice
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	got, err := s.GetDocument(ctx, d.ID)
	if err != nil || string(got.Body) != string(body) {
		t.Fatalf("after reopen: %v, %v; want the body %s", got, err, body)
	}
	var versions int
	if err := s.r.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations").Scan(&versions); err != nil || versions != schema.Latest() {
		t.Errorf("schema_migrations rows %d, %v; want %d", versions, err, schema.Latest())
	}
}

func TestPragmas(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, c := range []struct {
		db     *sql.DB
		pragma string
		want   string
	}{
		{s.w, "journal_mode", "wal"}, {s.w, "synchronous", "2"}, {s.w, "foreign_keys", "1"},
		{s.w, "busy_timeout", "5000"}, {s.r, "query_only", "1"}, {s.r, "synchronous", "2"},
	} {
		var got string
		if err := c.db.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got); err != nil || got != c.want {
			t.Errorf("PRAGMA %s = %q, %v; want %q", c.pragma, got, err, c.want)
		}
	}
	// The readers cannot write.
	if _, err := s.r.ExecContext(ctx, "DELETE FROM documents"); err == nil {
		t.Error("a read connection deleted; want query_only to refuse")
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	newer := schema.Latest() + 1
	if _, err := s.w.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 0)", newer); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(path)
	if err == nil || !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open(a version %d database) = %v; want a 'newer' error naming the file", newer, err)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, path := range []string{"", ":memory:", filepath.Join(t.TempDir(), "no", "such", "dir", "g.db")} {
		if s, err := Open(path); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded; want an error", path)
		}
	}
}

func TestPathWithQueryCharacters(t *testing.T) {
	// A file name with URI metacharacters is a file name, not DSN options.
	path := filepath.Join(t.TempDir(), "a?b#c&_pragma=x%20.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database is not at %s: %v", path, err)
	}
}

func TestNewFileOwnerOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("%s mode %v; want -rw------- (it holds token hashes)", filepath.Base(p), got)
		}
	}
}
