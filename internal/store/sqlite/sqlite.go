// Package sqlite is the single-file store.Store of `gpuscout serve`, on
// modernc.org/sqlite (pure Go, so the binary still builds with
// CGO_ENABLED=0).
//
// Durability: the database runs in WAL mode with synchronous=FULL, so a
// transaction is fsynced to the WAL before its commit returns; an upload the
// server acknowledged survives a kill -9 or a power cut. (NORMAL would be
// safe from a process crash but could lose the last commits on power
// loss.) One writer connection serialises the writes (SQLite allows one
// writer at a time anyway, and a single connection avoids SQLITE_BUSY
// between our own writers); reads go to a pool of read-only connections,
// which WAL lets run beside the writer.
//
// Locks held by another process (a backup, a sqlite3 shell in a
// transaction): a write waits for them at most the busy timeout
// (Options.BusyTimeout, 5 s), then fails with store.ErrBusy; see
// groupcommit.go. Reads are not blocked by them (WAL).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyTimeout is how long a write waits for the lock another process
// holds before it fails with store.ErrBusy (Options.BusyTimeout's default).
// A put waits at most this long in all: for the writer and for the lock.
const BusyTimeout = 5 * time.Second

// MaxBusyTimeout bounds Options.BusyTimeout.
const MaxBusyTimeout = time.Minute

// Options are Open's settings; the zero value is the defaults.
type Options struct {
	// BusyTimeout: see the constant (0: BusyTimeout; at most MaxBusyTimeout).
	BusyTimeout time.Duration
}

// Store is a store.Store in one SQLite file.
type Store struct {
	w, r  *sql.DB // the one writer; the readers
	stmts statements
	busy  time.Duration // Options.BusyTimeout

	puts       chan putReq   // to the writer goroutine (group commit)
	quit       chan struct{} // closed by Close
	writerDone chan struct{} // closed when the writer has stopped
	closeOnce  sync.Once
	// busyMS is the writer connection's busy_timeout now, in ms: each
	// batch waits for the lock only until its first put's deadline
	// (writer goroutine only).
	busyMS int64
}

var _ store.Store = (*Store)(nil)

// dsn is the driver's name for the file with our pragmas, applied to every
// connection the pool opens.
func dsn(path string, readOnly bool, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate") // a write transaction takes the lock at BEGIN
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Open opens (creating it if needed) the database file at path and brings
// its schema up to date; it refuses a database a newer gpuscout wrote.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options.
func OpenWith(path string, o Options) (*Store, error) {
	if path == "" || path == ":memory:" {
		return nil, fmt.Errorf("sqlite: database path %q: want a file path", path)
	}
	switch {
	case o.BusyTimeout == 0:
		o.BusyTimeout = BusyTimeout
	case o.BusyTimeout < time.Millisecond || o.BusyTimeout > MaxBusyTimeout:
		return nil, fmt.Errorf("sqlite: busy timeout %v: want 1ms to %v", o.BusyTimeout, MaxBusyTimeout)
	}
	// A new database is made readable by its owner only (it holds the
	// tokens' hashes); SQLite gives the -wal and -shm files the same mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	f.Close()
	w, err := sql.Open("sqlite", dsn(path, false, o.BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	s := &Store{w: w, busy: o.BusyTimeout, busyMS: o.BusyTimeout.Milliseconds()}
	ctx := context.Background()
	if err := s.check(ctx, path); err != nil {
		w.Close()
		return nil, err
	}
	if err := migrate(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", dsn(path, true, o.BusyTimeout))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	s.r = r
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	s.startWriter()
	return s, nil
}

// check confirms the pragmas took: WAL and FULL are what durability rests on.
func (s *Store) check(ctx context.Context, path string) error {
	var mode string
	var sync, fk int
	if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("sqlite %s: %w", path, err)
	}
	if err := s.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		return fmt.Errorf("sqlite %s: %w", path, err)
	}
	if err := s.w.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return fmt.Errorf("sqlite %s: %w", path, err)
	}
	if mode != "wal" || sync != 2 || fk != 1 {
		return fmt.Errorf("sqlite %s: journal_mode %s, synchronous %d, foreign_keys %d; want wal, 2 (FULL), 1", path, mode, sync, fk)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	var errs []error
	s.stopWriter()
	s.stmts.close()
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close())
	return errors.Join(errs...)
}

// Ping checks the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.r.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}

// ProbeWrite commits the health table's one row (on the writer
// connection, beside the group commit).
func (s *Store) ProbeWrite(ctx context.Context) error {
	if _, err := s.stmts.probe.ExecContext(ctx, time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("sqlite: health probe: %w", classify(err))
	}
	return nil
}

// classify marks the errors of a write that the store can name: a lock
// held elsewhere past the busy timeout, a read-only database, a full disk.
func classify(err error) error {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Code() & 0xff { // the primary code of an extended one
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return store.Mark(err, store.ErrBusy)
	case sqlite3.SQLITE_READONLY:
		return store.Mark(err, store.ErrReadOnly)
	case sqlite3.SQLITE_FULL:
		return store.Mark(err, store.ErrFull)
	}
	return err
}

// isBusy reports an error of a write that met a lock held elsewhere.
func isBusy(err error) bool { return errors.Is(err, store.ErrBusy) }

// isUnique reports a UNIQUE or PRIMARY KEY constraint failure.
func isUnique(err error) bool {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}
