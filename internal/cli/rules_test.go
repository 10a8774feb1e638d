package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRulesExportGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"rules-export-builtin.yml", []string{"rules", "export", "--format", "prometheus"}},
		{"rules-export-budgets.yml", []string{"rules", "export", "--config", "testdata/agent/rules-budgets.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tc.name, out)
		})
	}
}

// The export and its tests pass promtool: `check rules` on the rules and
// `test rules`, whose expected alerts are the agent's own evaluation.
func TestRulesExportPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("GPUSCOUT_REQUIRE_PROMETHEUS") == "1" {
			t.Fatal("promtool not found and GPUSCOUT_REQUIRE_PROMETHEUS=1")
		}
		t.Skip("promtool not found (Debian: apt-get install prometheus)")
	}
	for _, config := range []string{"", "testdata/agent/rules-budgets.yaml"} {
		dir := t.TempDir()
		args := []string{"rules", "export", "--format", "prometheus", "--tests", filepath.Join(dir, "tests.yml"), "--rule-file", "rules.yml"}
		if config != "" {
			args = append(args, "--config", config)
		}
		out, errOut, code := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if err := os.WriteFile(filepath.Join(dir, "rules.yml"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, check := range [][]string{{"check", "rules", "rules.yml"}, {"test", "rules", "tests.yml"}} {
			cmd := exec.Command(promtool, check...)
			cmd.Dir = dir
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("config %q: promtool %s: %v\n%s", config, strings.Join(check, " "), err, b)
			}
		}
	}
}

func TestRulesExportBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rules", "export", "--format", "thanos"}, `--format "thanos": want prometheus`},
		{[]string{"rules", "export", "--config", "testdata/agent/rules-unknown-metric.yaml"},
			`rules-unknown-metric.yaml:4: field rules[0].metric: unknown metric "gpuscout_gpu_memory_percent"`},
		{[]string{"rules", "export", "--config", "testdata/agent/rules-bad-op.yaml"},
			`rules-bad-op.yaml:5: field rules[0].op: value "=>": want one of > >= < <=`},
		{[]string{"rules", "export", "--config", "testdata/agent/rules-bad-template.yaml"},
			`rules[0].annotations.summary: template "GPU {{ $labels.gpu ": annotation:1: unclosed action`},
		{[]string{"rules", "export", "--config", "testdata/agent/no-such-file.yaml"}, "no-such-file.yaml"},
	} {
		out, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
