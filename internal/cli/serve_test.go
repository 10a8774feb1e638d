package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store/postgres/pgtest"
)

func TestTokenCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "g.db")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), append(args, "--db", db), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, _ := run("token", "create", "--name", "ci", "--scope", "read,write")
	if code != 0 || !strings.HasPrefix(out, "gps_") || len(strings.TrimSpace(out)) != 68 {
		t.Fatalf("create: exit %d, out %q", code, out)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"token", "create", "--name", "ci"}, 2, `--name "ci": a token with this name exists`},
		{[]string{"token", "create", "--name", "a b"}, 2, `--name "a b"`},
		{[]string{"token", "create"}, 2, "--name: required"},
		{[]string{"token", "create", "--name", "x", "--scope", "root"}, 2, `--scope "root"`},
		{[]string{"token", "revoke", "nobody"}, 2, `token "nobody": no such token`},
		{[]string{"token", "revoke", "ci"}, 0, `token "ci" revoked`},
		{[]string{"serve", "--page-cache", "2h"}, 2, "--page-cache 2h0m0s: want 0 (off) to 1h0m0s"},
		{[]string{"serve", "--page-cache", "-1s"}, 2, "--page-cache -1s: want 0 (off) to 1h0m0s"},
		{[]string{"serve", "--max-conns", "0"}, 2, "--max-conns 0: want 1 to 1048576"},
		{[]string{"serve", "--rate-expensive", "0"}, 2, "--rate-expensive 0: want more than 0"},
		{[]string{"serve", "--max-auth-failures", "-1"}, 2, "--max-auth-failures -1: want 1 to 100000"},
		{[]string{"token", "create", "--name", "x", "--expires", "30m"}, 2, `--expires "30m": want a duration from 1h to 10y`},
		{[]string{"token", "create", "--name", "x", "--expires", "never"}, 2, `--expires "never": want a duration from 1h to 10y`},
		{[]string{"token", "create", "--name", "tmp", "--scope", "read", "--expires", "90d"}, 0, `token "tmp" (read, expiring 2027-02-28T12:00:00Z) made`},
	} {
		code, _, errs := run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d with %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	code, out, _ = run("token", "list", "-o", "json")
	var list []struct {
		Name      string
		Scopes    []string
		Revoked   bool
		ExpiresAt *string `json:"expires_at"`
		Expired   bool
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 || len(list) != 2 || list[0].Name != "ci" || !list[0].Revoked || strings.Join(list[0].Scopes, ",") != "read,write" {
		t.Fatalf("list: exit %d %s (%v)", code, out, err)
	}
	if list[0].ExpiresAt != nil || list[1].Name != "tmp" || list[1].ExpiresAt == nil || *list[1].ExpiresAt != "2027-02-28T12:00:00Z" || list[1].Expired {
		t.Errorf("list: ci never expires, tmp on 2027-02-28T12:00:00Z (not yet): got %s", out)
	}
	if strings.Contains(out, "gps_") {
		t.Fatal("list shows a secret")
	}
	if code, out, _ = run("token", "list"); code != 0 || !strings.Contains(out, "EXPIRES") || !strings.Contains(out, "never") || !strings.Contains(out, "2027-02-28T12:00:00Z") {
		t.Errorf("list table: exit %d\n%s\nwant an EXPIRES column: never, and tmp's time", code, out)
	}
}

// serve --help says what the operations endpoints do and who may read
// them, and how --db tells PostgreSQL from a SQLite path.
func TestServeHelpDocumentsOperations(t *testing.T) {
	out, _, code := run(t, "serve", "--help")
	for _, want := range []string{
		"/metrics", "open to anyone who can reach the port", "--metrics-token",
		"/healthz", "503 with the reason",
		"key=value connection string", "libpq keyword", "SQLite file path",
		"--max-conns", "--rate-expensive", "--max-auth-failures", "Cache-Control", "--expires",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("serve --help lacks %q (exit %d)", want, code)
		}
	}
	if _, errs, code := run(t, "token", "list", "--db", "mysql://u@db/g"); code != 2 || !strings.Contains(errs, `--db: scheme "mysql": want postgres:// or postgresql://`) {
		t.Errorf("token list --db mysql://…: exit %d %q; want 2 naming the scheme", code, errs)
	}
	if out, _, _ := run(t, "token", "create", "--help"); !strings.Contains(out, "--expires") || !strings.Contains(out, "libpq keyword") {
		t.Errorf("token create --help lacks --expires or the --db rule:\n%s", out)
	}
}

func TestServeUploadAndStop(t *testing.T) {
	db := filepath.Join(t.TempDir(), "g.db")
	var out bytes.Buffer
	if code := Main(context.Background(), []string{"token", "create", "--name", "ci", "--db", db}, &out, io.Discard); code != 0 {
		t.Fatalf("token create: exit %d", code)
	}
	secret := strings.TrimSpace(out.String())
	pr, pw := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--db", db, "--listen", "127.0.0.1:0", "--no-user-catalog"}, io.Discard, pw)
		pw.Close()
	}()
	// The first log line says where it listens.
	sc := bufio.NewScanner(pr)
	var addr string
	for sc.Scan() {
		var l struct{ Msg, Addr string }
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "serving" {
			addr = l.Addr
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if addr == "" {
		t.Fatal("serve logged no address")
	}
	body, err := os.ReadFile("../benchreport/testdata/report-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/v1/reports", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("upload: %v %v", resp, err)
	}
	resp.Body.Close()
	for path, want := range map[string]int{"/healthz": 200, "/api/v1/reports": 401, "/": 401, "/reports": 401} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil || resp.StatusCode != want {
			t.Errorf("GET %s: %v %v, want %d", path, resp, err, want)
		} else {
			resp.Body.Close()
		}
	}
	stop()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve: exit %d after stop", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop within 30 s")
	}
}

// startPostgres starts a throwaway PostgreSQL server for the test and
// returns the key=value connection string of a fresh database on it;
// skips without the server binaries (fails with GPUSCOUT_REQUIRE_POSTGRES=1).
func startPostgres(t *testing.T) string {
	t.Helper()
	srv, err := pgtest.Start(false)
	if err != nil {
		if errors.Is(err, pgtest.ErrUnavailable) && !pgtest.Required() {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	dsn, err := srv.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// --db takes PostgreSQL's key=value connection strings (libpq's keywords)
// as well as its URLs: before, "host=… dbname=…" was opened as a SQLite
// file of that name. serve logs where the store is as user@host:port/db,
// never with the password, in either form.
func TestServeAndTokenOnAKeyValueDSN(t *testing.T) {
	dsn := startPostgres(t) + " password=s3cret-kv" // the test server trusts: the password is ignored
	if out, errs, code := run(t, "token", "create", "--name", "kv", "--db", dsn); code != 0 || !strings.HasPrefix(out, "gps_") {
		t.Fatalf("token create --db %q: exit %d %s", dsn, code, errs)
	}
	out, errs, code := run(t, "token", "list", "-o", "json", "--db", dsn)
	if code != 0 || !strings.Contains(out, `"kv"`) {
		t.Fatalf("token list: exit %d %s %s", code, out, errs)
	}
	if _, err := os.Stat(dsn); err == nil {
		t.Fatalf("a SQLite file named after the connection string was made")
	}
	for _, db := range []string{dsn, pgURL(dsn, "s3cret-url")} {
		log := serveLog(t, db)
		if strings.Contains(log, "s3cret") {
			t.Errorf("serve --db %.30q…: the log shows the password:\n%s", db, log)
		}
		if !strings.Contains(log, `"db":"gpuscout@`) || !strings.Contains(log, `/postgres"`) {
			t.Errorf("serve --db %.30q…: want the store logged as user@host:port/db:\n%s", db, log)
		}
	}
}

// pgURL is the key=value connection string as a postgres:// URL with the
// password, host, port and search_path in it.
func pgURL(dsn, password string) string {
	q := url.Values{}
	u := url.URL{Scheme: "postgres", User: url.UserPassword("gpuscout", password), Path: "/postgres"}
	for _, kv := range strings.Fields(dsn) {
		k, v, _ := strings.Cut(kv, "=")
		if k != "user" && k != "dbname" && k != "password" {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// serveLog runs serve on db until it logs "serving", stops it, and returns
// its log.
func serveLog(t *testing.T, db string) string {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--db", db, "--listen", "127.0.0.1:0", "--no-user-catalog"}, io.Discard, pw)
		pw.Close()
	}()
	var log strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), `"msg":"serving"`) {
			break
		}
	}
	stop()
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
	}
	<-done
	return log.String()
}

// A connection string that fails (to parse, or to connect) is never
// echoed with its password, in either form. (Before, a key=value string
// was taken for a SQLite file name: token list made that file, and serve
// served from it.)
func TestDBErrorsHideThePassword(t *testing.T) {
	t.Chdir(t.TempDir()) // where a SQLite file named after the string would go
	for _, db := range []string{
		"host=127.0.0.1 port=1 user=u password=s3cret dbname=x connect_timeout=1 sslmode=disable",
		"host=127.0.0.1 port=1 user=u password='s3cret with spaces' dbname=x connect_timeout=1 sslmode=disable",
		"host=127.0.0.1 password='s3cret unterminated",
		"postgres://u:s3cret@127.0.0.1:1/x?connect_timeout=1&sslmode=disable",
		"postgres://u:s3cret@[::1:5432/x",
		"postgresql://127.0.0.1:1/x?password=s3cret&connect_timeout=1&sslmode=disable",
	} {
		for _, args := range [][]string{{"token", "list", "--db", db}, {"serve", "--db", db, "--no-user-catalog", "--listen", "127.0.0.1:0"}} {
			// A serve that does start is stopped after 30 s: a failure too.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			var out bytes.Buffer
			code := Main(ctx, args, &out, &out)
			cancel()
			if code == 0 || strings.Contains(out.String(), "s3cret") {
				t.Errorf("%s %.40q…: exit %d, output %q; want a failure without the password", args[0], db, code, out.String())
			}
		}
	}
}
