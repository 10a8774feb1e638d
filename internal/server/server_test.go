package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

var (
	catOnce sync.Once
	cat     *catalog.Catalog
	catErr  error
)

func testCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	catOnce.Do(func() { cat, catErr = catalog.Default() })
	if catErr != nil {
		t.Fatal(catErr)
	}
	return cat
}

// fixture is a server over an in-memory store with one token per scope.
type fixture struct {
	srv                *Server
	st                 store.Store
	read, write, admin string
}

func newFixture(t *testing.T, edit func(*Config)) *fixture {
	t.Helper()
	f := &fixture{st: storetest.Memory()}
	cfg := Config{Store: f.st, Catalog: testCatalog(t)}
	if edit != nil {
		edit(&cfg)
	}
	var err error
	if f.srv, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []struct {
		scope string
		to    *string
	}{{ScopeRead, &f.read}, {ScopeWrite, &f.write}, {ScopeAdmin, &f.admin}} {
		secret, tok, err := NewToken("t-"+sc.scope, []string{sc.scope}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := f.st.CreateToken(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
		*sc.to = secret
	}
	return f
}

// do sends a request and returns the answer.
func (f *fixture) do(t *testing.T, method, path, token string, body []byte, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, req)
	return w
}

func decode(t *testing.T, w *httptest.ResponseRecorder, v any) {
	t.Helper()
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("answer %d %q: %v", w.Code, w.Body.String(), err)
	}
}

func report(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../benchreport/testdata/report-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reportWith returns the test report with its hostname replaced.
func reportWith(t *testing.T, host string) []byte {
	var m map[string]any
	if err := json.Unmarshal(report(t), &m); err != nil {
		t.Fatal(err)
	}
	m["host"].(map[string]any)["hostname"] = host
	b, _ := json.Marshal(m)
	return b
}

func TestAuth(t *testing.T) {
	body := report(t)
	for _, tc := range []struct {
		name     string
		readOpen bool
		method   string
		path     string
		token    func(*fixture) string
		want     int
	}{
		{"upload without token", true, "POST", "/api/v1/reports", func(*fixture) string { return "" }, 401},
		{"upload with wrong token", true, "POST", "/api/v1/reports", func(*fixture) string { return "gps_nope" }, 401},
		{"upload with read token", true, "POST", "/api/v1/reports", func(f *fixture) string { return f.read }, 403},
		{"upload with write token", false, "POST", "/api/v1/reports", func(f *fixture) string { return f.write }, 201},
		{"read closed without token", false, "GET", "/api/v1/reports", func(*fixture) string { return "" }, 401},
		{"read closed with read token", false, "GET", "/api/v1/reports", func(f *fixture) string { return f.read }, 200},
		{"read open without token", true, "GET", "/api/v1/gpus", func(*fixture) string { return "" }, 200},
		{"read open with wrong token", true, "GET", "/api/v1/gpus", func(*fixture) string { return "gps_nope" }, 401},
		{"tokens with write token", true, "GET", "/api/v1/tokens", func(f *fixture) string { return f.write }, 403},
		{"tokens without token", true, "GET", "/api/v1/tokens", func(*fixture) string { return "" }, 401},
		{"tokens with admin token", true, "GET", "/api/v1/tokens", func(f *fixture) string { return f.admin }, 200},
		{"healthz without token", false, "GET", "/healthz", func(*fixture) string { return "" }, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.ReadOpen = tc.readOpen })
			var b []byte
			if tc.method == "POST" {
				b = body
			}
			w := f.do(t, tc.method, tc.path, tc.token(f), b)
			if w.Code != tc.want {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tc.want)
			}
			if tc.want == 401 {
				var e apiError
				decode(t, w, &e)
				if e.Error.Code != "unauthorized" || w.Header().Get("WWW-Authenticate") == "" {
					t.Errorf("got %+v, header %q; want code unauthorized and WWW-Authenticate", e, w.Header().Get("WWW-Authenticate"))
				}
			}
		})
	}
}

func TestRevokedTokenRefused(t *testing.T) {
	f := newFixture(t, nil)
	if w := f.do(t, "DELETE", "/api/v1/tokens/t-write", f.admin, nil); w.Code != 204 {
		t.Fatalf("revoke: got %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "POST", "/api/v1/reports", f.write, report(t)); w.Code != 401 {
		t.Fatalf("upload with revoked token: got %d, want 401", w.Code)
	}
	if w := f.do(t, "DELETE", "/api/v1/tokens/nobody", f.admin, nil); w.Code != 404 {
		t.Fatalf("revoke unknown: got %d, want 404", w.Code)
	}
}

func TestUploadIdempotentAndGet(t *testing.T) {
	f := newFixture(t, nil)
	body := report(t)
	sum := sha256.Sum256(body)
	wantID := hex.EncodeToString(sum[:])
	for i, want := range []int{201, 200} {
		w := f.do(t, "POST", "/api/v1/reports?kind=bench", f.write, body)
		var got struct {
			ID      string `json:"id"`
			Created bool   `json:"created"`
		}
		decode(t, w, &got)
		if w.Code != want || got.ID != wantID || got.Created != (i == 0) {
			t.Fatalf("upload %d: got %d %+v, want %d id %s", i, w.Code, got, want, wantID)
		}
	}
	docs, _ := f.st.ListDocuments(context.Background(), store.Filter{}, false)
	if len(docs) != 1 || docs[0].GPU != "H200-SXM-141GB" || docs[0].Host != "node-1" || docs[0].TokenName != "t-write" {
		t.Fatalf("stored: got %+v, want one H200-SXM-141GB report from node-1 by t-write", docs)
	}
	w := f.do(t, "GET", "/api/v1/reports/"+wantID, f.read, nil)
	var got struct {
		Report   docSummary      `json:"report"`
		Document json.RawMessage `json:"document"`
	}
	decode(t, w, &got)
	var a, b any
	json.Unmarshal(got.Document, &a)
	json.Unmarshal(body, &b)
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	if w.Code != 200 || got.Report.ID != wantID || !bytes.Equal(ab, bb) {
		t.Fatalf("get: got %d %+v, want the uploaded document", w.Code, got.Report)
	}
	for path, want := range map[string]int{
		"/api/v1/reports/" + strings.Repeat("0", 64): 404,
		"/api/v1/reports/xyz":                        400,
	} {
		if w := f.do(t, "GET", path, f.read, nil); w.Code != want {
			t.Errorf("GET %s: got %d, want %d", path, w.Code, want)
		}
	}
}

func TestUploadValidation(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name, query, body, field string
	}{
		{"unknown kind", "?kind=song", `{}`, "kind"},
		{"unknown parameter", "?colour=red", `{}`, "colour"},
		{"bench not json", "", `nope`, "body"},
		{"bench unknown field", "", `{"schema_version":1,"surprise":1}`, "body"},
		{"bench wrong version", "", `{"schema_version":7}`, "body"},
		{"bench wrong type", "", `{"schema_version":"1"}`, "body"},
		{"plan not an object", "?kind=plan", `[1,2]`, "body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := f.do(t, "POST", "/api/v1/reports"+tc.query, f.write, []byte(tc.body))
			var e apiError
			decode(t, w, &e)
			if w.Code != 400 || len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != tc.field || e.Error.Fields[0].Problem == "" {
				t.Fatalf("got %d %s, want 400 naming field %s", w.Code, w.Body, tc.field)
			}
		})
	}
}

func TestSignature(t *testing.T) {
	key := []byte("node-7 secret key")
	f := newFixture(t, func(c *Config) { c.Keys = map[string][]byte{"node-7": key} })
	body := report(t)
	for _, tc := range []struct {
		name, keyID, sig string
		want             int
		signedBy         string
	}{
		{"bad signature", "node-7", Sign([]byte("other key"), body), 401, ""},
		{"malformed", "node-7", "md5=00", 400, ""},
		{"unknown key stored unsigned", "node-9", Sign(key, body), 201, ""},
		{"good signature", "node-7", Sign(key, reportWith(t, "signed")), 201, "node-7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := body
			if tc.signedBy != "" {
				b = reportWith(t, "signed")
			}
			w := f.do(t, "POST", "/api/v1/reports", f.write, b, SignatureHeader, tc.sig, KeyIDHeader, tc.keyID)
			if w.Code != tc.want {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tc.want)
			}
			if w.Code == 201 {
				d, err := f.st.GetDocument(context.Background(), store.DocumentID(b))
				if err != nil || d.SignedBy != tc.signedBy {
					t.Fatalf("stored signed_by: got %+v %v, want %q", d, err, tc.signedBy)
				}
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBody = 2048 })
	big := reportWith(t, strings.Repeat("x", 4096))
	w := f.do(t, "POST", "/api/v1/reports", f.write, big)
	var e apiError
	decode(t, w, &e)
	if w.Code != 413 || e.Error.Code != "too_large" {
		t.Fatalf("got %d %s, want 413 too_large", w.Code, w.Body)
	}
}

func TestRateLimit(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f := newFixture(t, func(c *Config) { c.RatePerToken = 1; c.Now = func() time.Time { return now } })
	for i := range 10 { // burst: max(10, 2×rate)
		if w := f.do(t, "GET", "/api/v1/plans", f.read, nil); w.Code != 200 {
			t.Fatalf("request %d: got %d, want 200", i, w.Code)
		}
	}
	w := f.do(t, "GET", "/api/v1/plans", f.read, nil)
	if w.Code != 429 || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("11th request: got %d Retry-After %q, want 429 with Retry-After 1", w.Code, w.Header().Get("Retry-After"))
	}
	if w := f.do(t, "GET", "/api/v1/plans", f.write, nil); w.Code != 200 {
		t.Fatalf("another token: got %d, want 200 (buckets are per token)", w.Code)
	}
	now = now.Add(time.Second)
	if w := f.do(t, "GET", "/api/v1/plans", f.read, nil); w.Code != 200 {
		t.Fatalf("a second later: got %d, want 200", w.Code)
	}
}

func TestEscaping(t *testing.T) {
	f := newFixture(t, nil)
	evil := `<script>alert("x")</script>&<img src=x onerror=alert(1)>`
	body := reportWith(t, evil)
	w := f.do(t, "POST", "/api/v1/reports", f.write, body)
	if w.Code != 201 {
		t.Fatalf("upload: got %d %s", w.Code, w.Body)
	}
	for _, path := range []string{"/api/v1/reports/" + store.DocumentID(body), "/api/v1/reports?host=" + url.QueryEscape(evil)} {
		w := f.do(t, "GET", path, f.read, nil)
		s := w.Body.String()
		if w.Code != 200 || strings.ContainsAny(s, "<>&") || !strings.Contains(s, `\u003cscript\u003e`) || w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("GET %s: got %d %s; want <, > and & escaped as \\u003c, \\u003e, \\u0026", path, w.Code, s)
		}
	}
}

func TestSQLMetacharactersInFilters(t *testing.T) {
	f := newFixture(t, nil)
	f.do(t, "POST", "/api/v1/reports", f.write, report(t))
	for _, q := range []string{"gpu=%27%20OR%201%3D1%20--", "host=x%22%3B%20DROP%20TABLE%20documents%3B--", "provider=%25", "region=_"} {
		w := f.do(t, "GET", "/api/v1/reports?"+q, f.read, nil)
		var got struct{ Reports []docSummary }
		decode(t, w, &got)
		if w.Code != 200 || len(got.Reports) != 0 {
			t.Errorf("?%s: got %d %d reports, want 200 and none", q, w.Code, len(got.Reports))
		}
	}
	if w := f.do(t, "GET", "/api/v1/reports", f.read, nil); !strings.Contains(w.Body.String(), "node-1") {
		t.Fatalf("the report is still there: got %s", w.Body)
	}
}

func TestListFilters(t *testing.T) {
	f := newFixture(t, nil)
	f.do(t, "POST", "/api/v1/reports", f.write, report(t))
	f.do(t, "POST", "/api/v1/reports?kind=plan", f.write, []byte(`{"plans":[],"inputs":{"scenario":"cv-training","reference_gpu":"H100-SXM5-80GB"}}`))
	for _, tc := range []struct {
		path, key string
		want      int
		code      int
	}{
		{"/api/v1/reports", "reports", 2, 200},
		{"/api/v1/reports?kind=bench", "reports", 1, 200},
		{"/api/v1/reports?gpu=H200-SXM-141GB", "reports", 1, 200},
		{"/api/v1/reports?limit=1", "reports", 1, 200},
		{"/api/v1/plans", "plans", 1, 200},
		{"/api/v1/reports?limit=5000", "", 0, 400},
		{"/api/v1/reports?since=yesterday", "", 0, 400},
		{"/api/v1/plans?kind=bench", "", 0, 400},
	} {
		w := f.do(t, "GET", tc.path, f.read, nil)
		if w.Code != tc.code {
			t.Errorf("%s: got %d %s, want %d", tc.path, w.Code, w.Body, tc.code)
			continue
		}
		if tc.code == 200 {
			var got map[string][]docSummary
			decode(t, w, &got)
			if len(got[tc.key]) != tc.want {
				t.Errorf("%s: got %d %s, want %d", tc.path, len(got[tc.key]), tc.key, tc.want)
			}
		}
	}
}

func TestCompare(t *testing.T) {
	f := newFixture(t, nil)
	a, b := report(t), reportWith(t, "node-2")
	f.do(t, "POST", "/api/v1/reports", f.write, a)
	f.do(t, "POST", "/api/v1/reports", f.write, b)
	ids := store.DocumentID(a) + "," + store.DocumentID(b)
	w := f.do(t, "GET", "/api/v1/reports/compare?ids="+ids, f.read, nil)
	var got struct {
		Reports []struct{ File string }
		Rows    []struct {
			Name, Device string
			Values       []struct{ Value *float64 }
		}
	}
	decode(t, w, &got)
	// report-v1.json: gemm_bf16 on gpu0 = 769 TFLOP/s.
	if w.Code != 200 || len(got.Reports) != 2 || got.Rows[0].Name != "gemm_bf16" || *got.Rows[0].Values[0].Value != 769 || *got.Rows[0].Values[1].Value != 769 {
		t.Fatalf("got %d %s", w.Code, w.Body)
	}
	for q, want := range map[string]int{"ids=" + store.DocumentID(a): 400, "ids=" + ids + ",abc": 400, "ids=" + store.DocumentID(a) + "," + strings.Repeat("1", 64): 404} {
		if w := f.do(t, "GET", "/api/v1/reports/compare?"+q, f.read, nil); w.Code != want {
			t.Errorf("?%s: got %d, want %d", q, w.Code, want)
		}
	}
}

func TestTokens(t *testing.T) {
	f := newFixture(t, nil)
	w := f.do(t, "POST", "/api/v1/tokens", f.admin, []byte(`{"name":"ci-uploader","scopes":["write"]}`))
	var tok tokenJSON
	decode(t, w, &tok)
	if w.Code != 201 || !strings.HasPrefix(tok.Secret, TokenPrefix) || len(tok.Secret) != len(TokenPrefix)+64 {
		t.Fatalf("create: got %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "POST", "/api/v1/reports", tok.Secret, report(t)); w.Code != 201 {
		t.Fatalf("upload with the new token: got %d, want 201", w.Code)
	}
	st, _ := f.st.TokenByHash(context.Background(), HashSecret(tok.Secret))
	if st == nil || bytes.Contains(st.Hash, []byte(tok.Secret)) || st.Name != "ci-uploader" {
		t.Fatalf("stored token: got %+v, want the hash only", st)
	}
	w = f.do(t, "GET", "/api/v1/tokens", f.admin, nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "ci-uploader") || strings.Contains(w.Body.String(), tok.Secret) {
		t.Fatalf("list: got %d %s; want the name and no secret", w.Code, w.Body)
	}
	for _, tc := range []struct{ body, field string }{
		{`{"name":"ci-uploader"}`, "name"},
		{`{"name":"bad name!"}`, "name"},
		{`{"name":"x","scopes":["root"]}`, "scopes"},
		{`{"name":"x","colour":1}`, "body"},
		{`{"name":7}`, "name"},
	} {
		w := f.do(t, "POST", "/api/v1/tokens", f.admin, []byte(tc.body))
		var e apiError
		decode(t, w, &e)
		if (w.Code != 400 && w.Code != 409) || len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != tc.field {
			t.Errorf("%s: got %d %s, want 400/409 naming %s", tc.body, w.Code, w.Body, tc.field)
		}
	}
}

func TestCatalogEndpoints(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.ReadOpen = true })
	c := testCatalog(t)
	w := f.do(t, "GET", "/api/v1/gpus", "", nil)
	var gpus struct{ GPUs []gpuJSON }
	decode(t, w, &gpus)
	if w.Code != 200 || len(gpus.GPUs) != len(c.GPUs) {
		t.Fatalf("gpus: got %d %d, want %d", w.Code, len(gpus.GPUs), len(c.GPUs))
	}
	// The same query through the catalog gives the same rows, in order.
	h100, err := c.LookupGPU("H100")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(catalog.Query{GPUs: h100, Providers: []string{"aws"}, Currency: "USD", FX: money.DefaultFX(), Limit: 100})
	if err != nil || len(rows) == 0 {
		t.Fatalf("catalog query: %d rows, %v", len(rows), err)
	}
	w = f.do(t, "GET", "/api/v1/offerings?gpu=H100&provider=aws", "", nil)
	var got struct{ Offerings []catalog.RowJSON }
	decode(t, w, &got)
	if w.Code != 200 || len(got.Offerings) != len(rows) {
		t.Fatalf("offerings: got %d %d rows, want %d", w.Code, len(got.Offerings), len(rows))
	}
	for i, r := range rows {
		o := got.Offerings[i]
		if o.Provider != "aws" || o.InstanceType != r.Offering.InstanceType || o.PricePerHour.String() != money.NullNumber(r.Price).String() || o.PriceSource == "" {
			t.Errorf("row %d: got %+v, want %s at %v", i, o, r.Offering.InstanceType, r.Price)
		}
	}
	for _, tc := range []struct{ query, field string }{
		{"gpu=NoSuchGPU", "gpu"},
		{"provider=nocloud", "provider"},
		{"region=atlantis-1", "region"},
		{"spot=maybe", "spot"},
		{"max-price=-1", "max-price"},
		{"currency=XYZ", "currency"},
		{"limit=-1", "limit"},
		{"colour=red", "colour"},
	} {
		w := f.do(t, "GET", "/api/v1/offerings?"+tc.query, "", nil)
		var e apiError
		decode(t, w, &e)
		if w.Code != 400 || len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != tc.field {
			t.Errorf("?%s: got %d %s, want 400 naming %s", tc.query, w.Code, w.Body, tc.field)
		}
	}
}

func TestOps(t *testing.T) {
	f := newFixture(t, nil)
	if w := f.do(t, "GET", "/healthz", "", nil); w.Code != 200 || !strings.Contains(w.Body.String(), `"ok"`) {
		t.Fatalf("healthz: got %d %s", w.Code, w.Body)
	}
	f.do(t, "GET", "/api/v1/reports", "", nil) // 401
	w := f.do(t, "GET", "/metrics", "", nil)
	want := `gpuscout_http_requests_total{code="401",method="GET",route="/api/v1/reports"} 1`
	if w.Code != 200 || !strings.Contains(w.Body.String(), want) || !strings.Contains(w.Body.String(), "gpuscout_http_request_duration_seconds_bucket") {
		t.Fatalf("metrics: got %d, want a line %s and the latency histogram", w.Code, want)
	}
	if w := f.do(t, "GET", "/api/v1/nothing", "", nil); w.Code != 404 || !strings.Contains(w.Body.String(), `"not_found"`) {
		t.Fatalf("unknown API route: got %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "GET", "/", "", nil); w.Code != 200 || !strings.Contains(w.Body.String(), "gpuscout") {
		t.Fatalf("landing page: got %d", w.Code)
	}
	if w := f.do(t, "GET", "/metrics", "", nil); !strings.Contains(w.Body.String(), `gpuscout_http_requests_total{code="200",method="GET",route="/"} 1`) {
		t.Fatalf("the landing page is not counted under route /")
	}
	d := newFixture(t, func(c *Config) {
		c.Dashboard = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "dashboard "+r.URL.Path) })
	})
	if w := d.do(t, "GET", "/reports", d.read, nil); w.Code != 200 || w.Body.String() != "dashboard /reports" {
		t.Fatalf("dashboard mount: got %d %q", w.Code, w.Body)
	}
	if w := d.do(t, "GET", "/api/v1/gpus", "", nil); w.Code != 401 {
		t.Fatalf("the API stays the API's under a dashboard: got %d", w.Code)
	}
}

// blockingStore holds PutDocument until release is closed.
type blockingStore struct {
	store.Store
	entered chan struct{}
	release chan struct{}
}

func (b *blockingStore) PutDocument(ctx context.Context, d *store.Document) (bool, error) {
	close(b.entered)
	<-b.release
	return b.Store.PutDocument(ctx, d)
}

func TestGracefulShutdown(t *testing.T) {
	f := newFixture(t, nil)
	bs := &blockingStore{Store: f.st, entered: make(chan struct{}), release: make(chan struct{})}
	f.srv.cfg.Store = bs
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, f.srv, 5*time.Second) }()
	answer := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/api/v1/reports", bytes.NewReader(report(t)))
		req.Header.Set("Authorization", "Bearer "+f.write)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answer <- -1
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answer <- resp.StatusCode
	}()
	<-bs.entered
	stop() // SIGTERM's effect: shut down with the upload in flight
	// The listener closes as shutdown begins (milliseconds; on a busy
	// machine, later): wait for a refused connection while the upload is
	// still held, and fail only if connections are still taken after 30 s.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Error("still accepting connections 30 s after shutdown began")
			break
		}
	}
	close(bs.release)
	if code := <-answer; code != 201 {
		t.Fatalf("in-flight upload: got %d, want 201", code)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := f.st.GetDocument(context.Background(), store.DocumentID(report(t))); err != nil {
		t.Fatalf("the in-flight upload is stored: %v", err)
	}
}

func TestAdviseValidation(t *testing.T) {
	// More calls than the expensive calls' burst, from one address.
	f := newFixture(t, func(c *Config) { c.ReadOpen, c.ExpensiveRate = true, 1000 })
	for _, tc := range []struct{ body, field string }{
		{`{"scenario":"nope","work":"10gpu-h@A100"}`, "scenario"},
		{`{"scenario":"inference-batch"}`, "for"},
		{`{"scenario":"inference-batch","work":"10gpu-h@A100","hours-per-month":5}`, "for"},
		{`{"scenario":"inference-batch","work":10}`, "work"},
		{`{"scenario":"inference-batch","work":"10gpu-h@A100","budget":"-5"}`, "budget"},
		{`{"scenario":"inference-batch","work":"10gpu-h@A100","provider":["nocloud"]}`, "provider"},
		{`{"scenario":"inference-batch","gpu":"Z9","for":"7d"}`, "gpu"},
		{`{"scenario":"inference-batch","work":"10gpu-h@A100","colour":1}`, "colour"},
		{`{"scenario":"inference-batch","work_gpu_hours":10}`, "work_gpu_hours"}, // a v1 name: 400 with its replacement
		{`{"scenario":"inference-batch","work":"10gpu-h@A100","no-spot":"maybe"}`, "no-spot"},
		{`{"scenario":"inference-batch","work":"10gpu-h@A100","currency":"XYZ"}`, "currency"},
		{`{"scenario":"inference-batch","work":"10gpu-h@A100","bench":["nothex"]}`, "bench"},
		{`{"scenario":"inference-batch","work":"1e12gpu-h@A100"}`, "work"}, // a check of the whole request names the inputs it is about
		{`["scenario"]`, "body"},
	} {
		w := f.do(t, "POST", "/api/v1/advise", "", []byte(tc.body))
		var e apiError
		decode(t, w, &e)
		if w.Code != 400 || len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != tc.field {
			t.Errorf("%s: got %d %s, want 400 naming %s", tc.body, w.Code, w.Body, tc.field)
		}
	}
}

func TestCost(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.ReadOpen, c.ExpensiveRate = true, 1000 })
	w := f.do(t, "POST", "/api/v1/cost?limit=3", "", []byte(`{"gpu":"A100:8","duration":"7d"}`))
	var got struct {
		Total   int
		Options []struct {
			Provider string
			Total    *float64
			Known    bool
		}
	}
	decode(t, w, &got)
	// total says the list was cut (the CLI lists every option).
	if w.Code != 200 || len(got.Options) != 3 || !got.Options[0].Known || *got.Options[0].Total <= 0 || got.Total <= 3 {
		t.Fatalf("got %d %s; want 3 options of a total above 3", w.Code, w.Body)
	}
	for _, tc := range []struct{ query, body, field string }{
		{"", `{"duration":"7d"}`, "gpu"},
		{"", `{"gpu":"Z9","duration":"7d"}`, "gpu"},
		{"", `{"gpu":"A100","colour":"red"}`, "body"},
		{"", `{"gpu":"A100","duration":"forever"}`, "body"},
		{"", `{"offering":"nocloud/x","duration":"7d"}`, "offering"},
		{"?limit=0", `{"gpu":"A100","duration":"7d"}`, "limit"},
		{"?cashflow=maybe", `{"gpu":"A100","duration":"7d"}`, "cashflow"},
		// The CLI's checks, now the API's too (cost.Request.Validate):
		// before, a credit in a currency without a rate or for an unknown
		// provider was priced.
		{"", `{"gpu":"A100","duration":"7d","currency":"XYZ"}`, "currency"},
		{"", `{"gpu":"A100","duration":"7d","credits":[{"amount":100,"currency":"XYZ"}]}`, "credits"},
		{"", `{"gpu":"A100","duration":"7d","storage":[{"kind":"object","gb_month":10,"price_per_gb_month":0.02,"currency":"XYZ"}]}`, "storage"},
		{"", `{"gpu":"A100","duration":"7d","credits":[{"amount":100,"currency":"USD","providers":["nocloud"]}]}`, "credits"},
	} {
		w := f.do(t, "POST", "/api/v1/cost"+tc.query, "", []byte(tc.body))
		var e apiError
		decode(t, w, &e)
		if w.Code != 400 || len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != tc.field {
			t.Errorf("%s %s: got %d %s, want 400 naming %s", tc.query, tc.body, w.Code, w.Body, tc.field)
		}
		if tc.field == "currency" || tc.field == "credits" || tc.field == "storage" {
			if strings.Contains(w.Body.String(), "--fx") {
				t.Errorf("%s %s: %s names the CLI's --fx", tc.query, tc.body, w.Body)
			}
		}
	}
}

// TestTokenCacheRevokedElsewhere: a token lookup is cached for
// tokenCacheTTL; a token revoked in the store by another server stops
// working here once that time has passed, and one revoked here at once.
func TestTokenCacheRevokedElsewhere(t *testing.T) {
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	f := newFixture(t, func(c *Config) { c.Now = func() time.Time { return now } })
	if w := f.do(t, "GET", "/api/v1/reports", f.read, nil); w.Code != 200 {
		t.Fatalf("read: got %d %s", w.Code, w.Body)
	}
	if err := f.st.RevokeToken(context.Background(), "t-read"); err != nil { // another server's revocation
		t.Fatal(err)
	}
	if w := f.do(t, "GET", "/api/v1/reports", f.read, nil); w.Code != 200 {
		t.Errorf("within %s of the last lookup: got %d, want 200 (cached)", tokenCacheTTL, w.Code)
	}
	now = now.Add(tokenCacheTTL)
	if w := f.do(t, "GET", "/api/v1/reports", f.read, nil); w.Code != 401 {
		t.Errorf("%s later: got %d, want 401 (revoked in the store)", tokenCacheTTL, w.Code)
	}
	// Revoked through this server: refused at once, though it was cached.
	if w := f.do(t, "POST", "/api/v1/reports", f.write, report(t)); w.Code != 201 && w.Code != 200 {
		t.Fatalf("upload: got %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "DELETE", "/api/v1/tokens/t-write", f.admin, nil); w.Code != 204 {
		t.Fatalf("revoke: got %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "POST", "/api/v1/reports", f.write, report(t)); w.Code != 401 {
		t.Errorf("after revoking here: got %d, want 401", w.Code)
	}
}

// Negative (and zero) GPU counts in advise's and cost's requests are
// refused with 400 naming the field, the value and the range: before, a
// bursty load's base or peak below zero was named only as "request", and
// cost's count said "from 0" though 0 is refused.
func TestNegativeCountsNamed(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.ReadOpen, c.ExpensiveRate = true, 1000 })
	for _, tc := range []struct{ path, body, field, value, allowed string }{
		{"/api/v1/advise", `{"scenario":"inference-online","gpu":"A100","pattern":"bursty","base":-2,"peak":4}`, "base", "base -2", "0 <= --base <= --peak <= 100000"},
		{"/api/v1/advise", `{"scenario":"inference-online","gpu":"A100","pattern":"bursty","base":1,"peak":-4}`, "peak", "peak -4", "0 <= --base <= --peak <= 100000"},
		{"/api/v1/advise", `{"scenario":"inference-batch","gpu":"A100:-4","for":"7d"}`, "gpu", `"-4"`, "more than 0 and at most 1024"},
		{"/api/v1/advise", `{"scenario":"inference-batch","work":"10gpu-h@A100","max-nodes":-1}`, "max-nodes", `"-1"`, "1 to 10000"},
		{"/api/v1/cost", `{"gpu":"A100:-8","duration":"7d"}`, "gpu", `"-8"`, "more than 0 and at most 1024"},
		{"/api/v1/cost", `{"gpu":"A100:0","duration":"7d"}`, "gpu", `"0"`, "more than 0 and at most 1024"},
		{"/api/v1/cost", `{"gpu":"A100:8","duration":"7d","instances":-3}`, "body", `"-3"`, "1 to 100000"},
		// A count no instance has is a 400 saying the counts sold, not an empty list.
		{"/api/v1/cost", `{"gpu":"A100:3","duration":"7d"}`, "request", "no offering has 3 × A100", "1, 2, 4, 8"},
	} {
		w := f.do(t, "POST", tc.path, "", []byte(tc.body))
		var e apiError
		decode(t, w, &e)
		found := false
		for _, fe := range e.Error.Fields {
			found = found || fe.Field == tc.field && strings.Contains(fe.Problem, tc.value) && strings.Contains(fe.Problem, tc.allowed)
		}
		if w.Code != 400 || !found {
			t.Errorf("%s %s: got %d %s; want 400 naming %s with %s and %s", tc.path, tc.body, w.Code, w.Body, tc.field, tc.value, tc.allowed)
		}
	}
}
