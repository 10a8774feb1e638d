package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/server/dashboard"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/postgres"
	"github.com/gpuscout/gpuscout/internal/store/postgres/pgtest"
	"github.com/gpuscout/gpuscout/internal/store/sqlite"
)

func TestOnSQLite(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "api.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	apiOnStore(t, st)
	t.Run("dashboard", func(t *testing.T) { dashboardOnStore(t, st) })
}

func TestOnPostgres(t *testing.T) {
	pgOnce.Do(func() { pgServer, pgErr = pgtest.Start(false) })
	if pgErr != nil {
		if errors.Is(pgErr, pgtest.ErrUnavailable) && !pgtest.Required() {
			t.Skip(pgErr)
		}
		t.Fatal(pgErr)
	}
	url, err := pgServer.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	apiOnStore(t, st)
	t.Run("dashboard", func(t *testing.T) { dashboardOnStore(t, st) })
}

// The PostgreSQL server, started by the first test that needs it and
// stopped by TestMain.
var (
	pgOnce   sync.Once
	pgServer *pgtest.Server
	pgErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pgServer != nil {
		if err := pgServer.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// apiOnStore: on a real store, uploads are idempotent and read back whole,
// filters with SQL metacharacters match nothing and harm nothing, and
// uploaded markup comes back escaped.
func apiOnStore(t *testing.T, st store.Store) {
	f := newFixture(t, func(c *Config) { c.Store = st })
	f.st = st
	// newFixture made its tokens in its own memory store; make them here.
	for _, sc := range []struct {
		scope string
		to    *string
	}{{ScopeRead, &f.read}, {ScopeWrite, &f.write}} {
		secret, tok, _ := NewToken("sq-"+sc.scope, []string{sc.scope}, f.srv.cfg.Now())
		if err := st.CreateToken(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
		*sc.to = secret
	}
	evil := `<script>x</script>' OR 1=1 --`
	body := reportWith(t, evil)
	for i, want := range []int{201, 200} {
		if w := f.do(t, "POST", "/api/v1/reports", f.write, body); w.Code != want {
			t.Fatalf("upload %d: got %d %s, want %d", i, w.Code, w.Body, want)
		}
	}
	w := f.do(t, "GET", "/api/v1/reports/"+store.DocumentID(body), f.read, nil)
	if w.Code != 200 || strings.ContainsAny(w.Body.String(), "<>") || !strings.Contains(w.Body.String(), `\u003cscript\u003e`) {
		t.Fatalf("get: got %d %s", w.Code, w.Body)
	}
	for q, want := range map[string]int{
		"host=" + url.QueryEscape(evil):                       1,
		"gpu=" + url.QueryEscape("' OR 1=1 --"):               0,
		"host=" + url.QueryEscape("x'; DROP TABLE tokens;--"): 0,
		"provider=%25": 0,
		"region=_":     0,
	} {
		w := f.do(t, "GET", "/api/v1/reports?"+q, f.read, nil)
		var got struct{ Reports []docSummary }
		decode(t, w, &got)
		if w.Code != 200 || len(got.Reports) != want {
			t.Errorf("?%s: got %d, %d reports; want 200, %d", q, w.Code, len(got.Reports), want)
		}
	}
	if w := f.do(t, "GET", "/api/v1/reports", f.read, nil); w.Code != 200 || !strings.Contains(w.Body.String(), store.DocumentID(body)) {
		t.Fatalf("after the filters the report and the tokens still work: got %d", w.Code)
	}
	if w := f.do(t, "GET", "/healthz", "", nil); w.Code != 200 {
		t.Fatalf("healthz: %d", w.Code)
	}
}

// dashboardOnStore: on a real store, the leaderboard reads its reports in
// one query each for the listing and for the bodies not decoded yet (never
// one per report), and with the page cache on it shows each upload as soon
// as the upload is answered, as a dashboard without a cache renders it,
// without reading the store again.
func dashboardOnStore(t *testing.T, st store.Store) {
	qc := &queryCounter{Store: st}
	f := newFixture(t, func(c *Config) {
		c.Store, c.ReadOpen, c.RatePerToken = st, true, MaxRate
		c.Dashboard = dashboard.New(dashboard.Config{Store: qc, Catalog: c.Catalog, CacheTTL: time.Hour})
	})
	f.st = st
	secret, tok, _ := NewToken("dash-write", []string{ScopeWrite}, f.srv.cfg.Now())
	if err := st.CreateToken(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	f.write = secret
	for i := range 20 {
		f.uploadBench(t, fmt.Sprintf("dash-seed-%d", i))
	}
	uncached := &queryCounter{Store: st}
	fresh := dashboard.New(dashboard.Config{Store: uncached, Catalog: f.srv.cfg.Catalog, CacheTTL: -1})
	if code, _ := getFrom(t, fresh, "/leaderboard"); code != 200 {
		t.Fatalf("GET /leaderboard: status %d", code)
	}
	if n := uncached.n.Load(); n > 2 {
		t.Errorf("a first render of /leaderboard over 20+ reports: %d queries, want at most 2 (the listing, the bodies)", n)
	}
	f.do(t, "GET", "/leaderboard", "", nil)
	f.do(t, "GET", "/leaderboard", "", nil)
	for i := range 3 {
		n := qc.n.Load()
		id := f.uploadBench(t, fmt.Sprintf("dash-new-%d", i))
		got := f.do(t, "GET", "/leaderboard", "", nil).Body.String()
		if !strings.Contains(got, id[:12]) {
			t.Errorf("GET /leaderboard after upload %d: the report is not shown", i)
		}
		if _, want := getFrom(t, fresh, "/leaderboard"); got != want {
			t.Errorf("GET /leaderboard after upload %d: not what a dashboard without a cache renders", i)
		}
		if q := qc.n.Load() - n; q != 0 {
			t.Errorf("upload %d and the leaderboard after it: %d queries, want 0", i, q)
		}
	}
}
