package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 13 part 5: with autostop on, the agent runs the watcher on every
// sample and exports its metrics; in dry run it is not armed.
func TestAgentAutostop(t *testing.T) {
	useAgentFixtures(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agent.yaml")
	yml := `version: 1
agent: {listen: "127.0.0.1:0", interval: 100ms, fake_gpus: 1, state_dir: ` + dir + `}
autostop: {enabled: true, idle_for: 1m, dry_run: true, stop: [/nonexistent/must-not-run]}
`
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, log := startAgent(t, "--config", cfg)
	want := []string{
		`gpuscout_collector_up{collector="autostop"} 1`,
		"gpuscout_autostop_armed 0",
		"gpuscout_autostop_idle_threshold_seconds 60",
		`gpuscout_autostop_signal_up{signal="gpu_utilization"} 1`,
	}
	var body string
	for range 100 {
		_, body = httpGet(t, "http://"+addr+"/metrics")
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(body, w)
		}
		if ok {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("/metrics lacks %q", w)
		}
	}
	if !strings.Contains(log.String(), "autostop: dry run (logs only): stop after 1m0s of GPU utilisation <= 5%") {
		t.Errorf("the log does not describe the autostop: %s", log.String())
	}
}
