package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// readmeAdvise are the advise examples of the README (and issue 23's): each
// must plan in under 300 ms on the 2-core development machine (make bench
// reports the figures).
var readmeAdvise = [][]string{
	{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d"},
	{"advise", "--scenario", "llm-pretraining", "--work", "20000gpu-h@A100", "--deadline", "30d", "--budget", "60000USD"},
	{"advise", "--scenario", "inference-online", "--hours-per-month", "730", "--china", "--currency", "CNY"},
	{"advise", "--scenario", "llm-finetuning", "--pattern", "bursty", "--peak", "16", "--base", "2", "--credits", "1000USD@aws"},
	{"advise", "--scenario", "llm-finetuning", "--model", "llama-3-70b", "--method", "lora", "--tokens", "2e9", "--deadline", "10d", "--budget", "20000USD"},
	{"advise", "--scenario", "inference-online", "--model", "qwen2.5-72b", "--context", "32k", "--concurrency", "32", "--hours-per-month", "730"},
	{"advise", "--scenario", "llm-pretraining", "--model", "8B", "--tokens", "1e12", "--deadline", "30d"},
	{"advise", "--scenario", "llm-pretraining", "--model", "70B", "--tokens", "2e12"},
	{"advise", "--scenario", "llm-finetuning", "--gpu", "A10G:1", "--for", "3d"},
	{"advise", "--scenario", "cv-training", "--gpu", "A100:16", "--for", "7d"},
}

// BenchmarkAdviseREADME runs each README advise example through the
// command, as a user's call does (catalog loaded once per process is
// excluded: Main loads it each call, so it is included here too).
func BenchmarkAdviseREADME(b *testing.B) {
	for _, args := range readmeAdvise {
		b.Run(strings.Join(args[1:], "_"), func(b *testing.B) {
			for b.Loop() {
				var out, errb bytes.Buffer
				if code := Main(context.Background(), append(args, "--no-user-catalog"), &out, &errb); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
			}
		})
	}
}
