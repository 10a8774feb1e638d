package cli

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Asks nothing can meet get one sentence naming the limit and the closest
// plan, exit 0 and no plan; impossible flags exit 2.
func TestAdviseImpossible(t *testing.T) {
	// 70B on 2e12 tokens in a day: the fastest plan at --max-nodes 64 and
	// the instances a perfect scaling would need, at least 64 × its hours / 24.
	out, errOut, code := run(t, "advise", "--scenario", "llm-pretraining", "--model", "70B", "--tokens", "2e12", "--deadline", "1d")
	// Any space may be a line break where the text wraps at 120 columns.
	m := regexp.MustCompile(strings.ReplaceAll(`the fastest plan, 64 × \S+ \(\w+\), takes ([\d.]+) h, [\d.]+ h past the 24 h deadline on --max-nodes 64; even scaling perfectly it would need at least (\d+) instances`, " ", `\s+`)).FindStringSubmatch(out)
	if code != 0 || m == nil || !strings.HasPrefix(strings.Split(out, "\n")[1], "~") {
		t.Fatalf("exit %d %s; want the fastest plan and the instances needed, closest plans marked ~:\n%s", code, errOut, out)
	}
	h, _ := strconv.ParseFloat(m[1], 64)
	if need, _ := strconv.Atoi(m[2]); float64(need) < 64*h/24-1 || float64(need) > 64*h/24+1 {
		t.Errorf("needs %d instances; want 64 × %.1f h / 24 h", need, h)
	}
	// 405B full training on one instance: no plan; the closest family is
	// the one only --max-nodes holds back, with the instances it needs.
	out, errOut, code = run(t, "advise", "--scenario", "llm-pretraining", "--model", "llama-3.1-405b", "--tokens", "1e9", "--max-nodes", "1")
	if code != 0 || !strings.HasPrefix(out, "Nothing can be planned") || !regexp.MustCompile(`closest: \S+ ×8 \(\w+\): needs 7,168 GB for full training of llama-3\.1-405b`).MatchString(out) ||
		!regexp.MustCompile(`more\s+than\s+--max-nodes\s+1\)`).MatchString(out) {
		t.Errorf("exit %d %s:\n%s", code, errOut, out)
	}
	for _, args := range [][]string{{"--max-nodes", "0"}, {"--deadline", "0h"}, {"--deadline", "-1d"}} {
		_, errOut, code := run(t, append([]string{"advise", "--scenario", "llm-pretraining", "--model", "70B", "--tokens", "2e12"}, args...)...)
		if code != ExitUsage || !strings.Contains(errOut, args[0]) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", args, code, errOut, args[0])
		}
	}
}
