package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 13: the agent evaluates its rules over the fake GPUs and posts the
// alert to a webhook, queued under the state directory.
func TestAgentFiresToWebhook(t *testing.T) {
	useAgentFixtures(t)
	var mu sync.Mutex
	var bodies []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	defer hook.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`version: 1
agent:
  listen: 127.0.0.1:0
  interval: 100ms
  fake_gpus: 2
  state_dir: %s
notify:
  webhooks: [%s]
rules:
  - name: GPU0MemoryInUse
    metric: gpuscout_gpu_memory_used_ratio
    match: {gpu: "0"}
    op: ">="
    threshold: 0
    severity: info
    annotations:
      summary: "GPU {{ $labels.gpu }} memory {{ $value | humanizePercentage }} used"
`, dir, hook.URL)
	path := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	_, log := startAgent(t, "--config", path)
	var msg struct {
		Status string `json:"status"`
		Alerts []struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"alerts"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(bodies)
		if n > 0 {
			json.Unmarshal([]byte(bodies[0]), &msg)
		}
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no webhook notice within 30 s; agent log:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if msg.Status != "firing" || len(msg.Alerts) != 1 || msg.Alerts[0].Labels["alertname"] != "GPU0MemoryInUse" ||
		msg.Alerts[0].Labels["gpu"] != "0" || msg.Alerts[0].Labels["severity"] != "info" ||
		!strings.HasPrefix(msg.Alerts[0].Annotations["summary"], "GPU 0 memory ") {
		t.Errorf("webhook notice %+v; want GPU0MemoryInUse firing on gpu 0 with its summary", msg)
	}
	if !strings.Contains(log.String(), "alert firing") {
		t.Errorf("the log does not say the alert fired:\n%s", log.String())
	}
	time.Sleep(300 * time.Millisecond) // more ticks: the same alert is not sent again
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 {
		t.Errorf("%d webhook notices; want 1", len(bodies))
	}
}
