package cli

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/agentsummary"
	"github.com/gpuscout/gpuscout/internal/plandoc"
)

// What advise -o json writes is what the server accepts as a plan
// (plandoc.Read: strict, every field known, every number in range): jobs,
// asks, loads, bursty loads, models, budgets, China's prices, bench
// figures, a default time budget and closest plans, so that a key advise
// adds to its JSON and plandoc does not know fails here, not an upload.
func TestAdviseJSONIsAnUploadablePlan(t *testing.T) {
	for _, args := range [][]string{
		{"--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--deadline", "9d", "--spot-regions", "3", "--limit", "3"},
		{"--scenario", "llm-pretraining", "--work", "20000gpu-h@A100", "--deadline", "30d", "--budget", "60000USD"},
		{"--scenario", "inference-online", "--hours-per-month", "730", "--china", "--currency", "CNY"},
		{"--scenario", "llm-finetuning", "--pattern", "bursty", "--peak", "16", "--base", "2", "--credits", "1000USD@aws"},
		{"--scenario", "llm-finetuning", "--model", "llama-3-70b", "--method", "lora", "--tokens", "2e9", "--deadline", "10d", "--budget", "20000USD"},
		{"--scenario", "inference-online", "--gpu", "L4", "--hours-per-month", "730", "--horizon", "3y", "--provider", "gcp"},
		{"--scenario", "llm-pretraining", "--model", "70B", "--tokens", "2e12", "--deadline", "1d"},
		{"--scenario", "llm-pretraining", "--model", "8B", "--tokens", "1e12"},
		{"--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws", "--bench", "testdata/bench-a10g.json"},
	} {
		out, errOut, code := run(t, append([]string{"advise", "--no-user-catalog", "-o", "json"}, args...)...)
		if code != 0 {
			t.Errorf("%s: exit %d %s", strings.Join(args, " "), code, errOut)
			continue
		}
		d, err := plandoc.Read([]byte(out))
		if err != nil {
			t.Errorf("%s: advise's JSON is not a valid plan: %v", strings.Join(args, " "), err)
			continue
		}
		if d.Inputs.Scenario != args[1] {
			t.Errorf("%s: read scenario %q", strings.Join(args, " "), d.Inputs.Scenario)
		}
	}
}

// What the agent uploads is what the server accepts as an agent summary;
// an hour the server would refuse (a utilisation reading of 90, not 0.9)
// is dropped with a warning, not queued to block the hours after it.
func TestAgentSummaryIsUploadable(t *testing.T) {
	up := &fakeUploader{}
	cfg := &agentconfig.Config{Node: agentconfig.Node{Provider: "aws", InstanceType: "p5.48xlarge", Region: "us-east-1", GPU: "H100-SXM5-80GB"}}
	p := newSummaryPart(up, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p.Tick(h.Add(10*time.Minute), sample(t, h, 0.5, 1.0, 1000, 5, 10))
	p.Tick(h.Add(30*time.Minute), sample(t, h, 0.0, 0.5, 4000, 50, 20))
	p.Tick(h.Add(70*time.Minute), sample(t, h, 90, 90, 5000, 60, 30)) // closes 10:00; 11:00 reads 90
	p.Tick(h.Add(130*time.Minute), sample(t, h, 0.5, 0.5, 6000, 70, 40))
	p.flush(context.Background())
	if len(up.got) != 1 {
		t.Fatalf("sent %d summaries, want 1 (10:00; 11:00 dropped)", len(up.got))
	}
	s, err := agentsummary.Read(up.got[0])
	if err != nil {
		t.Fatalf("the agent's summary is refused by the server's schema: %v\n%s", err, up.got[0])
	}
	if s.HourStart != "2026-12-01T10:00:00Z" || s.Host == "" && s.Samples != 2 {
		t.Errorf("got %+v", s)
	}
	if len(p.queue) != 0 {
		t.Errorf("%d summaries left queued, want none", len(p.queue))
	}
}
