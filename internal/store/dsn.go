package store

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// Backend is the kind of database a DSN names.
type Backend int

// Backends.
const (
	SQLite Backend = iota + 1
	Postgres
)

// DSNRule says how ParseDSN tells the backends apart, in the words of
// serve's and token's --db help.
const DSNRule = "a PostgreSQL URL (postgres://… or postgresql://…) or key=value connection string " +
	"(its first word a libpq keyword and '=': host=…, dbname=…, user=…, service=…); " +
	"anything else is a SQLite file path (write ./host=x.db for a file named like a keyword)"

// DSN is where a store lives, parsed from --db. Its String is safe to log
// and to show: it never holds a password.
type DSN struct {
	Backend Backend
	// Path is the SQLite file (Backend SQLite).
	Path string
	// conn is the PostgreSQL connection string as given (URL or key=value),
	// password included: for the driver only.
	conn     string
	redacted string
}

// ConnString is the PostgreSQL connection string for the driver, password
// included: never log it (String is the loggable form).
func (d DSN) ConnString() string { return d.conn }

// String is the DSN without any password: the SQLite path, or PostgreSQL's
// user@host:port/database.
func (d DSN) String() string { return d.redacted }

// libpqKeywords are the connection keywords of libpq (PostgreSQL 15's
// "Parameter Key Words"): a --db whose first word is one of them followed
// by '=' is a key=value connection string.
var libpqKeywords = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "channel_binding": true, "connect_timeout": true, "client_encoding": true,
	"options": true, "application_name": true, "fallback_application_name": true, "keepalives": true,
	"keepalives_idle": true, "keepalives_interval": true, "keepalives_count": true, "tcp_user_timeout": true,
	"replication": true, "gssencmode": true, "sslmode": true, "requiressl": true, "sslcompression": true,
	"sslcert": true, "sslkey": true, "sslpassword": true, "sslcertmode": true, "sslrootcert": true,
	"sslcrl": true, "sslcrldir": true, "sslsni": true, "requirepeer": true, "ssl_min_protocol_version": true,
	"ssl_max_protocol_version": true, "krbsrvname": true, "gsslib": true, "gssdelegation": true,
	"service": true, "target_session_attrs": true, "load_balance_hosts": true, "require_auth": true,
}

var (
	firstKeyword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=`) })
	urlScheme    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`) })
)

// ParseDSN reads --db by DSNRule: a postgres:// or postgresql:// URL (the
// scheme in any case), a libpq key=value connection string, or a SQLite
// file path. A PostgreSQL DSN is parsed whole by pgx (pgconn.ParseConfig,
// which also reads the PG* environment variables and a service file, as
// libpq does); its errors never quote the DSN, whose password pgx's own
// messages may show.
func ParseDSN(s string) (DSN, error) {
	if strings.TrimSpace(s) == "" {
		return DSN{}, errors.New("empty; want " + DSNRule)
	}
	if m := urlScheme().FindStringSubmatch(s); m != nil {
		scheme := strings.ToLower(m[1])
		if scheme != "postgres" && scheme != "postgresql" {
			return DSN{}, fmt.Errorf("scheme %q: want postgres:// or postgresql://, or a SQLite file path", m[1])
		}
		return parsePostgres(scheme+s[len(m[1]):], true)
	}
	if m := firstKeyword().FindStringSubmatch(s); m != nil && libpqKeywords[strings.ToLower(m[1])] {
		if !libpqKeywords[m[1]] {
			// The value is not echoed: it may hold a password.
			return DSN{}, fmt.Errorf("keyword %s: libpq's keywords are lower-case (%s=); for a SQLite file whose name starts so, begin the path with ./", m[1], strings.ToLower(m[1]))
		}
		return parsePostgres(s, false)
	}
	return DSN{Backend: SQLite, Path: s, redacted: s}, nil
}

func parsePostgres(conn string, isURL bool) (DSN, error) {
	cfg, err := pgconn.ParseConfig(conn)
	if err != nil {
		// pgx's message quotes the DSN with its best-effort redaction and
		// may name a fragment of an unquoted password; say only what is wrong.
		if isURL {
			return DSN{}, fmt.Errorf("not a valid PostgreSQL URL%s; want postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?KEY=VALUE&…], with reserved characters in the password percent-encoded", reason(err))
		}
		return DSN{}, fmt.Errorf("not a valid PostgreSQL key=value connection string%s; want KEY=VALUE words separated by spaces (host=db.internal dbname=gpuscout user=gpuscout), a value with spaces or quotes in single quotes with \\' and \\\\ escaped", reason(err))
	}
	// libpq gives a keyword written with nothing after "=" the next word
	// (dbname= password=x names the database "password=x"): refused, and
	// the value not shown, since it may be the password.
	for _, f := range []struct{ name, v string }{{"user", cfg.User}, {"host", cfg.Host}, {"dbname", cfg.Database}} {
		if strings.Contains(f.v, "=") {
			return DSN{}, fmt.Errorf("%s's value holds \"=\": a keyword written with nothing after \"=\" takes the next word as its value; write an empty value as %s=''", f.name, f.name)
		}
	}
	return DSN{Backend: Postgres, conn: conn, redacted: Redacted(cfg.User, cfg.Host, cfg.Port, cfg.Database)}, nil
}

// reason is what pgx found wrong, when it is one of the causes whose words
// carry nothing of the DSN.
func reason(err error) string {
	msg := err.Error()
	for _, r := range []struct{ in, say string }{
		{"unterminated quoted string", "an unterminated quoted value"},
		{"invalid port", "an invalid port: want 1 to 65535"},
		{"invalid connect_timeout", "an invalid connect_timeout: want whole seconds"},
		{"could not match", "as many ports as hosts wanted"},
		{"sslmode is invalid", "an invalid sslmode: want disable, allow, prefer, require, verify-ca or verify-full"},
		{"failed to read service", "its service: not found in the service file"},
		{"failed to configure TLS", "its TLS settings (sslmode, sslcert, sslkey, sslrootcert)"},
		{"failed to parse as URL", "a part that is not a URL"},
		{"forbidden NUL byte", "a NUL byte"},
	} {
		if strings.Contains(msg, r.in) {
			return ": " + r.say
		}
	}
	return ""
}

// Redacted is a PostgreSQL server and database as logs name it:
// user@host:port/database, with no password.
func Redacted(user, host string, port uint16, database string) string {
	u := url.PathEscape(user)
	if u != "" {
		u += "@"
	}
	return fmt.Sprintf("%s%s:%d/%s", u, host, port, database)
}
