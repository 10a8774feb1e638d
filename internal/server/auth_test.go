package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The dashboard shows the stored reports, hosts and plans that the API
// only shows to a read token: without --read-open its pages need one too,
// as a Bearer token or as the password of HTTP Basic auth (what a browser
// can send), and a 401 page challenges with Basic so the browser asks.
func TestDashboardNeedsAReadTokenUnlessReadOpen(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "reports of node-1") })
	for _, tc := range []struct {
		name      string
		readOpen  bool
		path      string
		auth      func(f *fixture) string // the Authorization header
		want      int
		challenge string // the WWW-Authenticate header's start on a 401
	}{
		{"closed, no token", false, "/reports", func(*fixture) string { return "" }, 401, "Basic "},
		{"closed, no token, stylesheet", false, "/static/dash.css", func(*fixture) string { return "" }, 401, "Basic "},
		{"closed, Bearer read token", false, "/reports", func(f *fixture) string { return "Bearer " + f.read }, 200, ""},
		{"closed, Basic read token", false, "/reports", func(f *fixture) string { return basic("anyone", f.read) }, 200, ""},
		{"closed, Basic write token", false, "/", func(f *fixture) string { return basic("", f.write) }, 200, ""},
		{"closed, Basic wrong token", false, "/reports", func(*fixture) string { return basic("me", "gps_nope") }, 401, "Basic "},
		{"closed, Basic empty password", false, "/reports", func(*fixture) string { return basic("me", "") }, 401, "Basic "},
		{"closed, Basic token as user name", false, "/reports", func(f *fixture) string { return basic(f.read, "") }, 200, ""},
		{"closed, Basic wrong token as user name", false, "/reports", func(*fixture) string { return basic("gps_nope", "") }, 401, "Basic "},
		{"closed, other scheme", false, "/reports", func(f *fixture) string { return "Token " + f.read }, 401, "Basic "},
		{"open, no token", true, "/reports", func(*fixture) string { return "" }, 200, ""},
		{"open, wrong token", true, "/reports", func(*fixture) string { return "Bearer gps_nope" }, 401, "Basic "},
		// The API's reads keep their Bearer challenge and do not take Basic.
		{"API, Basic read token", false, "/api/v1/reports", func(f *fixture) string { return basic("me", f.read) }, 401, "Bearer "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.ReadOpen, c.Dashboard = tc.readOpen, page })
			var hdr []string
			if a := tc.auth(f); a != "" {
				hdr = []string{"Authorization", a}
			}
			w := f.do(t, "GET", tc.path, "", nil, hdr...)
			if w.Code != tc.want {
				t.Fatalf("got %d %q, want %d", w.Code, w.Body, tc.want)
			}
			if got := w.Header().Get("WWW-Authenticate"); tc.want == 401 && !strings.HasPrefix(got, tc.challenge) {
				t.Errorf("WWW-Authenticate: got %q, want it to start %q", got, tc.challenge)
			}
			if tc.want == 401 && strings.Contains(w.Body.String(), "node-1") {
				t.Errorf("a refused request saw the page: %q", w.Body)
			}
			if tc.want == 401 && tc.challenge == "Basic " && !strings.Contains(w.Body.String(), "--read-open") {
				t.Errorf("the 401 page should say how to sign in: %q", w.Body)
			}
		})
	}
}

func basic(user, pass string) string {
	r, _ := http.NewRequest("GET", "/", nil)
	r.SetBasicAuth(user, pass)
	return r.Header.Get("Authorization")
}
