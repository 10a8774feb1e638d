package agent

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type fakeCollector struct {
	name  string
	calls atomic.Int32
	fn    func(b *Batch) error
}

func (f *fakeCollector) Name() string { return f.name }
func (f *fakeCollector) Collect(now time.Time, b *Batch) error {
	f.calls.Add(1)
	return f.fn(b)
}

func value(t *testing.T, s *Snapshot, metric string, labels ...string) (float64, bool) {
	t.Helper()
	for _, x := range s.Get(metric) {
		if strings.Join(x.Values, ",") == strings.Join(labels, ",") {
			return x.Value, true
		}
	}
	return 0, false
}

// A failing, a panicking and a hung collector are each marked down; the
// good one's values and the failing one's partial values are kept; the hung
// one is not called again while it runs.
func TestLoopFailures(t *testing.T) {
	release := make(chan struct{})
	good := &fakeCollector{name: "good", fn: func(b *Batch) error { b.Add(NodeUptime, 42); return nil }}
	bad := &fakeCollector{name: "bad", fn: func(b *Batch) error {
		b.Add(GPUUtilization, 0.5, "0", "GPU-a")
		return errors.New("GPU 1 is lost")
	}}
	panicky := &fakeCollector{name: "panicky", fn: func(b *Batch) error { panic("boom") }}
	hung := &fakeCollector{name: "hung", fn: func(b *Batch) error { <-release; return nil }}
	unregistered := &fakeCollector{name: "typo", fn: func(b *Batch) error { b.Add("gpuscout_typo", 1); return nil }}
	var store Store
	l := NewLoop(50*time.Millisecond, &store, good, bad, panicky, hung, unregistered)
	var ticks atomic.Int32
	l.Handlers = []TickHandler{TickFunc(func(now time.Time, s *Snapshot) { ticks.Add(1) })}
	for range 2 {
		l.Sample()
	}
	close(release)
	snap := store.Load()
	for _, tc := range []struct {
		metric string
		labels []string
		want   float64
	}{
		{CollectorUp, []string{"good"}, 1},
		{CollectorUp, []string{"bad"}, 0},
		{CollectorUp, []string{"panicky"}, 0},
		{CollectorUp, []string{"hung"}, 0},
		{CollectorUp, []string{"typo"}, 0},
		{NodeUptime, nil, 42},
		{GPUUtilization, []string{"0", "GPU-a"}, 0.5},
	} {
		if got, ok := value(t, snap, tc.metric, tc.labels...); !ok || got != tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.metric, tc.labels, got, ok, tc.want)
		}
	}
	if n := hung.calls.Load(); n != 1 {
		t.Errorf("the hung collector was called %d times, want 1 (not again while busy)", n)
	}
	if n := ticks.Load(); n != 2 {
		t.Errorf("handlers called %d times, want 2", n)
	}
	if ts, ok := value(t, snap, LastSampleTimestamp); !ok || ts < 1e9 {
		t.Errorf("last sample timestamp %v", ts)
	}
}

// A scrape serves the stored snapshot in the exposition format, with the
// dcgm-exporter names scaled to its units when asked; /healthz follows the
// sample's age.
func TestExporter(t *testing.T) {
	var store Store
	srv := httptest.NewServer(Handler(&store, true, time.Second, "test"))
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != 503 {
		t.Errorf("healthz before a sample: %d, want 503", code)
	}
	var b Batch
	b.Add(GPUInfo, 1, "0", "GPU-8a89bb26", "NVIDIA H200", "580.159.04", "false")
	b.Add(GPUUtilization, 0.98, "0", "GPU-8a89bb26")
	b.Add(GPUMemoryUsed, 1139*(1<<20), "0", "GPU-8a89bb26")
	b.Add(GPUEnergy, 1234.5, "0", "GPU-8a89bb26")
	store.Save(&Snapshot{At: time.Now(), Series: b.Series()})
	code, body := get("/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		"# TYPE gpuscout_gpu_utilization_ratio gauge\n",
		`gpuscout_gpu_utilization_ratio{gpu="0",uuid="GPU-8a89bb26"} 0.98` + "\n",
		"# TYPE gpuscout_gpu_energy_joules_total counter\n",
		`gpuscout_gpu_energy_joules_total{gpu="0",uuid="GPU-8a89bb26"} 1234.5` + "\n",
		`DCGM_FI_DEV_GPU_UTIL{UUID="GPU-8a89bb26",gpu="0",modelName="NVIDIA H200"} 98` + "\n",
		`DCGM_FI_DEV_FB_USED{UUID="GPU-8a89bb26",gpu="0",modelName="NVIDIA H200"} 1139` + "\n",
		`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{UUID="GPU-8a89bb26",gpu="0",modelName="NVIDIA H200"} 1.2345e+06` + "\n",
		"process_resident_memory_bytes ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("healthz after a sample: %d, want 200", code)
	}
	// The exposition is cached per snapshot: a new sample is served at once,
	// plain and gzipped (Go's client asks for gzip and decodes it).
	b = Batch{}
	b.Add(GPUUtilization, 0.25, "0", "GPU-8a89bb26")
	store.Save(&Snapshot{At: time.Now(), Series: b.Series()})
	req, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, gz := get("/metrics")
	for name, body := range map[string]string{"plain": string(plain), "gzip": gz} {
		if !strings.Contains(body, `gpuscout_gpu_utilization_ratio{gpu="0",uuid="GPU-8a89bb26"} 0.25`+"\n") || strings.Contains(body, "} 0.98") {
			t.Errorf("%s: the new sample is not served:\n%s", name, body)
		}
	}
	store.Save(&Snapshot{At: time.Now().Add(-time.Minute)})
	if code, body := get("/healthz"); code != 503 || !strings.Contains(body, "sampling every 1s") {
		t.Errorf("healthz with a stale sample: %d %q, want 503", code, body)
	}
	if code, body := get("/"); code != 200 || !strings.Contains(body, "gpuscout_gpu_utilization_ratio") {
		t.Errorf("landing page: %d", code)
	}
	if code, _ := get("/nope"); code != 404 {
		t.Errorf("/nope: %d, want 404", code)
	}
}

// While scrapes come often, the endpoint encodes each sample at its tick
// in the encoding they take, so the scrapes only copy bytes; with no recent
// scrape it leaves the encoding to the next scrape.
func TestEndpointEncodesAtTick(t *testing.T) {
	var store Store
	ep := NewEndpoint(&store, false, time.Second, "test")
	snap := benchSnapshot()
	store.Save(snap)
	ep.Tick(snap.At, snap)
	if ep.metrics.encoded {
		t.Error("encoded at a tick with no scrape yet")
	}
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	ep.ServeHTTP(httptest.NewRecorder(), req)
	snap2 := benchSnapshot()
	store.Save(snap2)
	ep.Tick(snap2.At, snap2)
	if ep.metrics.snap != snap2 || len(ep.metrics.plain) == 0 || len(ep.metrics.gz) == 0 {
		t.Errorf("after a scrape and a tick: cached snapshot %p (want %p), %d plain bytes, %d gzip bytes", ep.metrics.snap, snap2, len(ep.metrics.plain), len(ep.metrics.gz))
	}
}
