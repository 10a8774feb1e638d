package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// useAgentFixtures points the agent at the fixture /proc.
func useAgentFixtures(t *testing.T) {
	t.Helper()
	old := agentProcRoot
	agentProcRoot = "testdata/agent/proc"
	t.Cleanup(func() { agentProcRoot = old })
}

// Issue 13: agent check prints what the agent would watch.
func TestAgentCheck(t *testing.T) {
	useAgentFixtures(t)
	out, errOut, code := run(t, "agent", "check", "--config", "testdata/agent/agent.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "agent-check.txt", out)
	// Flags override the file.
	out, _, _ = run(t, "agent", "check", "--config", "testdata/agent/agent.yaml", "--listen", ":9999", "--interval", "2s", "--fake-gpus", "8")
	for _, want := range []string{"listen: :9999,", "sampling every 2s", "gpu: 8 FAKE GPUs"} {
		if !strings.Contains(out, want) {
			t.Errorf("flags do not override the file: lacks %q:\n%s", want, out)
		}
	}
}

// Issue 13: bad configs and flags are errors naming file:line and the
// field, or the flag, with exit 2.
func TestAgentBadConfig(t *testing.T) {
	useAgentFixtures(t)
	good, err := os.ReadFile("testdata/agent/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		old, new string
		args     []string
		want     string
	}{
		{"unknown metric", "metric: gpuscout_gpu_utilization_ratio", "metric: gpu_util", nil, `a.yaml:34: field rules[1].metric: unknown metric "gpu_util"`},
		{"bad duration", "for: 30m", "for: 30 minutes", nil, `a.yaml:37: field rules[1].for: value "30 minutes" is not a duration`},
		{"missing threshold", "    threshold: 0.9\n", "", nil, "a.yaml:27: field rules[0].threshold: missing"},
		{"version 0", "version: 1", "version: 0", nil, "a.yaml:2: field version: format version 0"},
		{"bad listen flag", "", "", []string{"--listen", "nowhere"}, `--listen: value "nowhere" is not an address`},
		{"bad interval flag", "", "", []string{"--interval", "1ms"}, "--interval 1ms: want 100ms to 10m0s"},
		{"bad fake-gpus flag", "", "", []string{"--fake-gpus", "65"}, "--fake-gpus 65: want 0 to 64"},
		{"no file", "", "", []string{"--config", filepath.Join(dir, "none.yaml")}, "none.yaml: no such file"},
		{"undefined function", "    severity: info\n", "    severity: info\n    annotations: {summary: \"{{ humanize $value }} idle\"}\n", nil, `a.yaml:41: field rules[1].annotations.summary: template`},
	} {
		p := filepath.Join(dir, "a.yaml")
		os.WriteFile(p, bytes.Replace(good, []byte(tc.old), []byte(tc.new), 1), 0o644)
		for _, cmd := range [][]string{{"agent", "check"}, {"agent"}} {
			args := append(cmd, tc.args...)
			if !slices.Contains(tc.args, "--config") {
				args = append(args, "--config", p)
			}
			_, errOut, code := run(t, args...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("%s: %v: exit %d, stderr %q; want exit 2 and %q", tc.name, cmd, code, errOut, tc.want)
			}
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the agent's logging goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var addrRE = regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)

// startAgent runs `gpuscout agent args...` until the test ends and returns
// its address and log.
func startAgent(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- Main(ctx, append([]string{"agent"}, args...), &out, &errb) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("agent exit %d after cancel: %s", code, errb.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("the agent did not stop within 30 s of its context ending")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := addrRE.FindStringSubmatch(errb.String()); m != nil {
			return m[1], &errb
		}
		select {
		case code := <-done:
			t.Fatalf("agent exited %d: %s", code, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("the agent did not start: %s", errb.String())
	return "", nil
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Issue 13: the agent serves the fake GPUs, the fixture's interfaces and the
// cost meter (2 × 98.32 USD/h = 196.64 USD/h; after 7280.06 s, 196.64 × 7280.06 / 3600 = 397.653055 USD)
// and stops cleanly when its context ends (as on SIGTERM).
func TestAgentServes(t *testing.T) {
	useAgentFixtures(t)
	addr, log := startAgent(t, "--config", testAgentConfig(t, "http://127.0.0.1:1"), "--interval", "100ms")
	var body string
	for range 50 {
		var code int
		code, body = httpGet(t, "http://"+addr+"/metrics")
		if code == 200 && strings.Contains(body, "gpuscout_gpu_info") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, want := range []string{
		`gpuscout_gpu_info{driver="580.159.04",fake="true",gpu="1",model="FAKE NVIDIA H200",uuid="GPU-FAKE-0000-0000-0000-000000000001"} 1`,
		`gpuscout_collector_up{collector="gpu"} 1`,
		`gpuscout_network_transmit_bytes_total{interface="eth0"} 1.119491e+06`,
		`gpuscout_cost_burn_rate_per_hour{currency="USD"} 196.64`,
		`gpuscout_cost_spend_total{currency="USD"} 397.653055`,
		`gpuscout_node_uptime_seconds 7280.06`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code, _ := httpGet(t, "http://"+addr+"/healthz"); code != 200 {
		t.Errorf("/healthz %d", code)
	}
	if !strings.Contains(log.String(), "FAKE GPUs") {
		t.Errorf("the log does not say the GPUs are fake: %s", log.String())
	}
}

// testAgentConfig is testdata/agent/agent.yaml with its state in a temp
// directory and its notify targets at url (never the system's Alertmanager).
func testAgentConfig(t *testing.T, url string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/agent/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := strings.Replace(string(b), "state_dir: /tmp/gpuscout-test", "state_dir: "+dir, 1)
	s = strings.Replace(s, "alertmanager: http://127.0.0.1:9093", "alertmanager: "+url, 1)
	s = strings.Replace(s, "webhooks: [https://hooks.example.com/gpu]", "webhooks: ["+url+"]", 1)
	p := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Issue 13, end to end: a rule over the fake GPUs' power fires on the first
// sample, and the agent's notifier posts it to the webhook (Alertmanager's
// webhook v4 shape) with the rule's name and the GPU's labels.
func TestAgentRuleToWebhook(t *testing.T) {
	useAgentFixtures(t)
	got := make(chan string, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.URL.Path + " " + string(b)
	}))
	defer hook.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`version: 1
agent: {listen: "127.0.0.1:0", interval: 100ms, fake_gpus: 1, state_dir: %s}
notify: {webhooks: ["%s/hook"]}
rules:
  - {name: GPUPowered, metric: gpuscout_gpu_power_watts, op: ">", threshold: 1, severity: info}
`, dir, hook.URL)
	p := filepath.Join(dir, "agent.yaml")
	os.WriteFile(p, []byte(cfg), 0o644)
	startAgent(t, "--config", p)
	select {
	case body := <-got:
		for _, want := range []string{"/hook ", `"version":"4"`, `"status":"firing"`, `"alertname":"GPUPowered"`, `"uuid":"GPU-FAKE-0000-0000-0000-000000000000"`} {
			if !strings.Contains(body, want) {
				t.Errorf("webhook body lacks %s:\n%s", want, body)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no webhook within 30 s")
	}
}

// Issue 13: the agent reads exactly what advise writes: an exported config
// passes agent check, with the plan's node, price and budget rules.
func TestAgentReadsAdviseExport(t *testing.T) {
	useAgentFixtures(t)
	out, errOut, code := run(t, "advise", "--scenario", "inference-online", "--hours-per-month", "730", "--export", "agent")
	if code != 0 {
		t.Fatalf("advise: %d %s", code, errOut)
	}
	p := filepath.Join(t.TempDir(), "agent.yaml")
	os.WriteFile(p, []byte(out), 0o644)
	check, errOut, code := run(t, "agent", "check", "--config", p, "--fake-gpus", "1")
	if code != 0 {
		t.Fatalf("agent check of the export: exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"(format version 1): valid", "cost: ", "per instance-hour (node.price_per_hour)", "SpendBurnRateOverBudget: gpuscout_cost_burn_rate_per_hour >",
		"SpendOverPlan: gpuscout_cost_spend_total >", "alertmanager: http://127.0.0.1:9093", "autostop: when every GPU at or under 0.05 utilisation for 30m, no SSH session, no process on a GPU", "(dry run"} {
		if !strings.Contains(check, want) {
			t.Errorf("agent check lacks %q:\n%s", want, check)
		}
	}
}

// Issue 13: with NVML required and not loading, the agent still serves the
// other collectors and reports the gpu collector down (CollectorDown fires).
func TestAgentNVMLMissing(t *testing.T) {
	useAgentFixtures(t)
	old := agentOpenNVML
	agentOpenNVML = func() (*nvml.NVML, error) { return nil, errors.New("libnvidia-ml.so.1: no driver here") }
	t.Cleanup(func() { agentOpenNVML = old })
	dir := t.TempDir()
	p := filepath.Join(dir, "agent.yaml")
	os.WriteFile(p, []byte("version: 1\ncollect: {gpu: nvml}\nagent: {listen: \"127.0.0.1:0\", interval: 100ms, state_dir: "+dir+"}\n"), 0o644)
	out, _, code := run(t, "agent", "check", "--config", p)
	if code != 0 || !strings.Contains(out, "gpu: NVML required (collect.gpu: nvml) but it fails now: libnvidia-ml.so.1: no driver here; the gpu collector reports down and tries again every 30s") {
		t.Errorf("agent check: exit %d\n%s", code, out)
	}
	addr, _ := startAgent(t, "--config", p)
	var body string
	for range 50 {
		_, body = httpGet(t, "http://"+addr+"/metrics")
		if strings.Contains(body, `gpuscout_collector_up{collector="gpu"}`) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, want := range []string{`gpuscout_collector_up{collector="gpu"} 0`, `gpuscout_collector_up{collector="network"} 1`, `gpuscout_collector_up{collector="cost"} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// Issue 13: a rule with action stop runs the autostop's hook, then its stop
// command (argv, no shell of ours), once; in dry run it runs nothing.
func TestAgentRuleStop(t *testing.T) {
	useAgentFixtures(t)
	for _, dry := range []bool{false, true} {
		dir := t.TempDir()
		logf := filepath.Join(dir, "ran")
		cfg := fmt.Sprintf(`version: 1
agent: {listen: "127.0.0.1:0", interval: 100ms, fake_gpus: 1, state_dir: %[1]s}
rules:
  - {name: StopWhenPowered, metric: gpuscout_gpu_power_watts, op: ">", threshold: 1, action: stop}
autostop:
  dry_run: %[2]v
  hook: [sh, -c, "echo hook >> %[3]s"]
  stop: [sh, -c, "echo stop >> %[3]s"]
`, dir, dry, logf)
		p := filepath.Join(dir, "agent.yaml")
		os.WriteFile(p, []byte(cfg), 0o644)
		_, log := startAgent(t, "--config", p)
		want := "hook\nstop\n"
		if dry {
			want = ""
		}
		var got []byte
		for range 100 {
			got, _ = os.ReadFile(logf)
			if string(got) == want && (dry == strings.Contains(log.String(), "rule stop: dry run")) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // more ticks: still once
		got, _ = os.ReadFile(logf)
		if string(got) != want {
			t.Errorf("dry run %v: ran %q, want %q; log:\n%s", dry, got, want, log.String())
		}
	}
}

// Issue 13: a config that names no node takes the instance's identity from
// GPUSCOUT_CLOUD (or the metadata service) and its price from the catalog.
func TestAgentIdentifiesNode(t *testing.T) {
	useAgentFixtures(t)
	t.Setenv("GPUSCOUT_CLOUD", "aws/p5.48xlarge/us-east-1")
	out, errOut, code := run(t, "agent", "check", "--fake-gpus", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"node: aws p5.48xlarge in us-east-1, identified by", "cost: ", "(catalog on-demand price of aws p5.48xlarge in us-east-1, source ", "priced with aws"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	t.Setenv("GPUSCOUT_CLOUD", "nowhere")
	if _, errOut, code := run(t, "agent", "check"); code != ExitUsage || !strings.Contains(errOut, "GPUSCOUT_CLOUD") {
		t.Errorf("bad GPUSCOUT_CLOUD: exit %d, %s", code, errOut)
	}
}

// Issue 13: SIGTERM stops the agent cleanly (exit 0, its log says so); the
// signal reaches this test process, where the agent has taken it over.
func TestAgentSIGTERM(t *testing.T) {
	useAgentFixtures(t)
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"agent", "--fake-gpus", "1", "--listen", "127.0.0.1:0", "--interval", "100ms"}, &out, &errb)
	}()
	for i := 0; !addrRE.MatchString(errb.String()); i++ {
		if i > 500 {
			t.Fatalf("the agent did not start: %s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(errb.String(), "gpuscout agent stopped") {
			t.Errorf("after SIGTERM: exit %d, log:\n%s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent did not stop within 30 s of SIGTERM")
	}
}
