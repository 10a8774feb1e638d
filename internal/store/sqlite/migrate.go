package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/gpuscout/gpuscout/internal/store/schema"
)

// migrate applies the migrations the database lacks, each in its own
// immediate transaction with its schema_migrations row, and refuses a
// database newer than this binary.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := schema.Migrations(schema.SQLite)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, schema.VersionTable); err != nil {
		return fmt.Errorf("schema_migrations: %w", err)
	}
	for _, m := range ms {
		if err := apply(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func apply(ctx context.Context, db *sql.DB, m schema.Migration) error {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (the _txlock of the DSN)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var current int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	if err := schema.CheckVersion(current); err != nil {
		return err
	}
	if current >= m.Version {
		return nil
	}
	for _, st := range schema.Statements(m.SQL) {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.Version, m.Name, schema.Micros(time.Now())); err != nil {
		return fmt.Errorf("migration %s: %w", m.Name, err)
	}
	return tx.Commit()
}
