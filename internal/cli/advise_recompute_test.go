package cli

import (
	"strings"
	"testing"
)

// --recompute: bad values and misuse exit 2 naming the flag; without
// recompute a 70B LoRA at 4k context keeps 94.4 GB of activations and logits
// per GPU beside its share of the weights, ((141.1 + 1.0)/8 + 94.4) × 1.1 =
// 123.3 GB on 8 GPUs: H200 (141 GB) and B200 hold it, no 80 GB GPU does;
// and the work takes 4/6 of the time recompute costs.
func TestAdviseRecompute(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "llama-3-8b", "--recompute", "some"}, `--recompute "some": want full`},
		{[]string{"--recompute", "none"}, "--recompute needs --model"},
	} {
		args := append([]string{"advise", "--scenario", "llm-finetuning", "--tokens", "1e9"}, tc.args...)
		if !strings.Contains(strings.Join(tc.args, " "), "--model") {
			args = []string{"advise", "--scenario", "llm-finetuning", "--work", "100gpu-h@A100", "--recompute", "none"}
		}
		_, errOut, code := run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	args := []string{"advise", "--scenario", "llm-finetuning", "--model", "llama-3-70b", "--method", "lora", "--recompute", "none",
		"--tokens", "2e9", "--deadline", "10d", "--no-spot", "--limit", "3"}
	out, errOut, code := run(t, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"34·seq·hidden·layers B × micro-batch = 34·4096·8192·80 × 1 = 91.3 GB per GPU", "× 4/6 without activation recompute"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = run(t, args...)
	var rows []string // a row's first line starts with its rank; a wrapped cell continues below
	for _, l := range strings.Split(out, "\n")[1:] {
		if l != "" && l[0] >= '0' && l[0] <= '9' && len(rows) < 3 {
			rows = append(rows, l)
		}
	}
	for _, l := range rows {
		if strings.Contains(l, "80GB") || !strings.Contains(l, "H200") && !strings.Contains(l, "B200") {
			t.Errorf("without recompute, a plan not on H200 or B200: %s", l)
		}
	}
}
