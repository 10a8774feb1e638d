package store

import (
	"strings"
	"testing"
)

// cleanPGEnv keeps the PG* environment variables, which pgx reads as libpq
// does, out of the test.
func cleanPGEnv(t testing.TB) {
	for _, k := range []string{"PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD", "PGSERVICE", "PGSERVICEFILE", "PGPASSFILE", "PGSSLMODE"} {
		t.Setenv(k, "")
	}
}

func TestParseDSN(t *testing.T) {
	cleanPGEnv(t)
	for _, tc := range []struct {
		in      string
		backend Backend
		shown   string // String(): the path, or user@host:port/db
		conn    string // ConnString() of a PostgreSQL DSN ("": the input)
	}{
		{"./gpuscout.db", SQLite, "./gpuscout.db", ""},
		{"/var/lib/gpuscout/g.db", SQLite, "/var/lib/gpuscout/g.db", ""},
		{"g.db", SQLite, "g.db", ""},
		{"a=b.db", SQLite, "a=b.db", ""},           // not a libpq keyword
		{"./host=x.db", SQLite, "./host=x.db", ""}, // the way to name such a file
		{"file:g.db", SQLite, "file:g.db", ""},     // no "//": a file name with a colon
		{"data/postgres.db", SQLite, "data/postgres.db", ""},
		{"host=db.internal port=5433 dbname=gpuscout user=ci password=s3cret", Postgres, "ci@db.internal:5433/gpuscout", ""},
		{"  dbname = gpuscout host=db user=ci password='s3cret with space'", Postgres, "ci@db:5432/gpuscout", ""},
		{"host=/tmp/pg-1 port=5433 user=gpuscout dbname=postgres sslmode=disable search_path=t1 pool_max_conns=3", Postgres, "gpuscout@/tmp/pg-1:5433/postgres", ""},
		{"postgres://ci:s3cret@db:5433/gpuscout?sslmode=disable", Postgres, "ci@db:5433/gpuscout", ""},
		{"postgresql://db/gpuscout?user=ci&password=s3cret", Postgres, "ci@db:5432/gpuscout", ""},
		{"POSTGRESQL://ci@db/gpuscout", Postgres, "ci@db:5432/gpuscout", "postgresql://ci@db/gpuscout"},
		{"Postgres://ci:s3cret@db/g", Postgres, "ci@db:5432/g", "postgres://ci:s3cret@db/g"},
	} {
		d, err := ParseDSN(tc.in)
		if err != nil {
			t.Errorf("ParseDSN(%q): %v", tc.in, err)
			continue
		}
		wantConn := tc.conn
		if wantConn == "" && tc.backend == Postgres {
			wantConn = tc.in
		}
		if d.Backend != tc.backend || d.String() != tc.shown || d.ConnString() != wantConn {
			t.Errorf("ParseDSN(%q) = backend %d, shown %q, conn %q; want %d, %q, %q", tc.in, d.Backend, d, d.ConnString(), tc.backend, tc.shown, wantConn)
		}
		if tc.backend == SQLite && d.Path != tc.in {
			t.Errorf("ParseDSN(%q).Path = %q; want the input", tc.in, d.Path)
		}
	}
}

func TestParseDSNErrorsHideThePassword(t *testing.T) {
	cleanPGEnv(t)
	for _, tc := range []struct{ in, want string }{
		{"", "empty"},
		{"   ", "empty"},
		{"HOST=db user=ci dbname=g", "lower-case (host=)"},
		{"mysql://u:s3cret@db/g", `scheme "mysql"`},
		{"file:///var/g.db", `scheme "file"`},
		{"postgres://u:s3cret@[::1:5432/db", "not a valid PostgreSQL URL"},
		{"postgres://u:s3cret@db:99999/g", "invalid port"},
		{"host=db password='s3cret unterminated", "unterminated"},
		{"host=db password=s3cret words", "not a valid PostgreSQL key=value"},
		{"host=db port=abc password=s3cret", "invalid port"},
		{"host=db sslmode=maybe password=s3cret", "sslmode"},
		{"host=db,db2 port=1,2,3 password=s3cret", "as many ports as hosts"},
	} {
		_, err := ParseDSN(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseDSN(%q) error %v; want one saying %q, without the password", tc.in, err, tc.want)
		}
	}
}

// FuzzParseDSN: whatever surrounds it, a password given in either form is
// in neither String nor an error.
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{"host=db dbname=g", "user=ci", "host=db port=x", "'", "sslmode=disable", "host=a,b port=1", "=", "\\"} {
		f.Add(s, "s3cretpw")
	}
	f.Fuzz(func(t *testing.T, rest, password string) {
		cleanPGEnv(t)
		if len(password) < 6 || strings.Contains(rest, password) || strings.ContainsFunc(password, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			return
		}
		for _, in := range []string{
			"password=" + password + " " + rest,
			rest + " password=" + password,
			"host=db password='" + password + "' " + rest,
			"postgres://u:" + password + "@db/g?" + rest,
			"postgresql://u@db/g?password=" + password + "&" + rest,
		} {
			d, err := ParseDSN(in)
			if err != nil && strings.Contains(err.Error(), password) {
				t.Fatalf("ParseDSN(%q) error shows the password: %v", in, err)
			}
			if err == nil && d.Backend == Postgres && strings.Contains(d.String(), password) {
				t.Fatalf("ParseDSN(%q).String() = %q shows the password", in, d)
			}
		}
	})
}
