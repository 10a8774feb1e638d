package cli

import (
	"github.com/spf13/cobra"
	"strings"
	"testing"
)

// A flag that holds one value, given twice, is refused (exit 2, naming both
// values) instead of silently keeping the last; lists and repeatable inputs
// still take several.
func TestRepeatedSingleFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"offers", "--gpu", "A100:8", "--gpu", "H100:8"}, `given twice ("A100:8", then "H100:8"): give --gpu once`},
		{[]string{"offers", "--gpu", "A100:8", "-o", "json", "--output", "csv"}, "give --output once"},
		{[]string{"cost", "--gpu", "A100:8", "--for", "7d", "--for", "14d"}, "give --for once"},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--budget", "1000USD", "--budget", "9USD"}, "give --budget once"},
		{[]string{"cost", "--gpu", "A100:8", "--for", "7d", "--fx", "CNY=0.14", "--fx", "CNY=0.15"}, "a rate for CNY is given twice"},
		{[]string{"cost", "--gpu", "A100:8", "--for", "7d", "--currency", "CNY", "--currency=USD"}, "give --currency once"},
	} {
		_, errb, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb, tc.want)
		}
	}
	for _, args := range [][]string{
		{"offers", "--gpu", "H100:8", "--provider", "aws", "--provider", "gcp"},
		{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--credits", "100USD@aws", "--credits", "50USD@gcp"},
		{"cost", "--gpu", "A100:8", "--for", "7d", "--fx", "CNY=0.14", "--fx", "EUR=1.1"},
		{"offers", "--gpu", "A100:8", "--wide", "--wide"},
	} {
		if _, errb, code := run(t, args...); code != ExitOK {
			t.Errorf("%v: exit %d, stderr %q; want 0", args, code, errb)
		}
	}
}

// --export prints YAML of its own: -o beside it is refused, not ignored, and
// an unknown export format is refused before any advising.
func TestExportWithOutputRefused(t *testing.T) {
	base := []string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d"}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--export", "skypilot", "-o", "json"}, "--export skypilot prints its own YAML; -o json does not apply"},
		{[]string{"--export", "terraform"}, `--export "terraform": want skypilot or agent`},
	} {
		_, errb, code := run(t, append(append([]string{}, base...), tc.extra...)...)
		if code != ExitUsage || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.extra, code, errb, tc.want)
		}
	}
}

// No help prints a default twice (the text's own and pflag's).
func TestHelpDefaultsOnce(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		out, _, code := run(t, append(strings.Fields(c.CommandPath())[1:], "--help")...)
		if code != ExitOK {
			t.Errorf("%s --help: exit %d", c.CommandPath(), code)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s --help prints a default twice: %s", c.CommandPath(), strings.TrimSpace(line))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&env{}))
}
