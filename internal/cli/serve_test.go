package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	} {
		code, _, errs := run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d with %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	code, out, _ = run("token", "list", "-o", "json")
	var list []struct {
		Name    string
		Scopes  []string
		Revoked bool
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 || len(list) != 1 || list[0].Name != "ci" || !list[0].Revoked || strings.Join(list[0].Scopes, ",") != "read,write" {
		t.Fatalf("list: exit %d %s (%v)", code, out, err)
	}
	if strings.Contains(out, "gps_") {
		t.Fatal("list shows a secret")
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
