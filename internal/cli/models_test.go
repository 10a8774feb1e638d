package cli

import (
	"strings"
	"testing"
)

// Bad model input exits 2 naming the flag, the value and what is allowed.
func TestModelUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"models", "gpt-9"}, `unknown model "gpt-9"`},
		{[]string{"models", "a", "b"}, "at most one model name"},
		{[]string{"advise", "--scenario", "llm-pretraining", "--tokens", "1e9"}, "--tokens needs --model"},
		{[]string{"advise", "--scenario", "llm-pretraining", "--model", "8B", "--tokens", "0"}, `invalid argument "0" for "--tokens"`},
		{[]string{"advise", "--scenario", "inference-online", "--model", "qwen2.5-72b", "--context", "32q", "--hours-per-month", "730"}, "such as 4096 or 32k"},
		{[]string{"advise", "--scenario", "inference-online", "--model", "qwen2.5-72b", "--context", "256k", "--hours-per-month", "730"}, "--context 262144: qwen2.5-72b takes at most 131072 tokens"},
		{[]string{"advise", "--scenario", "inference-online", "--model", "qwen2.5-72b", "--weights", "int3", "--hours-per-month", "730"}, `--weights "int3"`},
		{[]string{"advise", "--scenario", "llm-finetuning", "--model", "70B", "--method", "inference", "--tokens", "1e9"}, "--method inference with --scenario llm-finetuning"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
