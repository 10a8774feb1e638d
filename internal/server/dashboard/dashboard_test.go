package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

// evil is a hostname an uploader chose to break the page with.
const evil = `<script>alert("x")</script>`

// fixture is a dashboard over a memory store seeded with real documents:
// the recorded H200 report as bench wrote it (no cloud identity), the same
// report as if run on AWS p5en.48xlarge in us-east-1 with a hostname
// carrying a script, and an advise plan.
type fixture struct {
	h                  http.Handler
	plain, onAWS, plan string // document ids
	st                 store.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Memory()
	f := &fixture{st: st}
	body, err := os.ReadFile("../../cli/testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	f.plain = put(t, st, store.KindBench, body, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	doc["cloud"] = map[string]any{"provider": "aws", "instance_type": "p5en.48xlarge", "region": "us-east-1", "zone": "", "matched_offering": "aws/p5en.48xlarge/us-east-1"}
	doc["host"].(map[string]any)["hostname"] = evil
	aws, _ := json.Marshal(doc)
	f.onAWS = put(t, st, store.KindBench, aws, time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC))
	f.plan = put(t, st, store.KindPlan, planJSON(t), time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC))
	f.h = New(Config{Store: st, Catalog: cat, Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }})
	return f
}

func put(t *testing.T, st store.Store, kind string, body []byte, at time.Time) string {
	t.Helper()
	d := &store.Document{ID: store.DocumentID(body), Kind: kind, Body: body, ReceivedAt: at, TokenName: "ci"}
	if _, err := st.PutDocument(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// pages lists every page of the fixture with a text each must show.
func (f *fixture) pages() map[string]string {
	return map[string]string{
		"/":                                "Bench reports: 2",
		"/catalog":                         "PRICE SOURCE",
		"/catalog?gpu=H200:8&provider=aws": "63.296",
		"/leaderboard":                     "USD per sustained bf16 TFLOP-hour",
		"/priceperf":                       "Price/performance",
		"/reports":                         f.onAWS[:12],
		"/reports/" + f.onAWS:              "gemm_bf16_sustained",
		"/compare?ids=" + f.plain + "," + f.onAWS: "(68%)",
		"/plans/" + f.plan:                        "Plans",
		"/spot":                                   "meets the deadline in",
	}
}

func TestEveryPageIsServedWithAStrictCSP(t *testing.T) {
	f := newFixture(t)
	for path, want := range f.pages() {
		res, body := get(t, f.h, path)
		if res.StatusCode != 200 {
			t.Errorf("GET %s: status %d, want 200\n%s", path, res.StatusCode, body)
			continue
		}
		if !strings.Contains(body, want) {
			t.Errorf("GET %s: the page does not show %q", path, want)
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, part := range []string{"default-src 'none'", "style-src 'self'", "img-src 'self' data:"} {
			if !strings.Contains(csp, part) {
				t.Errorf("GET %s: CSP %q lacks %q", path, csp, part)
			}
		}
		if strings.Contains(csp, "script-src") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s: CSP %q allows script or any inline style", path, csp)
		}
		if strings.Contains(body, "<script") {
			t.Errorf("GET %s: the page carries a script element", path)
		}
		if !strings.Contains(body, `name="viewport"`) {
			t.Errorf("GET %s: no viewport", path)
		}
	}
}

func TestUploadedTextIsEscaped(t *testing.T) {
	f := newFixture(t)
	// A plan whose texts carry markup: a summary line, a reason, an exclusion.
	var plan map[string]any
	if err := json.Unmarshal(planJSON(t), &plan); err != nil {
		t.Fatal(err)
	}
	plan["summary"] = []any{"1. " + evil}
	plan["excluded"] = []any{map[string]any{"what": evil, "reason": evil}}
	plan["plans"].([]any)[0].(map[string]any)["explanation"] = []any{evil}
	b, _ := json.Marshal(plan)
	bad := put(t, f.st, store.KindPlan, b, time.Date(2026, 11, 30, 23, 40, 0, 0, time.UTC))
	for _, path := range []string{"/reports", "/reports/" + f.onAWS, "/compare?ids=" + f.onAWS, "/plans/" + bad, "/"} {
		_, body := get(t, f.h, path)
		if strings.Contains(body, evil) {
			t.Errorf("GET %s: the hostname's script is on the page unescaped", path)
		}
		if (path == "/reports/"+f.onAWS || path == "/plans/"+bad) && !strings.Contains(body, "&lt;script&gt;") {
			t.Errorf("GET %s: the escaped hostname is missing", path)
		}
	}
}

// The CSP allows each inline style the page carries by its hash: the
// SVG charts' style attribute hashes to a fixed value.
func TestCSPHashesInlineStyles(t *testing.T) {
	page := []byte(`<svg style="max-width:760px;height:auto"></svg><style>b{}</style>`)
	got := CSP(page)
	// printf 'max-width:760px;height:auto' | openssl dgst -sha256 -binary | base64
	for _, want := range []string{"'unsafe-hashes'", "'sha256-" + hashOf("max-width:760px;height:auto") + "'", "'sha256-" + hashOf("b{}") + "'"} {
		if !strings.Contains(got, want) {
			t.Errorf("CSP = %q, want it to contain %s", got, want)
		}
	}
	if got := CSP([]byte("<p>plain</p>")); strings.Contains(got, "sha256") || strings.Contains(got, "unsafe") {
		t.Errorf("a page with no inline style: CSP = %q, want no hash", got)
	}
}

func TestBadInputIsA400NamingTheParameter(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ path, want string }{
		{"/catalog?gpu=NOPE-9000", "--gpu: unknown GPU &#34;NOPE-9000&#34;"},
		{"/catalog?provider=nocloud", "provider &#34;nocloud&#34; is not a known provider"},
		{"/catalog?max-price=-1", "--max-price &#34;-1&#34;: want a price per hour from 0"},
		{"/catalog?limit=0", "limit &#34;0&#34;: want a whole number from 1 to 1000"},
		{"/catalog?china=maybe", "invalid argument &#34;maybe&#34; for &#34;--china&#34; flag: want true or false"},
		{"/catalog?region=%27%3B+DROP+TABLE+documents%3B--", "is not a known region"},
		{"/reports/zz", "report id &#34;zz&#34;: want the 64 hex digits"},
		{"/compare?ids=", "want 1 to 8 report ids"},
		{"/reports?page=0", "page &#34;0&#34;: want a whole number from 1 to 1000"},
		{"/leaderboard?page=x", "page &#34;x&#34;"},
		{"/spot?runs=5", "runs &#34;5&#34;: want a whole number from 10 to 1000"},
		{"/spot?work=72&deadline=50", "deadline &#34;50&#34;: want at least the work"},
		{"/spot?work=1e9", "work &#34;1e9&#34;: want hours above 0 and at most 10000"},
		{"/spot?offering=aws/nope", "offering aws/nope"},
		// A parameter the page does not read is refused, not ignored: the
		// page would look filtered and be whole.
		{"/catalog?max_price=1", "&#34;max_price&#34;: this page has no such parameter; it reads gpu, provider, region, max-price, china, no-china, spot, sort, limit"},
		{"/catalog?sort=cheapest", "sort"},
		{"/reports?host=node-1", "&#34;host&#34;: this page has no such parameter; it reads gpu, provider, page"},
		{"/reports?provider=nocloud", "provider &#34;nocloud&#34; is not a known provider"},
		{"/leaderboard?page=1&sort=price", "&#34;sort&#34;: this page has no such parameter; it reads page"},
		{"/priceperf?gpu=H100", "&#34;gpu&#34;: this page has no such parameter; it reads no parameters"},
		{"/?debug=1", "&#34;debug&#34;"},
		{"/plans?scenario=cv-training", "&#34;scenario&#34;: this page has no such parameter; it reads page"},
		{"/compare?ids=x&page=2", "&#34;page&#34;: this page has no such parameter; it reads ids"},
		{"/spot?runz=10", "&#34;runz&#34;: this page has no such parameter; it reads offering, work, deadline, runs"},
		{"/reports/" + strings.Repeat("0", 64) + "?%3Cb%3E=1", "&#34;&lt;b&gt;&#34;: this page has no such parameter"},
	} {
		res, body := get(t, f.h, tc.path)
		if res.StatusCode != 400 {
			t.Errorf("GET %s: status %d, want 400", tc.path, res.StatusCode)
		}
		if !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: the page does not say %q:\n%s", tc.path, tc.want, body)
		}
	}
	// A spot price on the catalog page links to the simulation of that offering, which runs.
	_, cat := get(t, f.h, "/catalog?gpu=A100:8&provider=aws&spot=1")
	if !strings.Contains(cat, `href="/spot?offering=aws%2Fp4d.24xlarge%2F`) {
		t.Errorf("the catalog's spot prices do not link to /spot")
	}
	res, _ := get(t, f.h, "/reports/"+strings.Repeat("0", 64))
	if res.StatusCode != 404 {
		t.Errorf("a report nobody uploaded: status %d, want 404", res.StatusCode)
	}
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// The leaderboard prices the AWS report at p5en.48xlarge's on-demand price
// in us-east-1 (63.296 USD/h for 8 H200, karpenter-aws@2026-07-20):
// 7.912 USD per GPU-hour; ÷ 671.2 sustained TFLOP/s = 0.011788 USD per
// TFLOP-hour; ÷ 4239 GB/s = 0.0018665 USD per GB/s-hour (shown 0.001866);
// over the datasheet's 989 TFLOP/s, 0.008 USD per TFLOP-hour. The report with
// no cloud identity is listed, unpriced, and says so.
func TestLeaderboardPricesMeasuredWork(t *testing.T) {
	f := newFixture(t)
	_, body := get(t, f.h, "/leaderboard")
	row := rowOf(body, f.onAWS[:12])
	for _, want := range []string{">1<", "aws/p5en.48xlarge/us-east-1", ">7.912<", ">671.2<", ">0.01179<", ">4239<", ">0.001866<", ">0.008<", "karpenter-aws@2026-07-20", "2026-07-20"} {
		if !strings.Contains(row, want) {
			t.Errorf("leaderboard row of the AWS report lacks %s:\n%s", want, row)
		}
	}
	plain := rowOf(body, f.plain[:12])
	if !strings.Contains(plain, "no matched offering") {
		t.Errorf("the report without a cloud identity should say it has no matched offering:\n%s", plain)
	}
	if !strings.Contains(body, "1 report(s) name no catalog offering") {
		t.Errorf("the leaderboard does not count the unpriced report")
	}
	if !strings.Contains(body, "(datasheet)") || !strings.Contains(body, "NOT measured") {
		t.Errorf("the datasheet column is not marked as such")
	}
}

// rowOf returns the table row of the page that mentions s.
func rowOf(page, s string) string {
	i := strings.Index(page, s)
	if i < 0 {
		return ""
	}
	start := strings.LastIndex(page[:i], "<tr>")
	end := strings.Index(page[i:], "</tr>")
	if start < 0 || end < 0 {
		return ""
	}
	return page[start : i+end]
}

// planJSON is a real `gpuscout advise --scenario cv-training --gpu A100:4
// --for 7d --deadline 9d -o json` output.
func planJSON(t *testing.T) []byte {
	b, err := os.ReadFile("testdata/plan-a100.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The plan page is the plan report, rebuilt from the upload: the question,
// the recommended plan (#1, aws p5.48xlarge spot at 278.87 USD), its
// price's source, the charts, and what could not be rebuilt.
func TestPlanPageIsThePlanReport(t *testing.T) {
	f := newFixture(t)
	res, body := get(t, f.h, "/plans/"+f.plan)
	if res.StatusCode != 200 {
		t.Fatalf("status %d\n%s", res.StatusCode, body)
	}
	for _, want := range []string{"gpuscout plan: cv-training", "672", "p5.48xlarge", "278.87", "skypilot-v9@", "<svg", "cash-flow chart", `href="/leaderboard"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the plan page lacks %q", want)
		}
	}
}

// Pages that depend only on their URL and the catalog are kept: the second
// answer is the first's bytes and headers; an error page is not kept.
func TestCachedPagesAreTheSame(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/catalog?gpu=H100", "/spot?runs=50", "/plans/" + f.plan} {
		r1, b1 := get(t, f.h, path)
		r2, b2 := get(t, f.h, path)
		if r1.StatusCode != 200 || r2.StatusCode != 200 || b1 != b2 || r1.Header.Get("Content-Security-Policy") != r2.Header.Get("Content-Security-Policy") {
			t.Errorf("GET %s twice: status %d, %d; same body %v; same CSP %v", path, r1.StatusCode, r2.StatusCode, b1 == b2,
				r1.Header.Get("Content-Security-Policy") == r2.Header.Get("Content-Security-Policy"))
		}
	}
	for range 2 {
		if res, _ := get(t, f.h, "/catalog?limit=0"); res.StatusCode != 400 {
			t.Errorf("a bad query: status %d, want 400 every time", res.StatusCode)
		}
	}
}

// Lists show 100 rows a page: 101 more reports make the fixture's 103,
// the last three on page 2, ranked on from 101 on the leaderboard.
func TestListsArePaged(t *testing.T) {
	f := newFixture(t)
	body, err := os.ReadFile("../../cli/testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 101 {
		b := strings.Replace(string(body), "h200-node", fmt.Sprintf("node-%d", i), 1)
		put(t, f.st, store.KindBench, []byte(b), time.Date(2026, 11, 1, 0, 0, i, 0, time.UTC))
	}
	for _, tc := range []struct{ path, want string }{
		{"/reports", `href="/reports?page=2">next page`},
		{"/reports?page=2", "Reports 101 to 103"},
		{"/leaderboard", "1 to 100 of 103 reports"},
		{"/leaderboard?page=2", "101 to 103 of 103 reports"},
		{"/leaderboard?page=2", `<td class="n">-</td>`}, // unpriced: no rank
		{"/leaderboard?page=2", `href="/leaderboard?page=1">previous page`},
	} {
		if _, b := get(t, f.h, tc.path); !strings.Contains(b, tc.want) {
			t.Errorf("GET %s: the page lacks %s", tc.path, tc.want)
		}
	}
}

// The price/performance page uses the uploaded reports' sustained bf16 for
// the H200 (both reports measured 671.2 TFLOP/s: the mean is 671.2) and
// says on each H200 row where it was measured: AWS's row was measured
// there (1 of the 2 reports; the other has no cloud identity), Nebius's
// row was not, and says so rather than "measured"; other GPUs are at
// their datasheet figure, said as well, and the chart draws both kinds.
func TestPricePerfMarksMeasuredAndDatasheet(t *testing.T) {
	f := newFixture(t)
	_, body := get(t, f.h, "/priceperf")
	table := body[strings.Index(body, "<tbody>"):] // the chart's tooltips name the GPUs too
	for _, tc := range []struct{ provider, want string }{
		{"aws", "measured here (1 of 2 report(s))"},
		{"nebius", "measured on aws ×1, no cloud ×1; not on nebius"},
	} {
		var row string
		for _, r := range strings.Split(table, "</tr>") {
			if strings.Contains(r, ">H200-SXM-141GB<") && strings.Contains(r, ">"+tc.provider+"<") {
				row = r
			}
		}
		if !strings.Contains(row, ">671.2<") || !strings.Contains(row, ">"+tc.want+"<") {
			t.Errorf("the %s H200 row should carry 671.2 and %q:\n%s", tc.provider, tc.want, row)
		}
	}
	h100 := rowOf(table, "H100-SXM5-80GB")
	if !strings.Contains(h100, ">989<") || !strings.Contains(h100, ">datasheet<") {
		t.Errorf("the H100 row should carry the datasheet's 989 TFLOP/s, marked:\n%s", h100)
	}
	for _, want := range []string{"<svg", `<circle r="9"`, `fill="white"`, "measured: mean sustained bf16 of uploaded reports", "datasheet: dense bf16"} {
		if !strings.Contains(body, want) {
			t.Errorf("the chart lacks %s", want)
		}
	}
	// The chart's filled marks do not say where a figure was measured: its
	// caption counts those measured on other providers' nodes, as the
	// table's FIGURE column does row by row.
	elsewhere := strings.Count(table, ">measured on ")
	text := strings.Join(strings.Fields(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(body, " ")), " ") // the caption wraps over <text> lines
	if want := fmt.Sprintf(" %d of the measured points carry a figure measured on other providers", elsewhere); elsewhere == 0 || !strings.Contains(text, want) {
		t.Errorf("the caption should say %q (%d table rows measured elsewhere)", want, elsewhere)
	}
}

// The workload table prices a training step: a run of 1000 samples/s with a
// median step of 256 ms (test figures, not a measurement) on the AWS H200
// at 7.912 USD per GPU-hour costs 7.912 ÷ 3.6 = 2.198 USD per 1M samples
// and 7.912 × 256 × 1000 ÷ 3,600,000 = 0.5626 USD per 1000 steps; a run
// with tiny test shapes is left out.
func TestLeaderboardPricesTrainingSteps(t *testing.T) {
	f := newFixture(t)
	doc, err := f.st.GetDocument(context.Background(), f.onAWS)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(doc.Body, &m); err != nil {
		t.Fatal(err)
	}
	m["workloads"] = []map[string]any{
		{"name": "test-train", "device": "gpu0", "batch": 256, "value": 1000, "unit": "samples/s", "step_ms_median": 256},
		{"name": "tiny-train", "device": "gpu0", "batch": 2, "value": 10, "unit": "samples/s", "tiny": true},
	}
	b, _ := json.Marshal(m)
	put(t, f.st, store.KindBench, b, time.Date(2026, 11, 30, 23, 50, 0, 0, time.UTC))
	_, lb := get(t, f.h, "/leaderboard")
	row := rowOf(lb, "test-train")
	for _, want := range []string{">1000<", ">2.198<", ">256<", ">0.5626<", "karpenter-aws@2026-07-20, 2026-07-20"} {
		if !strings.Contains(row, want) {
			t.Errorf("the workload row lacks %s:\n%s", want, row)
		}
	}
	if strings.Contains(lb, "tiny-train") {
		t.Errorf("a run with tiny test shapes is priced")
	}
}

// The report page is bench's table: the sustained bf16 row as the report
// carries it (671.2 TFLOP/s, efficiency 0.6787 → 67.9%, p50 1638 µs) and
// the detail of what was not measured.
func TestReportPageIsBenchsTable(t *testing.T) {
	f := newFixture(t)
	_, body := get(t, f.h, "/reports/"+f.plain)
	row := rowOf(body, "gemm_bf16_sustained")
	for _, want := range []string{">gpu0<", ">671.2<", ">TFLOP/s<", ">67.9%<", ">1638<", ">1714<", ">ok<"} {
		if !strings.Contains(row, want) {
			t.Errorf("the sustained bf16 row lacks %s:\n%s", want, row)
		}
	}
	if !strings.Contains(body, "p2p on node: 1 GPU: a peer-to-peer copy needs two or more") {
		t.Errorf("the unsupported p2p measurement's detail is missing")
	}
}

// Unknown paths and other methods get a page with the same headers.
func TestUnknownPathsAndMethods(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		method, path string
		status       int
	}{{"GET", "/nope", 404}, {"GET", "/reports/a/b", 404}, {"POST", "/catalog", 405}, {"DELETE", "/", 405}} {
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != tc.status || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s %s: status %d, CSP %q; want %d with the CSP", tc.method, tc.path, rec.Code, rec.Header().Get("Content-Security-Policy"), tc.status)
		}
	}
}

// headers returns the column headers of the page's first table.
func headers(page string) []string {
	i := strings.Index(page, "<thead>")
	j := strings.Index(page, "</thead>")
	if i < 0 || j < i {
		return nil
	}
	var out []string
	parts := strings.Split(page[i:j], "</th>")
	for _, th := range parts[:len(parts)-1] {
		out = append(out, th[strings.LastIndex(th, ">")+1:])
	}
	return out
}

// cells returns the texts of a table row's cells, links unwrapped.
func cells(row string) []string {
	var out []string
	for _, td := range strings.Split(row, "<td")[1:] {
		td = td[strings.Index(td, ">")+1:]
		td = td[:strings.Index(td, "</td>")]
		if strings.HasPrefix(td, "<a ") {
			td = td[strings.Index(td, ">")+1 : strings.Index(td, "</a>")]
		}
		out = append(out, td)
	}
	return out
}

// The leaderboard's table is wider than a laptop's page (and a phone's):
// its rank and the figure it ranks by come first, then the GPU and the
// offering, so that what an engineer acts on shows without scrolling; the
// AWS report's row reads 1, 0.01179 (7.912 ÷ 671.2), H200, the offering.
func TestLeaderboardLeadsWithTheRankedFigure(t *testing.T) {
	f := newFixture(t)
	_, body := get(t, f.h, "/leaderboard")
	h := headers(body)
	want := []string{"#", "USD/TFLOP-h (measured)", "GPU", "OFFERING", "USD/GPU-h"}
	if len(h) < len(want) || strings.Join(h[:len(want)], "|") != strings.Join(want, "|") {
		t.Fatalf("leaderboard columns: got %q, want them to start %q", h, want)
	}
	if h[len(h)-1] != "REPORT" {
		t.Errorf("the last column: got %q, want REPORT", h[len(h)-1])
	}
	row := cells(rowOf(body, f.onAWS[:12]))
	wantRow := []string{"1", "0.01179", "H200-SXM-141GB", "aws/p5en.48xlarge/us-east-1", "7.912"}
	if len(row) < len(wantRow) || strings.Join(row[:len(wantRow)], "|") != strings.Join(wantRow, "|") {
		t.Errorf("the AWS report's row: got %q, want it to start %q", row, wantRow)
	}
	if last := row[len(row)-1]; last != f.onAWS[:12] || !strings.Contains(rowOf(body, f.onAWS[:12]), `href="/reports/`+f.onAWS+`"`) {
		t.Errorf("the report column: got %q, want a link to %s", last, f.onAWS)
	}
}

// Price/performance ranks measured and datasheet figures apart: the
// fixture's H200 is measured at 671.2 sustained TFLOP/s (68% of its
// datasheet's 989), so one ranking of both would rank it below GPUs known
// only by their datasheet peak. The measured table holds only measured
// rows, the datasheet table only datasheet ones, each led by the figure
// it ranks by.
func TestPricePerfRanksMeasuredApartFromDatasheet(t *testing.T) {
	f := newFixture(t)
	_, body := get(t, f.h, "/priceperf")
	m := strings.Index(body, "<h2>Measured: sustained bf16 TFLOP/s for the price</h2>")
	d := strings.Index(body, "<h2>Datasheet (not measured): dense bf16 TFLOP/s for the price</h2>")
	if m < 0 || d < m {
		t.Fatalf("want a measured table, then a datasheet table; headings at %d and %d", m, d)
	}
	for _, tc := range []struct {
		name, table, want, not string
	}{
		{"measured", body[m:d], ">measured ", ">datasheet<"},
		{"datasheet", body[d:], ">datasheet<", ">measured "},
	} {
		if h := headers(tc.table); len(h) == 0 || h[0] != "TFLOP/s per USD/GPU-h" {
			t.Errorf("%s table: columns %q, want the ranked figure first", tc.name, h)
		}
		if !strings.Contains(tc.table, tc.want) || strings.Contains(tc.table, tc.not) {
			t.Errorf("%s table: want rows marked %q and none marked %q", tc.name, tc.want, tc.not)
		}
	}
}

// Plans have a list page of their own (the overview showed the 10 newest
// as bare hashes, and older ones could not be reached): each row says what
// the plan asked and what it ranks first. The fixture's plan
// (testdata/plan-a100.json) asked for 4 × A100 for 7 days of cv-training
// and ranks aws p5.48xlarge spot in us-west-2 first, 278.873269 USD
// (278.87) in 29.76 h (29.8), of 42 plans.
func TestPlanListSaysWhatEachPlanAsked(t *testing.T) {
	f := newFixture(t)
	res, body := get(t, f.h, "/plans")
	if res.StatusCode != 200 {
		t.Fatalf("/plans: got %d", res.StatusCode)
	}
	row := rowOf(body, f.plan[:12])
	want := []string{f.plan[:12], "2026-11-30 23:30Z", "cv-training", "4 × A100 for 7d", "aws p5.48xlarge (us-west-2) spot", "278.87 USD", "29.8", "42", "ci"}
	if got := cells(row); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the plan's row: got %q, want %q", got, want)
	}
	if !strings.Contains(row, `href="/plans/`+f.plan+`"`) {
		t.Errorf("the row does not link to the plan page:\n%s", row)
	}
	_, over := get(t, f.h, "/")
	for _, want := range []string{"cv-training, 4 × A100 for 7d → aws p5.48xlarge (us-west-2) spot, 278.87 USD", `href="/plans"`} {
		if !strings.Contains(over, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
	// 26 more plans: page 1 shows 25 of the 27 and links page 2, which
	// shows the other 2; a plan with no fitting plan says so.
	for i := range 26 {
		put(t, f.st, store.KindPlan, []byte(fmt.Sprintf(`{"plans":[],"inputs":{"scenario":"inference-batch","reference_gpu":"L4","work_gpu_hours":%d}}`, 10+i)),
			time.Date(2026, 12, 1, 0, i, 0, 0, time.UTC))
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: f.st, Catalog: cat})
	_, p1 := get(t, h, "/plans")
	_, p2 := get(t, h, "/plans?page=2")
	if n1, n2 := strings.Count(p1, `href="/plans/`), strings.Count(p2, `href="/plans/`); n1 != 25 || n2 != 2 {
		t.Errorf("plan links: page 1 %d, page 2 %d; want 25 and 2", n1, n2)
	}
	if !strings.Contains(p1, `href="/plans?page=2"`) || !strings.Contains(p1, "Plans 1 to 25") || !strings.Contains(p2, "Plans 26 to 27") {
		t.Errorf("paging: page 1 should link page 2 and say 1 to 25, page 2 say 26 to 27")
	}
	if r := cells(rowOf(p1, "35 GPU-h of L4")); len(r) < 5 || r[4] != "no plan fits" || r[5] != render.NotApplied {
		t.Errorf("a plan with no fitting plan: got %q, want #1 PLAN 'no plan fits' and TOTAL %s", r, render.NotApplied)
	}
	for _, path := range []string{"/", "/reports", "/leaderboard"} {
		if _, b := get(t, f.h, path); !strings.Contains(b, `<a href="/plans">Plans</a>`) {
			t.Errorf("%s: the navigation lacks Plans", path)
		}
	}
}

// A report whose bench matched no offering (the node's catalog lacked it)
// but that carries its cloud identity is priced at this catalog's offering
// of that provider, instance type and region, and says so: aws
// p5en.48xlarge in us-east-1 is 63.296 USD/h for 8 H200, 7.912 USD per
// GPU-hour, 0.01179 USD per sustained TFLOP-hour. A region the catalog
// does not list for it leaves the report unpriced (never another region's
// price).
func TestLeaderboardPricesByCloudIdentity(t *testing.T) {
	f := newFixture(t)
	body, err := os.ReadFile("../../cli/testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, c := range []struct{ host, region string }{{"ident-node", "us-east-1"}, {"mars-node", "mars-1"}} {
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		doc["cloud"] = map[string]any{"provider": "aws", "instance_type": "p5en.48xlarge", "region": c.region, "zone": "", "matched_offering": ""}
		doc["host"].(map[string]any)["hostname"] = c.host
		b, _ := json.Marshal(doc)
		ids[c.host] = put(t, f.st, store.KindBench, b, time.Date(2026, 11, 30, 23, 45, 0, 0, time.UTC))
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: f.st, Catalog: cat, Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }})
	_, page := get(t, h, "/leaderboard")
	got := cells(rowOf(page, ids["ident-node"][:12]))
	want := []string{"0.01179", "H200-SXM-141GB", "aws/p5en.48xlarge/us-east-1 (by its cloud identity)", "7.912"}
	if len(got) < 5 || strings.Join(got[1:5], "|") != strings.Join(want, "|") {
		t.Errorf("the report with only a cloud identity: got %q, want columns 2-5 %q", got, want)
	}
	if !strings.Contains(page, "By its cloud identity: bench matched no offering") {
		t.Errorf("the page does not explain the match by cloud identity")
	}
	mars := cells(rowOf(page, ids["mars-node"][:12]))
	if len(mars) < 5 || mars[0] != render.NotApplied || mars[1] != render.Unknown || mars[3] != "no matched offering" {
		t.Errorf("a region the catalog lacks: got %q, want unranked, unpriced, no matched offering", mars)
	}
}

// The leaderboard and price/performance read the newest store.MaxLimit
// reports; with more stored, the older ones are left out, and the pages
// say so (they said nothing, as if every report were counted).
func TestPagesSayWhenReportsAreCapped(t *testing.T) {
	f := newFixture(t) // 2 reports
	body, err := os.ReadFile("../../cli/testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	doc["measurements"] = doc["measurements"].([]any)[:1] // small documents: a thousand are decoded
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	note := "Built from the newest 1000 bench reports stored; older reports are left out."
	check := func(stored int, want bool) {
		t.Helper()
		h := New(Config{Store: f.st, Catalog: cat})
		for _, path := range []string{"/leaderboard", "/priceperf"} {
			if _, page := get(t, h, path); strings.Contains(page, note) != want {
				t.Errorf("%s with %d reports stored: says they are capped %v, want %v", path, stored, !want, want)
			}
		}
	}
	add := func(n int) {
		for i := range n {
			doc["host"].(map[string]any)["hostname"] = fmt.Sprintf("node-%d-%d", n, i)
			b, _ := json.Marshal(doc)
			put(t, f.st, store.KindBench, b, time.Date(2026, 11, 30, 12, 0, i, 0, time.UTC))
		}
	}
	add(store.MaxLimit - 2) // with the fixture's 2
	check(store.MaxLimit, false)
	add(1)
	check(store.MaxLimit+1, true)
}

// The report list filters by GPU (a family as the catalog takes it) and
// provider, and its pager keeps the filters: 3 H200 reports on aws (one
// a GPU the catalog does not know, stored by its driver name) and 1 A10G.
func TestReportListFilters(t *testing.T) {
	st := storetest.Memory()
	body, err := os.ReadFile("../../cli/testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	add := func(i int, gpu, provider string) string {
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		doc["host"].(map[string]any)["hostname"] = fmt.Sprintf("n%d", i)
		b, _ := json.Marshal(doc)
		d := &store.Document{ID: store.DocumentID(b), Kind: store.KindBench, Body: b, ReceivedAt: time.Date(2026, 12, 1, 0, i, 0, 0, time.UTC),
			GPU: gpu, Provider: provider, InstanceType: "x", Host: fmt.Sprintf("n%d", i)}
		if _, err := st.PutDocument(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		return d.ID[:12]
	}
	h1, h2 := add(1, "H200-SXM-141GB", "aws"), add(2, "H200-SXM-141GB", "nebius")
	a1, odd := add(3, "A10G", "aws"), add(4, "NVIDIA Z9", "aws")
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: st, Catalog: cat})
	for _, tc := range []struct {
		query    string
		want     []string
		notWants []string
	}{
		{"gpu=H200", []string{h1, h2}, []string{a1, odd}},
		{"gpu=h200&provider=AWS", []string{h1}, []string{h2, a1, odd}},
		{"provider=aws", []string{h1, a1, odd}, []string{h2}},
		{"gpu=NVIDIA+Z9", []string{odd}, []string{h1, h2, a1}},
		{"gpu=H100", nil, []string{h1, h2, a1, odd}},
	} {
		res, page := get(t, h, "/reports?"+tc.query)
		if res.StatusCode != 200 {
			t.Errorf("?%s: status %d", tc.query, res.StatusCode)
		}
		for _, id := range tc.want {
			if !strings.Contains(page, id) {
				t.Errorf("?%s: report %s is not listed", tc.query, id)
			}
		}
		for _, id := range tc.notWants {
			if strings.Contains(page, id) {
				t.Errorf("?%s: report %s is listed", tc.query, id)
			}
		}
	}
	if _, page := get(t, h, "/reports?gpu=H100"); !strings.Contains(page, "No report matches these filters.") {
		t.Errorf("an empty filtered list should say no report matches")
	}
	if got := pager("/reports?gpu=H200&provider=aws", 2, true); len(got) != 2 || got[0].Href != "/reports?gpu=H200&provider=aws&page=1" || got[1].Href != "/reports?gpu=H200&provider=aws&page=3" {
		t.Errorf("pager with filters: got %+v", got)
	}
	if got := pager("/reports?", 1, true); len(got) != 1 || got[0].Href != "/reports?page=2" {
		t.Errorf("pager without filters: got %+v", got)
	}
}

// The overview counts what is stored, past the 1000 a listing returns
// (it said "1000 or more" and listed 1000 rows of each kind to count them).
func TestOverviewCountsEveryDocument(t *testing.T) {
	f := newFixture(t) // 2 reports, 1 plan
	for i := range store.MaxLimit + 1 {
		put(t, f.st, store.KindAgent, fmt.Appendf(nil, `{"host":"n","samples":%d}`, i), time.Date(2026, 12, 1, 0, 0, 0, i, time.UTC))
	}
	_, body := get(t, f.h, "/")
	for _, want := range []string{"Bench reports: 2", "Plans: 1", "Agent summaries: 1001"} {
		if !strings.Contains(body, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
}

// A sustained bf16 figure above the datasheet's dense peak (989 TFLOP/s for
// the H200; 1200 is 21% above, more than the 10% allowed) is no node's: the
// report is listed, marked, and not ranked, and the AWS report stays #1
// (one such report took the top place).
func TestLeaderboardDoesNotRankFiguresAboveTheDatasheet(t *testing.T) {
	f := newFixture(t)
	body, err := os.ReadFile("../../cli/testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	doc["cloud"] = map[string]any{"provider": "aws", "instance_type": "p5en.48xlarge", "region": "us-east-1", "zone": "", "matched_offering": "aws/p5en.48xlarge/us-east-1"}
	doc["host"].(map[string]any)["hostname"] = "fast-node"
	for _, m := range doc["measurements"].([]any) {
		if mm := m.(map[string]any); mm["name"] == "gemm_bf16_sustained" {
			mm["value"] = 1200.0
		}
	}
	b, _ := json.Marshal(doc)
	fast := put(t, f.st, store.KindBench, b, time.Date(2026, 11, 30, 23, 50, 0, 0, time.UTC))
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: f.st, Catalog: cat})
	_, page := get(t, h, "/leaderboard")
	if got := cells(rowOf(page, fast[:12])); len(got) < 6 || got[0] != render.NotApplied || got[5] != "1200 !" {
		t.Errorf("the report above the datasheet: got %q, want rank %s and SUSTAINED 1200 !", got, render.NotApplied)
	}
	if got := cells(rowOf(page, f.onAWS[:12])); len(got) < 2 || got[0] != "1" || got[1] != "0.01179" {
		t.Errorf("the AWS report: got %q, want #1 at 0.01179", got)
	}
	if !strings.Contains(page, "! = a sustained figure more than 10% above the GPU&#39;s dense bf16 datasheet peak") {
		t.Errorf("the page does not explain the mark")
	}
	// Price/performance leaves it out of the measured mean (671.2, not
	// (671.2 × 2 + 1200) ÷ 3 = 847.5) and says so.
	_, pp := get(t, h, "/priceperf")
	if !strings.Contains(pp, ">671.2<") || strings.Contains(pp, ">847.5<") || !strings.Contains(pp, "1 report(s) left out of the measured figures") {
		t.Errorf("price/performance should keep the H200 at 671.2 and say 1 report was left out")
	}
}

// A report's page says what its measured work costs where it ran, as the
// leaderboard prices it: the AWS report at 7.912 USD per GPU-hour
// (63.296 ÷ 8, karpenter-aws@2026-07-20), 0.01179 USD per sustained
// TFLOP-hour, 0.001866 per GB/s-hour; the report with no cloud identity
// says it is not priced.
func TestReportPageSaysItsPrice(t *testing.T) {
	f := newFixture(t)
	_, aws := get(t, f.h, "/reports/"+f.onAWS)
	want := "Priced at 7.912 USD per GPU-hour: aws/p5en.48xlarge/us-east-1 on demand, karpenter-aws@2026-07-20 as of 2026-07-20; 0.01179 USD per sustained bf16 TFLOP-hour, 0.001866 USD per GB/s-hour of HBM."
	if !strings.Contains(aws, want) {
		t.Errorf("the AWS report's page lacks %q", want)
	}
	if _, plain := get(t, f.h, "/reports/"+f.plain); !strings.Contains(plain, "Not priced: the report names no offering this catalog has") {
		t.Errorf("the report without a cloud identity should say it is not priced")
	}
}
