package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/server/dashboard"
	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/postgres"
	"github.com/gpuscout/gpuscout/internal/store/postgres/pgtest"
	"github.com/gpuscout/gpuscout/internal/store/sqlite"
)

// benchStores opens a fresh store of each kind (PostgreSQL when its
// binaries are installed).
func benchStores(b *testing.B) map[string]func() store.Store {
	stores := map[string]func() store.Store{
		"sqlite": func() store.Store {
			st, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			return st
		},
	}
	pgOnce.Do(func() { pgServer, pgErr = pgtest.Start(false) })
	if pgErr == nil {
		stores["postgres"] = func() store.Store {
			url, err := pgServer.NewDatabase(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			st, err := postgres.Open(context.Background(), url)
			if err != nil {
				b.Fatal(err)
			}
			return st
		}
	}
	return stores
}

// benchReport is the recorded H200 report as if run on an AWS offering the
// catalog prices, on host node-i: a distinct document per i.
func benchReport(b testing.TB, i int) []byte {
	raw, err := os.ReadFile("../cli/testdata/bench-h200-v1.json")
	if err != nil {
		b.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		b.Fatal(err)
	}
	m["cloud"] = map[string]any{"provider": "aws", "instance_type": "p5en.48xlarge", "region": "us-east-1", "zone": "", "matched_offering": "aws/p5en.48xlarge/us-east-1"}
	m["host"].(map[string]any)["hostname"] = fmt.Sprintf("node-%d", i)
	out, _ := json.Marshal(m)
	return out
}

// seedReports puts n bench reports in st, as uploads one minute apart.
func seedReports(b testing.TB, st store.Store, n int) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		body := benchReport(b, i)
		d := &store.Document{ID: store.DocumentID(body), Kind: store.KindBench, Body: body, ReceivedAt: at.Add(time.Duration(i) * time.Minute),
			TokenName: "bench", GPU: "H200-SXM-141GB", Provider: "aws", InstanceType: "p5en.48xlarge", Region: "us-east-1",
			MatchedOffering: "aws/p5en.48xlarge/us-east-1", Host: fmt.Sprintf("node-%d", i)}
		if _, err := st.PutDocument(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}

func getPage(b *testing.B, h http.Handler, path string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: status %d", path, rec.Code)
	}
}

// BenchmarkLeaderboard renders /leaderboard over N stored bench reports,
// the page cache off: "cold" with a new dashboard each time (no report
// decoded yet: the first render after a start), "warm" with one dashboard
// (the reports decoded by an earlier render). queries/op counts the store
// reads of one render.
func BenchmarkLeaderboard(b *testing.B) {
	cat := testCatalog(&testing.T{})
	for name, open := range benchStores(b) {
		for _, n := range []int{100, 1000} {
			st := &queryCounter{Store: open()}
			seedReports(b, st.Store, n)
			b.Run(fmt.Sprintf("%s/N=%d/cold", name, n), func(b *testing.B) {
				st.n.Store(0)
				for b.Loop() {
					h := dashboard.New(dashboard.Config{Store: st, Catalog: cat, CacheTTL: -1})
					getPage(b, h, "/leaderboard")
				}
				b.ReportMetric(float64(st.n.Load())/float64(b.N), "queries/op")
			})
			b.Run(fmt.Sprintf("%s/N=%d/warm", name, n), func(b *testing.B) {
				h := dashboard.New(dashboard.Config{Store: st, Catalog: cat, CacheTTL: -1})
				getPage(b, h, "/leaderboard")
				st.n.Store(0)
				for b.Loop() {
					getPage(b, h, "/leaderboard")
				}
				b.ReportMetric(float64(st.n.Load())/float64(b.N), "queries/op")
			})
			st.Close()
		}
	}
}

// BenchmarkReadsUnderUploads reads a dashboard page from many goroutines
// through the server (the default 2 s page cache) while uploads of one kind
// arrive through the API at uploadRate a second, over a SQLite store
// holding 1000 bench reports, 50 plans and 50 agent summaries. reads/s is
// the page's throughput; uploads/s what the uploader reached (it catches
// up when it falls behind). 2 reading goroutines per CPU.
func BenchmarkReadsUnderUploads(b *testing.B) {
	const uploadRate = 92
	cat := testCatalog(&testing.T{})
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	seedReports(b, st, 1000)
	ctx := context.Background()
	at := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	plan, err := os.ReadFile("dashboard/testdata/plan-a100.json")
	if err != nil {
		b.Fatal(err)
	}
	for i := range 50 {
		for _, d := range []*store.Document{
			{Kind: store.KindPlan, Body: bytes.Replace(plan, []byte("{"), fmt.Appendf(nil, `{"violation":"seed %d",`, i), 1)},
			{Kind: store.KindAgent, Body: agentBody(i, i)},
		} {
			d.ID, d.ReceivedAt = store.DocumentID(d.Body), at.Add(time.Duration(i)*time.Second)
			if _, err := st.PutDocument(ctx, d); err != nil {
				b.Fatal(err)
			}
		}
	}
	dash := dashboard.New(dashboard.Config{Store: st, Catalog: cat})
	srv, secret := uploadServer(b, st, cat, dash)
	var seq atomic.Int64
	seq.Store(1_000_000)
	body := func(kind string) []byte {
		i := int(seq.Add(1))
		switch kind {
		case store.KindBench:
			return benchReport(b, i)
		case store.KindPlan:
			return bytes.Replace(plan, []byte("{"), fmt.Appendf(nil, `{"violation":"seed %d",`, i), 1)
		default:
			return agentBody(i%50, i)
		}
	}
	for _, page := range []string{"/leaderboard", "/plans", "/agents"} {
		for _, kind := range []string{"none", store.KindBench, store.KindPlan, store.KindAgent} {
			b.Run(fmt.Sprintf("page=%s/uploads=%s", page[1:], kind), func(b *testing.B) {
				getPage(b, srv, page) // cached before the clock starts
				stop := make(chan struct{})
				var wg sync.WaitGroup
				var uploads atomic.Int64
				if kind != "none" {
					wg.Go(func() {
						start := time.Now()
						for {
							select {
							case <-stop:
								return
							default:
							}
							// Keep to the rate: catch up when behind, else wait.
							if uploads.Load() >= int64(time.Since(start).Seconds()*uploadRate) {
								time.Sleep(time.Second / uploadRate / 4)
								continue
							}
							req := httptest.NewRequest("POST", "/api/v1/reports?kind="+kind, bytes.NewReader(body(kind)))
							req.Header.Set("Authorization", "Bearer "+secret)
							rec := httptest.NewRecorder()
							srv.ServeHTTP(rec, req)
							if rec.Code != http.StatusCreated {
								b.Errorf("upload %s: status %d %s", kind, rec.Code, rec.Body)
								return
							}
							uploads.Add(1)
						}
					})
				}
				b.SetParallelism(2)
				var mu sync.Mutex
				var took []time.Duration
				b.RunParallel(func(pb *testing.PB) {
					var mine []time.Duration
					for pb.Next() {
						start := time.Now()
						rec := httptest.NewRecorder()
						srv.ServeHTTP(rec, httptest.NewRequest("GET", page, nil))
						mine = append(mine, time.Since(start))
						if rec.Code != http.StatusOK {
							b.Errorf("GET %s: status %d", page, rec.Code)
							return
						}
					}
					mu.Lock()
					took = append(took, mine...)
					mu.Unlock()
				})
				close(stop)
				wg.Wait()
				secs := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N)/secs, "reads/s")
				b.ReportMetric(float64(uploads.Load())/secs, "uploads/s")
				if len(took) > 0 {
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
				}
			})
		}
	}
}

// BenchmarkUploadThenRead: one op is an upload of a kind through the API
// followed by reads of a page, one goroutine, over a SQLite store holding
// 1000 bench reports (on /dev/shm when there is one: the fsync of each
// upload would otherwise dominate). A read after an upload the page does
// not depend on should be a cache hit. ns/op is the upload plus the reads.
func BenchmarkUploadThenRead(b *testing.B) {
	const readsPerUpload = 2 // the 185 reads/s beside 92 uploads/s
	st := memStore(b)
	cat := testCatalog(&testing.T{})
	dash := dashboard.New(dashboard.Config{Store: st, Catalog: cat, CacheTTL: time.Hour})
	srv, secret := uploadServer(b, st, cat, dash)
	n := 2_000_000
	body := func(kind string) []byte {
		n++
		switch kind {
		case store.KindBench:
			return benchReport(b, n)
		case store.KindPlan:
			return fmt.Appendf(nil, `{"inputs":{"scenario":"llm-finetuning"},"plans":[],"violation":"seed %d"}`, n)
		default:
			return agentBody(n%50, n)
		}
	}
	for _, page := range []string{"/leaderboard", "/plans", "/agents"} {
		for _, kind := range []string{store.KindBench, store.KindPlan, store.KindAgent} {
			b.Run(fmt.Sprintf("page=%s/uploads=%s", page[1:], kind), func(b *testing.B) {
				getPage(b, srv, page)
				for b.Loop() {
					req := httptest.NewRequest("POST", "/api/v1/reports?kind="+kind, bytes.NewReader(body(kind)))
					req.Header.Set("Authorization", "Bearer "+secret)
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, req)
					if rec.Code != http.StatusCreated {
						b.Fatalf("upload %s: status %d %s", kind, rec.Code, rec.Body)
					}
					for range readsPerUpload {
						getPage(b, srv, page)
					}
				}
			})
		}
	}
}

// BenchmarkUpload: one op is an upload through the API (a bench report, a
// plan of about 100 KiB, an agent summary), over a SQLite store holding
// 1000 bench reports, 50 plans and 50 agent summaries (on /dev/shm when
// there is one), with the page of its kind (/leaderboard, /plans,
// /agents) cached: "idle", not read since (the upload renders nothing), or
// "read", read since each upload (the upload waits for its page's new
// render; before, the page's next reader did). One goroutine.
func BenchmarkUpload(b *testing.B) {
	st := memStore(b)
	plan, err := os.ReadFile("dashboard/testdata/plan-a100.json")
	if err != nil {
		b.Fatal(err)
	}
	planBody := func(i int) []byte {
		return bytes.Replace(plan, []byte("{"), fmt.Appendf(nil, `{"violation":"seed %d",`, i), 1)
	}
	at := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for i := range 50 {
		for _, d := range []*store.Document{{Kind: store.KindPlan, Body: planBody(i)}, {Kind: store.KindAgent, Body: agentBody(i, i)}} {
			d.ID, d.ReceivedAt = store.DocumentID(d.Body), at.Add(time.Duration(i)*time.Second)
			if _, err := st.PutDocument(context.Background(), d); err != nil {
				b.Fatal(err)
			}
		}
	}
	cat := testCatalog(&testing.T{})
	dash := dashboard.New(dashboard.Config{Store: st, Catalog: cat, CacheTTL: time.Hour})
	srv, secret := uploadServer(b, st, cat, dash)
	n := 3_000_000
	for _, c := range []struct{ kind, page string }{{store.KindBench, "/leaderboard"}, {store.KindPlan, "/plans"}, {store.KindAgent, "/agents"}} {
		for _, mode := range []string{"idle", "read"} {
			b.Run(fmt.Sprintf("kind=%s/page=%s", c.kind, mode), func(b *testing.B) {
				getPage(b, srv, c.page)
				for b.Loop() {
					n++
					b.StopTimer()
					var body []byte
					switch c.kind {
					case store.KindBench:
						body = benchReport(b, n)
					case store.KindPlan:
						body = planBody(n)
					default:
						body = agentBody(n%50, n)
					}
					if mode == "read" {
						getPage(b, srv, c.page)
					}
					b.StartTimer()
					req := httptest.NewRequest("POST", "/api/v1/reports?kind="+c.kind, bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+secret)
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, req)
					if rec.Code != http.StatusCreated {
						b.Fatalf("upload: status %d %s", rec.Code, rec.Body)
					}
				}
			})
		}
	}
}

// agentBody is an agent summary of node-NODE, distinct by samples.
func agentBody(node, samples int) []byte {
	return fmt.Appendf(nil, `{"schema_version":1,"kind":"agent_hourly","created_at":"2026-12-01T00:00:00Z","hour_start":"2026-11-30T23:00:00Z","hour_end":"2026-12-01T00:00:00Z","host":"node-%d","samples":%d,"gpu_utilization_mean":null,"gpu_utilization_max":null,"egress_bytes":0,"spend":null}`, node, samples%3600000)
}

// BenchmarkCompare: /api/v1/reports/compare of eight distinct reports
// against the same report eight times, which is refused before any report
// is read (a duplicated-id compare must cost no more than a distinct one;
// it cost 1.1 GB for an 11 MB report).
func BenchmarkCompare(b *testing.B) {
	cat := testCatalog(&testing.T{})
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var ids []string
	for i := range 8 {
		body := benchReport(b, i)
		d := &store.Document{ID: store.DocumentID(body), Kind: store.KindBench, Body: body, ReceivedAt: time.Now()}
		if _, err := st.PutDocument(ctx, d); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	srv, err := New(Config{Store: st, Catalog: cat, ReadOpen: true, RatePerToken: 1e6})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ids  []string
		code int
	}{
		{"distinct", ids, http.StatusOK},
		{"one-id-8x", slices.Repeat(ids[:1], 8), http.StatusBadRequest},
	} {
		b.Run(tc.name, func(b *testing.B) {
			url := "/api/v1/reports/compare?ids=" + strings.Join(tc.ids, ",")
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
				if rec.Code != tc.code {
					b.Fatalf("GET %s: status %d, want %d: %s", url, rec.Code, tc.code, rec.Body)
				}
			}
		})
	}
}

// uploadServer is a server over st and its dashboard with no rate limit to
// speak of, and the secret of a token that may upload.
func uploadServer(b *testing.B, st store.Store, cat *catalog.Catalog, dash *dashboard.Handler) (*Server, string) {
	b.Helper()
	srv, err := New(Config{Store: st, Catalog: cat, ReadOpen: true, RatePerToken: 1e6, Dashboard: dash})
	if err != nil {
		b.Fatal(err)
	}
	secret, tok, err := NewToken("uploader", []string{ScopeWrite}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := st.CreateToken(context.Background(), tok); err != nil {
		b.Fatal(err)
	}
	return srv, secret
}

// memStore is a SQLite store holding 1000 bench reports, on /dev/shm when
// there is one (the fsync of each upload would otherwise dominate), closed
// and removed when the benchmark ends.
func memStore(b *testing.B) *sqlite.Store {
	b.Helper()
	dir := b.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		var err error
		if dir, err = os.MkdirTemp("/dev/shm", "gpuscout-bench"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	st, err := sqlite.Open(filepath.Join(dir, "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	seedReports(b, st, 1000)
	return st
}
