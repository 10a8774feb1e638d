package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Spot's numbers have one range each, and a trace that cannot serve the job
// is refused or named rather than replayed silently.
func TestSpotBoundsAndTraces(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	two := write("two.json", `{"metadata": {"gap_seconds": 3600}, "data": [2, 2, 0, 2, 1, 2, 2, 2, 0, 2]}`)
	huge := write("huge.json", `{"metadata": {"gap_seconds": 1e9}, "data": [1, 0, 1]}`)
	base := []string{"spot", "--work", "4h", "--spot-price", "1", "--od-price", "3", "--runs", "5"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--deadline", "11y", "--band", "5-10%"}, "11y is too long: at most 10y"},
		{[]string{"--deadline", "6h", "--band", "5-10%", "--checkpoint", "0s"}, "--checkpoint 0s: an interval of zero writes checkpoints continuously, for free, but each costs --checkpoint-cost 5m"},
		{[]string{"--band", "5-10%", "--seed", "-1"}, `"--seed" flag: want a whole number from 0 to 18446744073709551615`},
		{[]string{"--band", "5-10%", "--max-events", "1e99"}, `"--max-events" flag: want a whole number from 1000 to 10000000000`},
		{[]string{"--trace", two, "--nodes", "3"}, "never has more than 2 instance(s) up at once: a gang of 3 could never run on spot"},
		{[]string{"--trace", huge}, "metadata.gap_seconds 1e+09: want 1 to 86400 seconds"},
	} {
		_, errb, code := run(t, append(append([]string{}, base...), tc.args...)...)
		if code != ExitUsage || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb, tc.want)
		}
	}
	// 2e8 is a count; a trace shorter than the job is replayed, and said so.
	out, errb, code := run(t, append(append([]string{}, base...), "--trace", two, "--nodes", "2", "--deadline", "12h", "--max-events", "2e8")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "covers 10.0 h, less than the job's 12.0 h: a run wraps around to the trace's start") {
		t.Errorf("a trace shorter than the job is not named:\n%s", out)
	}
}
