// Package schema holds the database schema of the SQL stores (SQLite and
// PostgreSQL) as versioned migrations, embedded SQL files written once for
// both; the few dialect differences are replaced here and nowhere else.
package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var files embed.FS

// Dialect is a SQL database the stores support.
type Dialect int

// Dialects.
const (
	SQLite Dialect = iota
	Postgres
)

// The words that differ between the dialects.
var dialectWords = map[Dialect]map[string]string{
	SQLite: {
		"{{SEQ}}":        "INTEGER PRIMARY KEY", // the rowid: increasing, never reused while the row lives
		"{{BLOB}}":       "BLOB",
		"{{BOOL_FALSE}}": "0",
	},
	Postgres: {
		"{{SEQ}}":        "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
		"{{BLOB}}":       "BYTEA",
		"{{BOOL_FALSE}}": "FALSE",
	},
}

// Migration is one schema version: SQL that takes the database from
// Version-1 to Version.
type Migration struct {
	Version int
	Name    string // the file name
	SQL     string // in the dialect asked for
}

// VersionTable creates the table that records the applied versions.
const VersionTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at BIGINT NOT NULL
)`

// Migrations returns every migration in version order, written for d.
func Migrations(d Dialect) ([]Migration, error) {
	words, ok := dialectWords[d]
	if !ok {
		return nil, fmt.Errorf("schema: unknown dialect %d", d)
	}
	names, err := fs.Glob(files, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for i, name := range names { // Glob sorts: 0001_..., 0002_...
		base := path.Base(name)
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil || v != i+1 {
			return nil, fmt.Errorf("schema: migration %s: want version %04d next", base, i+1)
		}
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		sql := string(b)
		for k, w := range words {
			sql = strings.ReplaceAll(sql, k, w)
		}
		if strings.Contains(sql, "{{") {
			return nil, fmt.Errorf("schema: migration %s: a placeholder with no %v word", base, d)
		}
		out = append(out, Migration{Version: v, Name: base, SQL: sql})
	}
	return out, nil
}

// Latest is the newest schema version this binary knows.
func Latest() int {
	ms, err := Migrations(SQLite)
	if err != nil {
		panic(err) // the embedded files are checked by the tests
	}
	return len(ms)
}

// CheckVersion refuses a database whose schema is newer than this binary's:
// it was written by a newer gpuscout and this one may not read it right.
func CheckVersion(current int) error {
	if latest := Latest(); current > latest {
		return fmt.Errorf("database schema version %d is newer than this gpuscout's (%d): use a gpuscout at least as new as the one that wrote it", current, latest)
	}
	return nil
}

// Statements splits a migration into its statements (on semicolons at the
// end of a line; the files hold no procedural code) without the comments.
func Statements(sql string) []string {
	var out []string
	var cur strings.Builder
	for line := range strings.Lines(sql) {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line)
		if strings.HasSuffix(t, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// Micros is t as the stored integer: microseconds since the Unix epoch.
func Micros(t time.Time) int64 { return t.UnixMicro() }

// FromMicros is the stored integer as a time in UTC.
func FromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
