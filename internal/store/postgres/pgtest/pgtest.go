// Package pgtest starts a throwaway PostgreSQL server for tests: initdb
// into a temporary directory, pg_ctl on a free port with the socket in that
// directory (no TCP listener), stopped and removed by Stop. It never
// touches the system's cluster. Tests call it once per package (TestMain)
// and take a fresh database per test from NewDatabase.
//
// The server binaries are found in $GPUSCOUT_PG_BIN, else
// /usr/lib/postgresql/15/bin (Debian's postgresql package). Without them
// Start returns ErrUnavailable, which tests turn into a skip unless
// GPUSCOUT_REQUIRE_POSTGRES=1 (set by scripts/test.sh once PostgreSQL is
// installed), when it is a failure.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrUnavailable is returned by Start when no PostgreSQL binaries are found.
var ErrUnavailable = errors.New("pgtest: PostgreSQL server binaries not found (set GPUSCOUT_PG_BIN or install the postgresql package)")

// Required reports whether a test must fail rather than skip without
// PostgreSQL (GPUSCOUT_REQUIRE_POSTGRES=1).
func Required() bool { return os.Getenv("GPUSCOUT_REQUIRE_POSTGRES") == "1" }

// Server is a running throwaway PostgreSQL server.
type Server struct {
	bin, dir, data string
	port           int
	runAs          []string // runuser prefix when this process is root
	n              atomic.Int64
}

// bindir is where the server binaries are.
func bindir() string {
	if d := os.Getenv("GPUSCOUT_PG_BIN"); d != "" {
		return d
	}
	return "/usr/lib/postgresql/15/bin"
}

// Start initialises and starts a server; Stop it when done. A server that
// is not durable runs with fsync=off (the tests' own cluster, thrown away
// after: a commit then costs no disk flush and the conformance suite runs
// in a second); benchmarks ask for a durable one, as in production.
func Start(durable bool) (*Server, error) {
	bin := bindir()
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		return nil, ErrUnavailable
	}
	dir, err := os.MkdirTemp("", "gpuscout-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	if os.Geteuid() == 0 { // initdb refuses root: run the server as postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: running as root and no postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.runAs = []string{"runuser", "-u", "postgres", "--"}
	}
	if s.port, err = freePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.run("initdb", "-D", s.data, "-U", "gpuscout", "--auth=trust", "-E", "UTF8", "--no-locale",
		"--no-sync", "--no-instructions"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses='' -c max_connections=200", s.port, s.dir)
	if !durable {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	if err := s.run("pg_ctl", "-D", s.data, "-l", filepath.Join(s.dir, "log"), "-w", "-t", "30", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return s, nil
}

func (s *Server) run(prog string, args ...string) error {
	argv := append(append(append([]string{}, s.runAs...), filepath.Join(s.bin, prog)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: %s: %w\n%s", prog, err, out)
	}
	return nil
}

// freePort returns a TCP port nobody listens on now; the server binds no
// TCP port (only the socket file named after it), so a race is harmless.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// URL is the connection string of the database name on the server.
func (s *Server) URL(name string) string {
	return fmt.Sprintf("host=%s port=%d user=gpuscout dbname=%s sslmode=disable", s.dir, s.port, name)
}

// NewDatabase returns the connection string of a new, empty place to keep
// a store: a schema of its own in the database "postgres", set as the
// connection's search_path (a schema takes milliseconds where CREATE
// DATABASE takes a few hundred).
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("t%d", s.n.Add(1))
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", fmt.Errorf("pgtest: create schema %s: %w", name, err)
	}
	return s.URL("postgres") + " search_path=" + name, nil
}

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() error {
	err := s.run("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "-t", "30", "stop")
	for range 50 { // the server's last files may still be closing
		if e := os.RemoveAll(s.dir); e == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}
