// Package postgres is the store.Store of a team's `gpuscout serve` on
// PostgreSQL, through pgx v5 and its connection pool. It applies the same
// migrations as the SQLite store (package schema) at Open, one server at a
// time under an advisory lock, and refuses a database a newer gpuscout
// wrote. Durability is PostgreSQL's: a commit returns after its WAL record
// is flushed (synchronous_commit on, the server default).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationLock is the advisory lock key held while migrating: two servers
// starting on one database migrate one after the other.
const migrationLock = 0x67707573636f7574 // "gpuscout"

// DefaultMaxConns is the pool's size unless the URL sets pool_max_conns.
const DefaultMaxConns = 16

// Store is a store.Store in a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (a postgres:// URL or a key=value
// connection string, as libpq takes; pgxpool's pool_max_conns and the like
// are understood) and brings its schema up to date.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message may quote the URL, password included: say only what failed.
		return nil, fmt.Errorf("postgres: --db: not a valid PostgreSQL URL or connection string")
	}
	if !strings.Contains(url, "pool_max_conns") {
		// pgxpool's default is max(4, CPUs); commits wait on the WAL flush,
		// and PostgreSQL flushes the commits waiting together at once, so
		// concurrent uploads gain from more connections than CPUs.
		cfg.MaxConns = DefaultMaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", where(cfg), err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres %s: %w", where(cfg), err)
	}
	return &Store{pool: pool}, nil
}

// where names the server and database without the password.
func where(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return store.Redacted(c.User, c.Host, c.Port, c.Database)
}

// migrate applies the migrations the database lacks, in one transaction
// under the advisory lock, and refuses a database newer than this binary.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := schema.Migrations(schema.Postgres)
	if err != nil {
		return err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	if _, err := tx.Exec(ctx, schema.VersionTable); err != nil {
		return fmt.Errorf("schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRow(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	if err := schema.CheckVersion(current); err != nil {
		return err
	}
	for _, m := range ms[current:] {
		for _, st := range schema.Statements(m.SQL) {
			if _, err := tx.Exec(ctx, st); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
		}
		if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
			m.Version, m.Name, schema.Micros(time.Now())); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return tx.Commit(ctx)
}

// Close closes the pool's connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Ping checks the server answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// ProbeWrite commits the health table's one row.
func (s *Store) ProbeWrite(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, probeWrite, time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("postgres: health probe: %w", classify(err))
	}
	return nil
}

// classify marks the errors of a write that the store can name, by their
// SQLSTATE: a read-only server or transaction (a standby, or
// default_transaction_read_only), a full disk, a lock wait past
// lock_timeout.
func classify(err error) error {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return err
	}
	switch e.Code {
	case "25006": // read_only_sql_transaction
		return store.Mark(err, store.ErrReadOnly)
	case "53100", "53200": // disk_full, out_of_memory
		return store.Mark(err, store.ErrFull)
	case "55P03": // lock_not_available
		return store.Mark(err, store.ErrBusy)
	}
	return err
}

// isUnique reports a unique_violation.
func isUnique(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "23505"
}

var errNoRows = pgx.ErrNoRows
