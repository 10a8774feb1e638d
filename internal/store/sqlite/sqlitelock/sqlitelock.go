// Package sqlitelock holds a SQLite database's write lock from a connection
// of its own, as another process would: for tests of what the store and the
// server do while a database is locked elsewhere.
package sqlitelock

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	_ "modernc.org/sqlite" // the driver
)

// Hold takes the write lock of the database at path (BEGIN IMMEDIATE) and
// returns its release, which the test's cleanup also calls.
func Hold(t testing.TB, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
			_ = conn.Close()
			_ = db.Close()
		})
	}
	t.Cleanup(release)
	return release
}
