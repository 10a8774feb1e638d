package rules

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
)

// articleRules are the article's cases as this package's rules.
func articleRules() []Rule {
	warn := map[string]string{"severity": "warning"}
	return []Rule{
		{Name: "GPUMemoryHigh", Metric: "gpuscout_gpu_memory_used_ratio", Op: GT, Threshold: 0.9, For: 5 * time.Minute, Labels: warn,
			Annotations: map[string]string{"summary": "GPU {{ $labels.gpu }} memory at {{ $value | humanizePercentage }} for 5 minutes"}},
		{Name: "GPUIdle", Metric: "gpuscout_gpu_utilization_ratio", Over: Max, Op: LT, Threshold: 0.05, For: 30 * time.Minute, Labels: warn,
			Annotations: map[string]string{"summary": "GPU {{ $labels.gpu }} max utilisation {{ $value }} over 30 minutes"}},
		{Name: "CollectorDown", Metric: "gpuscout_collector_up", Op: LT, Threshold: 1, For: 2 * time.Minute, Labels: warn},
		{Name: "EgressRateHigh", Metric: "gpuscout_egress_rate_bytes_per_second", Over: Avg, Op: GT, Threshold: 1e8, For: 15 * time.Minute, Labels: warn},
		{Name: "SpendBurnRateOverBudget", Metric: "gpuscout_cost_burn_rate_per_hour", Op: GT, Threshold: 40, For: 10 * time.Minute, Labels: warn,
			Match: []Matcher{{Label: "currency", Type: "=", Value: "USD"}}},
	}
}

// testLabels is the registry's label names of a metric.
func testLabels(metric string) []string {
	l, _ := agent.MetricLabels(metric)
	return l
}

func TestPromQL(t *testing.T) {
	for _, c := range []struct {
		r        Rule
		expr     string
		forValue time.Duration
	}{
		{articleRules()[0], "gpuscout_gpu_memory_used_ratio > 0.9", 5 * time.Minute},
		{articleRules()[1], "max_over_time(gpuscout_gpu_utilization_ratio[30m]) < 0.05 and gpuscout_gpu_utilization_ratio offset 30m", 0},
		{articleRules()[3], "avg_over_time(gpuscout_egress_rate_bytes_per_second[15m]) > 1e+08 and gpuscout_egress_rate_bytes_per_second offset 15m", 0},
		{articleRules()[4], `gpuscout_cost_burn_rate_per_hour{currency="USD"} > 40`, 10 * time.Minute},
		{Rule{Name: "X", Metric: "m", Over: Min, Op: LE, Threshold: -2, For: 90 * time.Minute,
			Match: []Matcher{{Label: "gpu", Type: "=~", Value: `[0-3]`}, {Label: "a", Type: "!=", Value: `x"y`}}},
			`min_over_time(m{a!="x\"y",gpu=~"[0-3]"}[1h30m]) <= -2 and m{a!="x\"y",gpu=~"[0-3]"} offset 1h30m`, 0},
	} {
		if err := c.r.Check(nil); err != nil {
			t.Fatal(err)
		}
		expr, f := c.r.PromQL()
		if expr != c.expr || f != c.forValue {
			t.Errorf("%s: PromQL() = %q, for %s; want %q, for %s", c.r.Name, expr, f, c.expr, c.forValue)
		}
	}
}

// promtool runs `promtool args...` in dir, or skips without promtool.
func promtool(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("GPUSCOUT_REQUIRE_PROMETHEUS") == "1" {
			t.Fatal("promtool not found and GPUSCOUT_REQUIRE_PROMETHEUS=1")
		}
		t.Skip("promtool not found (Debian: apt-get install prometheus)")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func TestExportPassesPromtool(t *testing.T) {
	dir := t.TempDir()
	var rules, tests bytes.Buffer
	all := append(builtins(t), articleRules()...)
	for i := range all[len(all)-len(articleRules()):] {
		all[len(all)-len(articleRules())+i].Name += "Custom"
	}
	if err := ExportPrometheus(&rules, all, "test export"); err != nil {
		t.Fatal(err)
	}
	if err := ExportPromtoolTests(&tests, all, "rules.yml", testLabels); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "rules.yml"), rules.Bytes(), 0o600)
	os.WriteFile(filepath.Join(dir, "tests.yml"), tests.Bytes(), 0o600)
	if testing.Verbose() {
		t.Logf("rules:\n%s\ntests:\n%s", rules.String(), tests.String())
	}
	// The tests expect alerts: an export that never fires would fail them.
	if n := strings.Count(tests.String(), "exp_labels"); n < len(all) {
		t.Errorf("%d expected alerts in the tests; want at least one a rule (%d)", n, len(all))
	}
	promtool(t, dir, "check", "rules", "rules.yml")
	promtool(t, dir, "test", "rules", "tests.yml")
}
