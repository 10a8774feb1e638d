package schema

import (
	"strings"
	"testing"
	"time"
)

func TestMigrations(t *testing.T) {
	for _, d := range []Dialect{SQLite, Postgres} {
		ms, err := Migrations(d)
		if err != nil {
			t.Fatalf("dialect %d: %v", d, err)
		}
		if len(ms) != Latest() || ms[0].Version != 1 {
			t.Errorf("dialect %d: %d migrations, first version %d; want %d from 1", d, len(ms), ms[0].Version, Latest())
		}
		if strings.Contains(ms[0].SQL, "{{") {
			t.Errorf("dialect %d: placeholder left in %s", d, ms[0].Name)
		}
	}
	pg, _ := Migrations(Postgres)
	if !strings.Contains(pg[0].SQL, "BYTEA") || strings.Contains(pg[0].SQL, "BLOB") {
		t.Errorf("postgres migration does not use BYTEA:\n%s", pg[0].SQL)
	}
}

func TestStatements(t *testing.T) {
	got := Statements("-- c\nCREATE TABLE a (x INT);\n\nCREATE INDEX i ON a (x);\n-- end\n")
	want := []string{"CREATE TABLE a (x INT)", "CREATE INDEX i ON a (x)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Statements = %q; want %q", got, want)
	}
	ms, _ := Migrations(SQLite)
	if n := len(Statements(ms[0].SQL)); n != 8 {
		t.Errorf("migration 1 has %d statements; want 8 (2 tables, 6 indexes)", n)
	}
}

func TestCheckVersion(t *testing.T) {
	if err := CheckVersion(Latest()); err != nil {
		t.Errorf("CheckVersion(latest): %v", err)
	}
	err := CheckVersion(Latest() + 1)
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("CheckVersion(latest+1) = %v; want a 'newer' error", err)
	}
}

func TestMicros(t *testing.T) {
	at := time.Date(2026, 12, 1, 1, 2, 3, 456789999, time.FixedZone("X", 3600))
	got := FromMicros(Micros(at))
	want := time.Date(2026, 12, 1, 0, 2, 3, 456789000, time.UTC)
	if !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("round trip = %v; want %v", got, want)
	}
}
