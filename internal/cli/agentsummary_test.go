package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/server/client"
)

type fakeUploader struct {
	fail bool
	got  [][]byte
}

func (f *fakeUploader) Upload(_ context.Context, kind string, body []byte) (*client.Result, error) {
	if f.fail || kind != "agent" {
		return nil, errors.New("server away")
	}
	f.got = append(f.got, body)
	return &client.Result{ID: "x", Created: true}, nil
}

func sample(t *testing.T, at time.Time, util0, util1, tx, lo, spend float64) *agent.Snapshot {
	t.Helper()
	m := func(name string) *agent.Metric {
		mt, ok := agent.Lookup(name)
		if !ok {
			t.Fatalf("no metric %s", name)
		}
		return mt
	}
	u := m(agent.GPUUtilization)
	vals := func(gpu string) []string {
		v := make([]string, len(u.Labels))
		v[0] = gpu
		return v
	}
	return &agent.Snapshot{At: at, Series: []agent.Series{
		{Metric: u, Values: vals("0"), Value: util0},
		{Metric: u, Values: vals("1"), Value: util1},
		{Metric: m(agent.NetworkTransmit), Values: []string{"eth0"}, Value: tx},
		{Metric: m(agent.NetworkTransmit), Values: []string{"lo"}, Value: lo},
		{Metric: m(agent.CostSpend), Values: []string{"USD"}, Value: spend},
	}}
}

// Three samples in 10:00–11:00, then one at 11:00 closes the hour: means,
// counter deltas (lo left out) and the queue when the server is away.
func TestAgentHourlySummary(t *testing.T) {
	up := &fakeUploader{fail: true}
	cfg := &agentconfig.Config{Node: agentconfig.Node{Provider: "aws", InstanceType: "p5.48xlarge", Region: "us-east-1", GPU: "H100-SXM5-80GB"}}
	p := newSummaryPart(up, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p.Tick(h.Add(10*time.Minute), sample(t, h, 0.5, 1.0, 1000, 5, 10))
	p.Tick(h.Add(30*time.Minute), sample(t, h, 0.0, 0.5, 4000, 50, 20))
	p.Tick(h.Add(50*time.Minute), sample(t, h, 1.0, 1.0, 500, 60, 30.5)) // eth0 counter reset: +500
	p.Tick(h.Add(61*time.Minute), sample(t, h, 0, 0, 600, 70, 40))
	p.flush(context.Background())
	if len(up.got) != 0 || len(p.queue) != 1 {
		t.Fatalf("server away: sent %d, queued %d; want 0 and 1", len(up.got), len(p.queue))
	}
	up.fail = false
	p.flush(context.Background())
	if len(up.got) != 1 || len(p.queue) != 0 {
		t.Fatalf("server back: sent %d, queued %d; want 1 and 0", len(up.got), len(p.queue))
	}
	var s agentSummary
	if err := json.Unmarshal(up.got[0], &s); err != nil {
		t.Fatal(err)
	}
	// utilisation: (0.5+1+0+0.5+1+1)/6 = 0.6667, max 1; egress: 3000 + 500;
	// spend: 10 + 10.5 = 20.5 USD.
	if s.HourStart != "2026-12-01T10:00:00Z" || s.HourEnd != "2026-12-01T11:00:00Z" || s.Samples != 3 ||
		*s.GPUUtilizationMean != 4.0/6 || *s.GPUUtilizationMax != 1 || s.EgressBytes != 3500 ||
		s.Spend.String() != "20.5" || s.Currency != "USD" || s.Provider != "aws" || s.GPU != "H100-SXM5-80GB" {
		t.Fatalf("summary: got %+v (spend %v)", s, s.Spend)
	}
}

// TestAgentPartialHourOnStop: an agent stopped before the hour ends sends
// the hour so far, marked partial, ending at its last sample (it sent nothing).
func TestAgentPartialHourOnStop(t *testing.T) {
	up := &fakeUploader{}
	cfg := &agentconfig.Config{Node: agentconfig.Node{Provider: "aws", GPU: "H100-SXM5-80GB"}}
	p := newSummaryPart(up, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p.Tick(h.Add(10*time.Minute), sample(t, h, 0.5, 1.0, 1000, 5, 10))
	p.Tick(h.Add(20*time.Minute), sample(t, h, 0.0, 0.5, 4000, 50, 20))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.Run(ctx)
	if len(up.got) != 1 {
		t.Fatalf("sent %d summaries on stop, want 1", len(up.got))
	}
	var s agentSummary
	if err := json.Unmarshal(up.got[0], &s); err != nil {
		t.Fatal(err)
	}
	// utilisation (0.5+1+0+0.5)/4 = 0.5; egress 3000; spend 10.
	if !s.Partial || s.HourStart != "2026-12-01T10:00:00Z" || s.HourEnd != "2026-12-01T10:20:00Z" || s.Samples != 2 ||
		*s.GPUUtilizationMean != 0.5 || s.EgressBytes != 3000 || s.Spend.String() != "10" {
		t.Fatalf("partial summary: got %+v (spend %v)", s, s.Spend)
	}
	p.Run(ctx) // stopping twice sends nothing more
	if len(up.got) != 1 {
		t.Errorf("a second stop sent %d in all, want 1", len(up.got))
	}
}
