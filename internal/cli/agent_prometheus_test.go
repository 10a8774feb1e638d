package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent/collect"
)

// prometheusBin finds Debian's prometheus, skipping the test without it
// unless GPUSCOUT_REQUIRE_PROMETHEUS=1 (scripts/test.sh sets it once
// installed).
func prometheusBin(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("GPUSCOUT_REQUIRE_PROMETHEUS") == "1" {
			t.Fatal("prometheus not found and GPUSCOUT_REQUIRE_PROMETHEUS=1")
		}
		t.Skip("prometheus not found (apt-get install prometheus)")
	}
	return p
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// promQuery runs an instant query against Prometheus's HTTP API.
func promQuery(t *testing.T, addr, q string) ([]promSample, error) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, err // not up yet
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	code, body := resp.StatusCode, string(b)
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
		Error string
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || code != 200 || r.Status != "success" {
		return nil, fmt.Errorf("query %s: %d %v %s", q, code, err, body)
	}
	var out []promSample
	for _, x := range r.Data.Result {
		s, _ := x.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s: value %v", q, x.Value)
		}
		out = append(out, promSample{x.Metric, v})
	}
	return out, nil
}

type promSample struct {
	labels map[string]string
	value  float64
}

// Issue 13: a real Prometheus (its own instance on loopback, temp storage,
// 1 s scrapes) scrapes `gpuscout agent --fake-gpus 2`, and PromQL over what
// it stored returns the fake GPUs' values: their identity, the recorded
// H200's memory (143771 MiB each) and power limit, and utilisations that
// are values of the recorded trace.
func TestAgentPrometheus(t *testing.T) {
	bin := prometheusBin(t)
	useAgentFixtures(t)
	agentAddr, _ := startAgent(t, "--fake-gpus", "2", "--listen", "127.0.0.1:0", "--interval", "200ms")
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: gpuscout\n    static_configs:\n      - targets: ['%s']\n", agentAddr)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	promAddr := freePort(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
	})
	var info []promSample
	var err error
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if info, err = promQuery(t, promAddr, `gpuscout_gpu_info{fake="true"}`); err == nil && len(info) == 2 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if len(info) != 2 {
		log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
		t.Fatalf("Prometheus has %d fake GPUs after 30 s (%v); its log:\n%s", len(info), err, log)
	}
	for _, s := range info {
		i, _ := strconv.Atoi(s.labels["gpu"])
		if s.labels["uuid"] != collect.FakeUUID(i) || s.labels["model"] != "FAKE NVIDIA H200" || s.labels["job"] != "gpuscout" {
			t.Errorf("gpu_info labels %v", s.labels)
		}
	}
	for _, tc := range []struct {
		q    string
		want float64
	}{
		{`sum(gpuscout_gpu_memory_total_bytes{uuid=~"GPU-FAKE-.*"})`, 2 * 143771 * (1 << 20)},
		{`max(gpuscout_gpu_power_limit_watts)`, 700},
		{`count(gpuscout_gpu_utilization_ratio)`, 2},
		{`min(gpuscout_collector_up)`, 1},
		{`gpuscout_node_uptime_seconds`, 7280.06},
	} {
		got, err := promQuery(t, promAddr, tc.q)
		if err != nil || len(got) != 1 || math.Abs(got[0].value-tc.want) > 1e-9*tc.want {
			t.Errorf("%s = %+v (%v), want %v", tc.q, got, err, tc.want)
		}
	}
	trace, err := os.ReadFile("../agent/collect/h200-load-100ms.csv")
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[float64]bool{}
	rows, err := parseTraceUtil(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range rows {
		recorded[u] = true
	}
	util, err := promQuery(t, promAddr, `gpuscout_gpu_utilization_ratio`)
	if err != nil || len(util) != 2 {
		t.Fatalf("utilisation: %+v %v", util, err)
	}
	for _, s := range util {
		if !recorded[s.value] {
			t.Errorf("GPU %s utilisation %v is no value of the recorded trace", s.labels["gpu"], s.value)
		}
	}
}

// parseTraceUtil reads the utilization.gpu column of the trace as ratios.
func parseTraceUtil(b []byte) ([]float64, error) {
	var out []float64
	for i, line := range strings.Split(string(b), "\n") {
		if i == 0 || line == "" {
			continue
		}
		f := strings.Split(line, ", ")
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v/100)
	}
	return out, nil
}
