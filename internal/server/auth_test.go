package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
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

// RFC 7235 §2.1: the auth scheme is case-insensitive, and one or more
// spaces separate it from the credentials.
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		header string
		want   int
	}{
		{"Bearer " + f.read, 200},
		{"bearer " + f.read, 200},
		{"BEARER " + f.read, 200},
		{"bEaReR " + f.read, 200},
		{"Bearer   " + f.read, 200},
		{"Bearer" + f.read, 401},
		{"Bearers " + f.read, 401},
		{"bearer ", 401},
	} {
		if w := f.do(t, "GET", "/api/v1/reports", "", nil, "Authorization", tc.header); w.Code != tc.want {
			t.Errorf("Authorization %.12q…: got %d %s, want %d", tc.header, w.Code, w.Body, tc.want)
		}
	}
}

// from sends a request from a client address.
func (f *fixture) from(t *testing.T, addr, method, path, auth string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req.RemoteAddr = addr
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, req)
	return w
}

// Failed sign-ins are throttled per client address: after a minute's
// allowance of wrong tokens (API or dashboard), the address gets 429 with
// Retry-After, even with a right token (a guess that hit is not told
// apart), while other addresses go on; a minute later it may try again.
func TestFailedSignInsThrottledPerAddress(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "page") })
	f := newFixture(t, func(c *Config) { c.Now = func() time.Time { return now }; c.Dashboard = page })
	const attacker, colleague = "198.51.100.7:40000", "198.51.100.8:40000"
	for i := range DefaultAuthFailures {
		path, auth := "/api/v1/reports", "Bearer gps_guess"+strconv.Itoa(i)
		if i%2 == 1 { // the dashboard's sign-in counts too
			path, auth = "/reports", basic("me", "gps_guess"+strconv.Itoa(i))
		}
		if w := f.from(t, attacker, "GET", path, auth); w.Code != 401 {
			t.Fatalf("failure %d: got %d %s, want 401", i+1, w.Code, w.Body)
		}
	}
	for _, tc := range []struct{ name, path, auth string }{
		{"another wrong token", "/api/v1/reports", "Bearer gps_guess-again"},
		{"a right token", "/api/v1/reports", "Bearer " + f.read},
		{"a right token on a page", "/reports", basic("me", f.read)},
	} {
		w := f.from(t, attacker, "GET", tc.path, tc.auth)
		ra, _ := strconv.Atoi(w.Header().Get("Retry-After"))
		if w.Code != 429 || ra < 1 || ra > 60 {
			t.Errorf("%s after %d failures: got %d Retry-After %q, want 429 with Retry-After 1 to 60 s", tc.name, DefaultAuthFailures, w.Code, w.Header().Get("Retry-After"))
		}
	}
	if w := f.from(t, colleague, "GET", "/api/v1/reports", "Bearer "+f.read); w.Code != 200 {
		t.Errorf("another address: got %d, want 200", w.Code)
	}
	// Requests without credentials are not sign-ins: /healthz still answers.
	if w := f.from(t, attacker, "GET", "/healthz", ""); w.Code != 200 {
		t.Errorf("healthz from the throttled address: got %d, want 200", w.Code)
	}
	now = now.Add(time.Minute)
	if w := f.from(t, attacker, "GET", "/api/v1/reports", "Bearer "+f.read); w.Code != 200 {
		t.Errorf("a minute later: got %d, want 200", w.Code)
	}
}

// A token made with a lifetime works until then and is refused after it
// with a 401 that says it expired (not counted as a failed sign-in: only
// a real secret gets that far); the list shows when it expires.
func TestExpiringToken(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f := newFixture(t, func(c *Config) { c.Now = func() time.Time { return now } })
	w := f.do(t, "POST", "/api/v1/tokens", f.admin, []byte(`{"name":"temp","scopes":["read"],"expires":"90d"}`))
	var tok tokenJSON
	decode(t, w, &tok)
	if w.Code != 201 || tok.ExpiresAt != "2027-03-01T00:00:00Z" {
		t.Fatalf("create: got %d %s, want 201 expiring 2027-03-01T00:00:00Z", w.Code, w.Body)
	}
	now = now.Add(90*24*time.Hour - time.Second)
	if w := f.do(t, "GET", "/api/v1/reports", tok.Secret, nil); w.Code != 200 {
		t.Fatalf("a second before it expires: got %d %s, want 200", w.Code, w.Body)
	}
	now = now.Add(time.Second)
	for i := range DefaultAuthFailures + 1 {
		w := f.do(t, "GET", "/api/v1/reports", tok.Secret, nil)
		var e apiError
		decode(t, w, &e)
		if w.Code != 401 || !strings.Contains(e.Error.Message, `token "temp" expired at 2027-03-01T00:00:00Z`) ||
			!strings.Contains(w.Header().Get("WWW-Authenticate"), `error_description="the token expired"`) {
			t.Fatalf("request %d when it expires: got %d %s (WWW-Authenticate %q), want 401 saying it expired", i, w.Code, w.Body, w.Header().Get("WWW-Authenticate"))
		}
	}
	if w := f.do(t, "GET", "/api/v1/tokens", f.admin, nil); w.Code != 200 || !strings.Contains(w.Body.String(), `"expires_at":"2027-03-01T00:00:00Z"`) {
		t.Errorf("list: got %d %s, want temp's expires_at", w.Code, w.Body)
	}
	for _, bad := range []string{"30m", "forever", "0", "11y", "-5d"} {
		w := f.do(t, "POST", "/api/v1/tokens", f.admin, []byte(`{"name":"x","expires":"`+bad+`"}`))
		var e apiError
		decode(t, w, &e)
		if w.Code != 400 || len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != "expires" || !strings.Contains(e.Error.Fields[0].Problem, "1h to 10y") {
			t.Errorf("expires %q: got %d %s, want 400 naming expires and the range", bad, w.Code, w.Body)
		}
	}
}

func TestParseLifetime(t *testing.T) {
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "1h": time.Hour, "2w": 14 * 24 * time.Hour, "10y": MaxTokenLifetime} {
		if got, err := ParseLifetime(in); err != nil || got != want {
			t.Errorf("ParseLifetime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
