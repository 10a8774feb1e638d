package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startAlertmanager starts Debian's prometheus-alertmanager on a free
// loopback port with a temporary config and storage (never the system
// instance), routing every alert to the webhook URL hook. It skips without
// the binary unless GPUSCOUT_REQUIRE_PROMETHEUS=1.
func startAlertmanager(t *testing.T, hook string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus-alertmanager")
	if err != nil {
		if bin, err = exec.LookPath("alertmanager"); err != nil {
			if os.Getenv("GPUSCOUT_REQUIRE_PROMETHEUS") == "1" {
				t.Fatal("prometheus-alertmanager not found and GPUSCOUT_REQUIRE_PROMETHEUS=1")
			}
			t.Skip("prometheus-alertmanager not found (Debian: apt-get install prometheus-alertmanager)")
		}
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf(`route:
  receiver: hook
  group_by: [alertname]
  group_wait: 0s
  group_interval: 1s
receivers:
  - name: hook
    webhook_configs:
      - url: %q
        send_resolved: true
`, hook)
	if err := os.WriteFile(filepath.Join(dir, "am.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+filepath.Join(dir, "am.yml"), "--storage.path="+dir,
		"--web.listen-address="+addr, "--cluster.listen-address=", "--log.level=warn")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("alertmanager log:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(60 * time.Second) // a cold start on a busy machine
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("alertmanager at %s not ready after 60 s: %v\n%s", base, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type gettableAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	EndsAt      time.Time         `json:"endsAt"`
	Fingerprint string            `json:"fingerprint"`
	Status      struct {
		State string `json:"state"`
	} `json:"status"`
}

func getAlerts(t *testing.T, base string) []gettableAlert {
	t.Helper()
	resp, err := http.Get(base + "/api/v2/alerts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var as []gettableAlert
	if err := json.NewDecoder(resp.Body).Decode(&as); err != nil {
		t.Fatal(err)
	}
	return as
}

// An alert fired through a Dispatcher is in Alertmanager's API with our
// fingerprint; resolved, it ends. Alertmanager's own webhook notice of it
// decodes into the webhook v4 shape this package sends, field for field.
func TestAlertmanagerIntegration(t *testing.T) {
	hookBodies := make(chan []byte, 8)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hookBodies <- b
	}))
	defer hook.Close()
	base := startAlertmanager(t, hook.URL)

	d, err := New([]Receiver{{Name: "am", Kind: KindAlertmanager, URL: base}}, nil, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Minute).Truncate(time.Second).UTC()
	a := Alert{
		Labels:      map[string]string{"alertname": "GPUIdle", "gpu": "0", "uuid": "GPU-fake-0", "severity": "warning"},
		Annotations: map[string]string{"summary": "GPU 0 idle for 30 minutes"},
		StartsAt:    start, GeneratorURL: "http://127.0.0.1:9836/",
	}
	ctx := context.Background()
	if err := d.Send(ctx, []Alert{a}); err != nil {
		t.Fatal(err)
	}
	var found *gettableAlert
	for _, g := range getAlerts(t, base) {
		if g.Labels["alertname"] == "GPUIdle" {
			found = &g
		}
	}
	if found == nil {
		t.Fatal("the fired alert is not in Alertmanager's GET /api/v2/alerts")
	}
	if found.Status.State != "active" || found.Fingerprint != a.Fingerprint() || !found.StartsAt.Equal(start) ||
		found.Labels["uuid"] != "GPU-fake-0" || found.Annotations["summary"] != a.Annotations["summary"] {
		t.Errorf("Alertmanager has %+v; want state active, fingerprint %s, startsAt %s, our labels and annotations", *found, a.Fingerprint(), start)
	}

	// Alertmanager's webhook notice of the firing alert.
	var msg webhookMessage
	select {
	case b := <-hookBodies:
		if err := json.Unmarshal(b, &msg); err != nil {
			t.Fatal(err)
		}
		ours, _ := webhookBody(a, "hook", "")
		var keysAM, keysOurs map[string]any
		json.Unmarshal(b, &keysAM)
		json.Unmarshal(ours, &keysOurs)
		for k := range keysOurs {
			if _, ok := keysAM[k]; !ok {
				t.Errorf("our webhook field %q is not in Alertmanager's", k)
			}
		}
		if msg.Version != "4" || msg.Status != "firing" || len(msg.Alerts) != 1 || msg.Alerts[0].Fingerprint != a.Fingerprint() ||
			msg.GroupLabels["alertname"] != "GPUIdle" || !msg.Alerts[0].EndsAt.IsZero() {
			t.Errorf("Alertmanager's webhook: %s; want version 4, firing, our alert and fingerprint, zero endsAt", b)
		}
	case <-time.After(60 * time.Second): // group_wait is 0s: milliseconds, unless the machine is busy
		t.Error("no webhook notice from Alertmanager within 60 s")
	}

	resolvedAt := time.Now().UTC()
	a.EndsAt = resolvedAt
	if err := d.Send(ctx, []Alert{a}); err != nil {
		t.Fatal(err)
	}
	for _, g := range getAlerts(t, base) {
		if g.Labels["alertname"] == "GPUIdle" && (g.Status.State == "active" || g.EndsAt.After(resolvedAt.Add(time.Second))) {
			t.Errorf("after the resolved notice Alertmanager still has %+v; want it ended by %s", g, resolvedAt)
		}
	}
}
