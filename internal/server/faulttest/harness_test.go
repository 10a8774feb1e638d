package faulttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/cli"
	"github.com/gpuscout/gpuscout/internal/server"
)

// argsEnv, when set, makes the test binary run gpuscout with these
// arguments (separated by \x1f) instead of the tests: the server process.
const argsEnv = "GPUSCOUT_FAULTTEST_ARGS"

func TestMain(m *testing.M) {
	if a, ok := os.LookupEnv(argsEnv); ok {
		os.Exit(cli.Main(context.Background(), strings.Split(a, "\x1f"), os.Stdout, os.Stderr))
	}
	code := m.Run()
	if pgServer != nil {
		if err := pgServer.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// requireServe checks `gpuscout serve` takes the flags the tests use.
//
// Under -race the tests are skipped unless GPUSCOUT_FAULTTEST_RACE=1: the server
// processes would be race-instrumented copies of this binary (seconds each
// on a loaded machine), and the server's own tests already run its code
// under the race detector in-process; what this package adds is the real
// process, its crash and its restart.
func requireServe(t *testing.T) {
	t.Helper()
	if raceEnabled && os.Getenv("GPUSCOUT_FAULTTEST_RACE") != "1" {
		t.Skip("the race detector is on: set GPUSCOUT_FAULTTEST_RACE=1 to run the server processes race-instrumented (slow)")
	}
	var out bytes.Buffer
	for _, args := range [][]string{{"serve", "--db", "x", "--listen", "x", "--help"}, {"token", "create", "--name", "x", "--db", "x", "--help"}} {
		out.Reset()
		if code := cli.Main(context.Background(), args, &out, &out); code != cli.ExitOK {
			t.Fatalf("gpuscout %s: exit %d (%s); the fault and security tests need serve and token create with these flags", strings.Join(args, " "), code, strings.TrimSpace(out.String()))
		}
	}
}

// createTokens makes write tokens named prefix-0, prefix-1, ... in the
// store db (as `gpuscout token create` does, in-process: a process
// per token would cost a second each under -race) and returns their secrets.
func createTokens(t *testing.T, b backend, db, prefix string, n int) []string {
	t.Helper()
	st, err := b.open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secrets := make([]string, n)
	for i := range secrets {
		secret, tok, err := server.NewToken(prefix+"-"+strconv.Itoa(i), nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CreateToken(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
		secrets[i] = secret
	}
	return secrets
}

// serveProc is a running `gpuscout serve` process.
type serveProc struct {
	cmd  *exec.Cmd
	base string
	out  *bytes.Buffer
	done chan error
}

// freeAddr returns a loopback address no one listens on (now).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startServer starts serve on db and waits until /healthz answers.
func startServer(t *testing.T, db string, extra ...string) *serveProc {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), argsEnv+"="+strings.Join(append([]string{"serve", "--db", db, "--listen", addr}, extra...), "\x1f"))
	s := &serveProc{cmd: cmd, base: "http://" + addr, out: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() { s.kill() })
	deadline := time.Now().Add(60 * time.Second) // a cold start (migrations, a first PostgreSQL connection) on a busy machine
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			t.Fatalf("serve exited before it answered: %v\n%s", err, s.out)
		default:
		}
		if resp, err := http.Get(s.base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("serve did not answer /healthz within 60 s\n%s", s.out)
	return nil
}

// kill sends SIGKILL (kill -9) and waits for the process to be gone.
func (s *serveProc) kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		err := <-s.done
		s.done <- err
	}
}

// do sends a request and returns the status and body.
func do(t *testing.T, client *http.Client, method, url, token string, body []byte) (int, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// report returns a valid, compact bench report (the schema's fixture) whose
// host name is hostname and creation time now+i seconds, so that each i
// gives a distinct body and so a distinct id.
func report(t *testing.T, hostname string, i int) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "benchreport", "testdata", "report-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["host"].(map[string]any)["hostname"] = hostname
	doc["created_at"] = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// served is how the API shows a stored body inside its JSON answer:
// compacted, with <, > and & escaped (\u003c...), as encoding/json writes a
// json.RawMessage.
func served(t *testing.T, body []byte) []byte {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, body); err != nil {
		t.Fatal(err)
	}
	var h bytes.Buffer
	json.HTMLEscape(&h, c.Bytes())
	return h.Bytes()
}

// getDocument fetches a stored document by id and checks it whole: 200, the
// id the answer names, and the body exactly the one sent (whose SHA-256 is
// the id). It returns the body as served.
func getDocument(t *testing.T, client *http.Client, base, token, id string, sent []byte) ([]byte, error) {
	t.Helper()
	if sha(sent) != id {
		t.Fatalf("getDocument: the body given hashes to %s, not %s", sha(sent), id)
	}
	code, b, err := do(t, client, "GET", base+"/api/v1/reports/"+id, token, nil)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %s", id, code, b)
	}
	var got struct {
		Report struct {
			ID string `json:"id"`
		} `json:"report"`
		Document json.RawMessage `json:"document"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		return nil, fmt.Errorf("GET %s: the answer does not decode: %v", id, err)
	}
	if got.Report.ID != id || !bytes.Equal(got.Document, served(t, sent)) {
		return nil, fmt.Errorf("GET %s: report id %s, body of %d bytes; want the id and the %d bytes uploaded (a half-written or altered body)\n got %.200s\nwant %.200s",
			id, got.Report.ID, len(got.Document), len(sent), got.Document, served(t, sent))
	}
	return got.Document, nil
}
