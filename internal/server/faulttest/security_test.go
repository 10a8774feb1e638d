package faulttest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestSecurity attacks a real `gpuscout serve` on each store: writes without a
// token or with a wrong one, an oversized body, markup in a report's
// fields, SQL in the list filters.
func TestSecurity(t *testing.T) {
	requireServe(t)
	forEachStore(t, security)
}

func security(t *testing.T, be backend) {
	db := be.newDB(t)
	token := createTokens(t, be, db, "writer", 1)[0]
	srv := startServer(t, db)
	client := &http.Client{Timeout: 60 * time.Second} // a request, not a deadline on the machine
	post := srv.base + "/api/v1/reports"

	t.Run("tokens", func(t *testing.T) {
		body := report(t, "auth-node", 1)
		wrong := "gps_" + strings.Repeat("0", 64)
		for _, tt := range []struct {
			name, header string
		}{
			{"no token", ""},
			{"wrong token", "Bearer " + wrong},
			{"token with one character changed", "Bearer " + token[:len(token)-1] + string("01"[map[bool]int{true: 1}[token[len(token)-1] == '0']])},
			{"not bearer", "Basic " + token},
			{"empty bearer", "Bearer "},
		} {
			req, _ := http.NewRequest("POST", post, bytes.NewReader(body))
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: status %d; want 401", tt.name, resp.StatusCode)
			}
		}
		// Nothing of those was stored.
		if code, _, _ := do(t, client, "GET", srv.base+"/api/v1/reports/"+sha(body), token, nil); code != http.StatusNotFound {
			t.Errorf("a refused upload: GET by id %d; want 404", code)
		}
	})

	t.Run("oversized body", func(t *testing.T) {
		// The default limit is 8 MiB; send 9 MiB of a valid JSON string.
		big := append([]byte(`{"padding":"`), bytes.Repeat([]byte("a"), 9<<20)...)
		big = append(big, `"}`...)
		code, b, err := do(t, client, "POST", post, token, big)
		if err != nil {
			// The server may close the connection after answering 413
			// while the client still writes; both are a refusal.
			t.Logf("oversized body: %v (connection closed by the server)", err)
			return
		}
		if code != http.StatusRequestEntityTooLarge {
			t.Errorf("9 MiB body: status %d %s; want 413", code, b)
		}
	})

	const markup = `<script>alert("x")</script><img src=x onerror=alert(1)>`
	var xssID string
	t.Run("markup escaped", func(t *testing.T) {
		body := report(t, markup, 2)
		code, b, err := do(t, client, "POST", post, token, body)
		if err != nil || code != http.StatusCreated {
			t.Fatalf("upload with markup in host.hostname: %d %v %s; want 201", code, err, b)
		}
		xssID = sha(body)
		for _, u := range []string{"/api/v1/reports/" + xssID, "/api/v1/reports", "/api/v1/reports?host=" + url.QueryEscape(markup)} {
			code, b, err := do(t, client, "GET", srv.base+u, token, nil)
			if err != nil || code != http.StatusOK {
				t.Fatalf("GET %s: %d %v", u, code, err)
			}
			if bytes.Contains(b, []byte("<script")) || bytes.Contains(b, []byte("<img")) {
				t.Errorf("GET %s: the answer carries the markup unescaped: %.300s", u, b)
			}
			if !bytes.Contains(b, []byte(`\u003cscript\u003e`)) {
				t.Errorf("GET %s: the hostname is missing or not \\u003c-escaped: %.300s", u, b)
			}
		}
		// The stored body is the upload, byte for byte, once decoded.
		got, err := getDocument(t, client, srv.base, token, xssID, body)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Host struct {
				Hostname string `json:"hostname"`
			} `json:"host"`
		}
		if err := json.Unmarshal(got, &doc); err != nil || doc.Host.Hostname != markup {
			t.Errorf("stored hostname %q, %v; want %q", doc.Host.Hostname, err, markup)
		}
		// The dashboard pages escape it too: the report page and the report
		// list show the host name as text.
		for _, page := range []string{"/", "/reports", "/reports/" + xssID, "/leaderboard"} {
			code, b, err := do(t, client, "GET", srv.base+page, token, nil)
			if err != nil || code != http.StatusOK {
				t.Errorf("page %s: %d %v; want 200", page, code, err)
				continue
			}
			if bytes.Contains(b, []byte("<script>alert")) || bytes.Contains(b, []byte("<img src=x")) {
				t.Errorf("page %s: the markup is in the HTML unescaped", page)
			}
			if (page == "/reports" || page == "/reports/"+xssID) && !bytes.Contains(b, []byte("&lt;script&gt;")) {
				t.Errorf("page %s: the host name is not shown as escaped text (&lt;script&gt;)", page)
			}
		}
	})

	t.Run("SQL metacharacters in filters", func(t *testing.T) {
		list := func(q string) (int, int) {
			code, b, err := do(t, client, "GET", srv.base+"/api/v1/reports"+q, token, nil)
			if err != nil {
				t.Fatal(err)
			}
			var l struct {
				Reports []json.RawMessage `json:"reports"`
			}
			_ = json.Unmarshal(b, &l)
			return code, len(l.Reports)
		}
		code, before := list("")
		if code != http.StatusOK || before == 0 {
			t.Fatalf("list: %d with %d reports; want 200 and the uploads", code, before)
		}
		for _, v := range []string{
			`' OR '1'='1`,
			`x'; DROP TABLE documents; --`,
			`x"); DROP TABLE documents; --`,
			`%`, `_`, `\`, `'`, `--`, `/*`, `*/;`,
			`fault-node' UNION SELECT * FROM tokens --`,
		} {
			for _, field := range []string{"gpu", "provider", "region", "host"} {
				code, n := list("?" + field + "=" + url.QueryEscape(v))
				if code != http.StatusOK || n != 0 {
					t.Errorf("%s=%q: status %d with %d reports; want 200 and none (no report has that value)", field, v, code, n)
				}
			}
		}
		if code, after := list(""); code != http.StatusOK || after != before {
			t.Errorf("after the filters: list %d with %d reports; want 200 and %d (the tables intact)", code, after, before)
		}
		// Writes still work.
		code, b, err := do(t, client, "POST", post, token, report(t, "after-sql", 3))
		if err != nil || code != http.StatusCreated {
			t.Errorf("upload after the filters: %d %v %s; want 201", code, err, b)
		}
	})
}
