package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// Every test of the package runs without the tester's own user catalog.
func init() {
	os.Setenv(usercatalog.EnvDir, filepath.Join(os.TempDir(), fmt.Sprintf("gpuscout-cli-test-%d-none", os.Getpid())))
}

// fakeAPI serves the fake price API: pages by region, throttling the first
// request of each page once (429), and answering 500 for page paths in fail.
type fakeAPI struct {
	mu        sync.Mutex
	pages     map[string]string // "region/page" -> body
	fail      map[string]bool
	throttled map[string]bool
	calls     int
	auth      []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	page := r.URL.Query().Get("page")
	if page == "" {
		page = "1"
	}
	key := r.URL.Query().Get("region") + "/" + page
	if !f.throttled[key] {
		f.throttled[key] = true
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	if f.fail[key] {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	body, ok := f.pages[key]
	if !ok {
		http.NotFound(w, r)
		return
	}
	io.WriteString(w, body)
}

// twoPages is cn-hangzhou's answer: the A10 type on page 1 (on-demand and
// spot), a row in USD and a row per month left out, and page 2 with a V100 type.
func twoPages(srvURL, a10 string) map[string]string {
	return map[string]string{
		"cn-hangzhou/1": `{"Items":[
{"currencyCode":"CNY","retailPrice":` + a10 + `,"unitOfMeasure":"1 Hour","armRegionName":"cn-hangzhou","armSkuName":"ecs.gn7i-c8g1.2xlarge","type":"Consumption"},
{"currencyCode":"CNY","retailPrice":2.1,"unitOfMeasure":"1 Hour","armRegionName":"cn-hangzhou","armSkuName":"ecs.gn7i-c8g1.2xlarge","type":"Spot"},
{"currencyCode":"USD","retailPrice":1.05,"unitOfMeasure":"1 Hour","armRegionName":"cn-hangzhou","armSkuName":"ecs.gn7i-c16g1.4xlarge","type":"Consumption"},
{"currencyCode":"CNY","retailPrice":3000,"unitOfMeasure":"1 Month","armRegionName":"cn-hangzhou","armSkuName":"ecs.gn7i-c16g1.4xlarge","type":"Consumption"}],
"NextPageLink":"` + srvURL + `/prices?region=cn-hangzhou&page=2"}`,
		"cn-hangzhou/2": `{"Items":[
{"currencyCode":"CNY","retailPrice":26.46,"unitOfMeasure":"1 Hour","armRegionName":"cn-hangzhou","armSkuName":"ecs.gn6e-c12g1.12xlarge","type":"Consumption"}],
"NextPageLink":null}`,
	}
}

type refreshEnv struct {
	t    *testing.T
	api  *fakeAPI
	srv  *httptest.Server
	dir  string
	args []string
}

func newRefreshEnv(t *testing.T) *refreshEnv {
	t.Helper()
	fake := &feedstest.FakeImporter{ProviderName: "alibaba", Currency: "CNY", SourceID: "fake-alibaba-api"}
	old := importers
	importers = func() []feeds.Importer { return []feeds.Importer{fake} }
	t.Cleanup(func() { importers = old })
	api := &fakeAPI{fail: map[string]bool{}, throttled: map[string]bool{}}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	api.pages = twoPages(srv.URL, "7.5")
	dir := t.TempDir()
	t.Setenv(usercatalog.EnvDir, dir)
	t.Setenv(feedstest.FakeTokenEnv, "secret-token-123")
	return &refreshEnv{t: t, api: api, srv: srv, dir: dir,
		args: []string{"catalog", "refresh", "--provider", "aliyun", "--region", "华东1", "--endpoint", srv.URL}}
}

// listing is every file under the user catalog with its contents' length
// and CURRENT's contents: what a failed refresh must leave as it was.
func (r *refreshEnv) listing() string {
	var out []string
	filepath.WalkDir(r.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(r.dir, p)
		out = append(out, fmt.Sprintf("%s %d %s", rel, len(b), map[bool]string{true: strings.TrimSpace(string(b))}[d.Name() == "CURRENT"]))
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func a10Row(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := run(t, append([]string{"offers", "--provider", "alibaba", "--gpu", "A10", "--all-regions", "--currency", "CNY", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("offers: exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r["instance_type"] == "ecs.gn7i-c8g1.2xlarge" && r["region"] == "cn-hangzhou" {
			return r
		}
	}
	t.Fatal("offers lists no ecs.gn7i-c8g1.2xlarge in cn-hangzhou")
	return nil
}

// TestRefreshEndToEnd: refresh against a fake API that pages and throttles
// → files written → offers shows the refreshed price with its source and
// date → catalog diff shows the change → a refresh failing half-way (page 2
// unavailable) leaves the files as they were → history diff.
func TestRefreshEndToEnd(t *testing.T) {
	r := newRefreshEnv(t)
	// Before any refresh: the embedded price, Alibaba's public table's.
	if row := a10Row(t); row["price_per_hour"] != 9.5326 || row["price_source"] != "karpenter-alibaba@5d2e0774" {
		t.Fatalf("before any refresh: %v from %v; want the table's 9.5326 from karpenter-alibaba@5d2e0774", row["price_per_hour"], row["price_source"])
	}

	out, errOut, code := run(t, r.args...)
	if code != 0 {
		t.Fatalf("refresh: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"alibaba cn-hangzhou: 2 offerings, 0 commitment prices, 0 spot bands, 0 licence prices imported (regions: cn-hangzhou)",
		"Left out 2 rows:",
		`currency USD, want CNY`, `unit "1 Month", want 1 Hour`,
		// The fake answers 2 types; a live refresh lists a region's whole
		// offer, so the public table's other 60 types there become unknown.
		"Against the prices in use now: 2 changed, 1 newly priced, 0 new offerings, 0 no longer listed, 60 no longer priced.",
		"60 offerings priced before are no longer listed in the regions it lists: their prices are now unknown, each noted with the last price seen.",
		"Wrote " + filepath.Join(r.dir, "alibaba", "cn-hangzhou", "20261130T120000Z"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("refresh output lacks %q:\n%s", want, out)
		}
	}
	// Two pages, each throttled once: four requests, each with the token.
	if r.api.calls != 4 {
		t.Errorf("%d requests, want 4 (2 pages, each throttled once)", r.api.calls)
	}
	for _, a := range r.api.auth {
		if a != "Bearer secret-token-123" {
			t.Errorf("request sent Authorization %q", a)
		}
	}
	meta, err := os.ReadFile(filepath.Join(r.dir, "alibaba", "cn-hangzhou", "20261130T120000Z", "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(meta), "secret-token-123") || !strings.Contains(string(meta), `"fetched_at": "2026-11-30T12:00:00Z"`) {
		t.Errorf("meta.json holds the token or lacks fetched_at:\n%s", meta)
	}

	row := a10Row(t)
	if row["price_per_hour"] != 7.5 || row["spot_price_per_hour"] != 2.1 || row["price_source"] != "fake-alibaba-api@2026-11-30" || row["price_as_of"] != "2026-11-30" {
		t.Errorf("refreshed row %v: want 7.5 CNY (spot 2.1) from fake-alibaba-api@2026-11-30", row)
	}
	if row := a10Row(t, "--no-user-catalog"); row["price_per_hour"] != 9.5326 {
		t.Errorf("--no-user-catalog: price %v, want the embedded 9.5326", row["price_per_hour"])
	}
	t.Setenv(usercatalog.EnvIgnore, "1")
	if row := a10Row(t); row["price_per_hour"] != 9.5326 {
		t.Errorf("%s=1: price %v, want the embedded 9.5326", usercatalog.EnvIgnore, row["price_per_hour"])
	}
	t.Setenv(usercatalog.EnvIgnore, "")

	out, _, _ = run(t, "offers", "--provider", "alibaba", "--gpu", "A10", "--currency", "CNY")
	if !strings.Contains(out, "prices for alibaba cn-hangzhou from your catalog refresh of 2026-11-30 (today)") {
		t.Errorf("offers text lacks the refresh note:\n%s", out)
	}
	out, _, code = run(t, "cost", "--offering", "alibaba/ecs.gn7i-c8g1.2xlarge/cn-hangzhou", "--for", "7d", "--currency", "CNY")
	if code != 0 || !strings.Contains(out, "from your catalog refresh of 2026-11-30") {
		t.Errorf("cost (exit %d) lacks the refresh note:\n%s", code, out)
	}
	// advise on Alibaba in China ranks the refreshed plan first (7.50 CNY/h ×
	// 8760 h × 3) and says where its price is from.
	out, _, code = run(t, "advise", "--scenario", "inference-online", "--hours-per-month", "730", "--china", "--provider", "alibaba", "--currency", "CNY", "--limit", "3")
	if code != 0 || !strings.Contains(out, "on-demand 7.50 CNY/h × 8760 h × 3 instances = 197,100.00 CNY") ||
		!strings.Contains(out, "prices for alibaba cn-hangzhou from your catalog refresh of 2026-11-30 (today)") {
		t.Errorf("advise --china (exit %d) lacks the refreshed plan or its note:\n%s", code, out)
	}
	out, _, _ = run(t, "offers", "--provider", "aws", "--gpu", "A100:8")
	if strings.Contains(out, "catalog refresh") {
		t.Errorf("offers of another provider mention the refresh:\n%s", out)
	}
	out, _, _ = run(t, "catalog", "info")
	flat := strings.Join(strings.Fields(out), " ") // undo the wrapping
	if !strings.Contains(flat, "alibaba cn-hangzhou: 2 offerings (62 replaced, 0 added), 0 commitment prices, 0 spot bands, 60 no longer listed (prices now unknown), 2 rows left out") ||
		!strings.Contains(flat, "2026-11-30 12:00 UTC (today); alibaba/cn-hangzhou/20261130T120000Z") || !strings.Contains(flat, "fake-alibaba-api@2026-11-30") {
		t.Errorf("catalog info lacks the refresh:\n%s", out)
	}

	out, errOut, code = run(t, "catalog", "diff", "--provider", "alibaba", "-o", "csv")
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errOut)
	}
	// Against the public table's prices (karpenter-alibaba@5d2e0774):
	// (7.5 − 9.5326) / 9.5326 = −21.3%; (26.46 − 78.958) / 78.958 = −66.5%.
	for _, want := range []string{
		"alibaba,ecs.gn7i-c8g1.2xlarge,cn-hangzhou,-,on-demand,changed,9.5326,7.5,CNY,-21.3,fake-alibaba-api@2026-11-30,2026-11-30",
		"alibaba,ecs.gn7i-c8g1.2xlarge,cn-hangzhou,-,spot,priced,,2.1,CNY",
		"alibaba,ecs.gn6e-c12g1.12xlarge,cn-hangzhou,-,on-demand,changed,78.958,26.46,CNY,-66.5",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}

	// A refresh whose second page stays unavailable fails; nothing changes.
	before := r.listing()
	r.api.pages = twoPages(r.srv.URL, "8")
	r.api.throttled = map[string]bool{}
	r.api.fail["cn-hangzhou/2"] = true
	out, errOut, code = run(t, r.args...)
	if code != 1 || !strings.Contains(errOut, "your catalog is unchanged") || !strings.Contains(errOut, "HTTP 503") {
		t.Errorf("failing refresh: exit %d, stderr %q; want 1 and the previous catalog kept", code, errOut)
	}
	if strings.Contains(errOut+out, "secret-token-123") {
		t.Error("the token is in the output")
	}
	if after := r.listing(); after != before {
		t.Errorf("a failed refresh changed the user catalog:\nbefore\n%s\nafter\n%s", before, after)
	}
	if row := a10Row(t); row["price_per_hour"] != 7.5 {
		t.Errorf("after a failed refresh: price %v, want 7.5", row["price_per_hour"])
	}

	// A dry run shows the change and writes nothing.
	delete(r.api.fail, "cn-hangzhou/2")
	r.api.throttled = map[string]bool{}
	out, _, code = run(t, append(r.args, "--dry-run")...)
	if code != 0 || !strings.Contains(out, "Against the prices in use now: 1 changed") || !strings.Contains(out, "+6.7") || !strings.Contains(out, "Dry run: nothing written.") {
		t.Errorf("dry run: exit %d:\n%s", code, out)
	}
	if after := r.listing(); after != before {
		t.Errorf("a dry run changed the user catalog:\n%s", after)
	}

	// The real one: a second version; the diff over the history shows 7.5 → 8.
	r.api.throttled = map[string]bool{}
	if _, errOut, code := run(t, r.args...); code != 0 {
		t.Fatalf("second refresh: %s", errOut)
	}
	if row := a10Row(t); row["price_per_hour"] != 8.0 {
		t.Errorf("after the second refresh: %v, want 8", row["price_per_hour"])
	}
	out, _, code = run(t, "catalog", "diff", "--since", "30d", "-o", "json")
	var changes []map[string]any
	if err := json.Unmarshal([]byte(out), &changes); code != 0 || err != nil {
		t.Fatalf("diff --since: exit %d, %v:\n%s", code, err, out)
	}
	if len(changes) != 1 || changes[0]["old"] != 7.5 || changes[0]["new"] != 8.0 || changes[0]["change_pct"] != 6.7 || changes[0]["old_source"] != "fake-alibaba-api@2026-11-30" {
		t.Errorf("diff --since 30d = %v; want one change 7.5 → 8 (+6.7%%)", changes)
	}
}

func TestRefreshBadInput(t *testing.T) {
	r := newRefreshEnv(t)
	good := filepath.Join(t.TempDir(), "page.json")
	os.WriteFile(good, []byte(twoPages("http://x", "7.5")["cn-hangzhou/2"]), 0o644)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"Items":[{"currencyCode":`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"catalog", "refresh"}, "catalog refresh needs --provider (one of alibaba) or --from-file FILE --format F"},
		{[]string{"catalog", "refresh", "--provider", "oracle"}, `--provider "oracle" is not a known provider`},
		{[]string{"catalog", "refresh", "--provider", "aws"}, "--provider aws: no price importer for it in this build (importers: alibaba)"},
		{[]string{"catalog", "refresh", "--from-file", good, "--format", "aws-offfer"}, `--format "aws-offfer" is not a known format; allowed: fake-prices`},
		{[]string{"catalog", "refresh", "--from-file", good}, "--from-file and --format go together (formats: fake-prices)"},
		{[]string{"catalog", "refresh", "--from-file", good, "--format", "fake-prices", "--provider", "aws"}, "--format fake-prices is a alibaba format, not aws's"},
		{[]string{"catalog", "refresh", "--from-file", filepath.Join(t.TempDir(), "none.json"), "--format", "fake-prices"}, "no such file"},
		{[]string{"catalog", "refresh", "--from-file", bad, "--format", "fake-prices", "--as-of", "2026-11-29"}, "bad.json (--format fake-prices): bad.json: malformed page"},
		{[]string{"catalog", "refresh", "--from-file", good, "--format", "fake-prices"}, "page.json: it carries no date of its prices; give the day you downloaded it with --as-of YYYY-MM-DD"},
		{[]string{"catalog", "refresh", "--from-file", good, "--format", "fake-prices", "--as-of", "29/11/2026"}, `--as-of "29/11/2026": want a date, YYYY-MM-DD`},
		{[]string{"catalog", "refresh", "--from-file", good, "--format", "fake-prices", "--as-of", "2026-12-01"}, "--as-of 2026-12-01: a date in the future (today is 2026-11-30)"},
		{[]string{"catalog", "refresh", "--provider", "alibaba", "--as-of", "2026-11-29"}, "--as-of 2026-11-29 dates the prices of a --from-file"},
		{[]string{"catalog", "refresh", "--provider", "alibaba", "--region", "Mars Base"}, `--region "Mars Base": not a region of alibaba`},
		{[]string{"catalog", "diff", "--since", "soon"}, `--since: duration "soon"`},
		{[]string{"catalog", "diff", "--provider", "oracle"}, `--provider "oracle" is not a known provider`},
	} {
		out, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q (stdout %q)", tc.args, code, errOut, tc.want, out)
		}
	}
	// Missing credentials: exit 2 naming where they are read from.
	t.Setenv(feedstest.FakeTokenEnv, "")
	_, errOut, code := run(t, r.args...)
	if code != ExitUsage || !strings.Contains(errOut, "--provider alibaba: no credentials found; set FAKE_PRICES_TOKEN") {
		t.Errorf("no credentials: exit %d, %q", code, errOut)
	}
	if r.api.calls != 0 {
		t.Errorf("%d requests without credentials", r.api.calls)
	}
	if r.listing() != "" {
		t.Errorf("failed refreshes wrote:\n%s", r.listing())
	}
	// Offline: the file's rows, dated by --as-of (a page carries no date), in a set of their own.
	out, errOut, code := run(t, "catalog", "refresh", "--from-file", good, "--format", "fake-prices", "--as-of", "2026-11-29")
	if code != 0 || !strings.Contains(out, "alibaba cn-hangzhou: 1 offerings") || !strings.Contains(out, "Prices dated 2026-11-29 (--as-of).") {
		t.Fatalf("--from-file: exit %d %s\n%s", code, errOut, out)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "alibaba", "fake-prices.cn-hangzhou", "CURRENT")); err != nil {
		t.Error(err)
	}
}

// TestDamagedUserCatalog: a user catalog file that no longer parses stops
// the commands with exit 1 naming the file and how to go on without it.
func TestDamagedUserCatalog(t *testing.T) {
	r := newRefreshEnv(t)
	if _, errOut, code := run(t, r.args...); code != 0 {
		t.Fatal(errOut)
	}
	bad := filepath.Join(r.dir, "alibaba", "cn-hangzhou", "20261130T120000Z", "offerings.csv")
	if err := os.WriteFile(bad, []byte("not,the,header\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "offers", "--provider", "alibaba")
	if code != ExitFailure || !strings.Contains(errOut, bad) || !strings.Contains(errOut, "--no-user-catalog") {
		t.Errorf("damaged user catalog: exit %d, %q; want 1 naming %s and --no-user-catalog", code, errOut, bad)
	}
	if _, errOut, code := run(t, "offers", "--provider", "alibaba", "--no-user-catalog"); code != 0 {
		t.Errorf("--no-user-catalog: exit %d %s", code, errOut)
	}
}
