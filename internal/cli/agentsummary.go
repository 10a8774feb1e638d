package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/agentsummary"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/server/client"
	"github.com/gpuscout/gpuscout/internal/store"
)

// The hourly summary part of `gpuscout agent --upload`: it takes every
// sample, and at each whole hour sends the server one document (kind
// agent) with the hour's GPU utilisation, egress and spend. A summary that
// cannot be sent waits in a queue and is retried every minute, oldest first.
// When the agent stops, the hour so far is sent as a partial summary (its
// hour_end the last sample's time), so that a node stopped mid-hour (the
// idle stop, a spot interruption, a deploy) still reports its last minutes.

// agentSummary is the uploaded document: its schema is agentsummary's,
// which the server validates it with and the dashboard reads it with.
type agentSummary = agentsummary.Summary

// maxQueued bounds the summaries kept while the server is away (a week).
const maxQueued = 168

type uploader interface {
	Upload(ctx context.Context, kind string, body []byte) (*client.Result, error)
}

type summaryPart struct {
	up   uploader
	node agentconfig.Node
	host string
	log  *slog.Logger

	mu          sync.Mutex
	start       time.Time // the hour being summed; zero before the first sample
	last        time.Time // the last sample's time
	samples     int
	utilSum     float64
	utilN       int
	utilMax     float64
	egress      float64
	spend       float64
	currency    string
	spendSeen   bool
	lastCounter map[string]float64 // counter series → last value
	queue       [][]byte
	wake        chan struct{}
}

func newSummaryPart(up uploader, cfg *agentconfig.Config, log *slog.Logger) *summaryPart {
	host, _ := os.Hostname()
	return &summaryPart{up: up, node: cfg.Node, host: host, log: log, lastCounter: map[string]float64{}, wake: make(chan struct{}, 1)}
}

// Tick sums one sample into the current hour; at the hour's end it queues
// the summary.
func (p *summaryPart) Tick(now time.Time, s *agent.Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	hour := now.UTC().Truncate(time.Hour)
	if p.start.IsZero() {
		p.start = hour
	}
	if hour.After(p.start) {
		p.closeHour(hour, p.start.Add(time.Hour), false)
	}
	p.last = now.UTC()
	p.samples++
	for _, se := range s.Get(agent.GPUUtilization) {
		p.utilSum += se.Value
		p.utilN++
		p.utilMax = max(p.utilMax, se.Value)
	}
	for _, se := range s.Get(agent.NetworkTransmit) {
		if ifc, _ := se.Label("interface"); ifc == "lo" {
			continue
		}
		p.egress += p.delta(agent.NetworkTransmit, se)
	}
	for _, se := range s.Get(agent.CostSpend) {
		p.spend += p.delta(agent.CostSpend, se)
		p.currency, _ = se.Label("currency")
		p.spendSeen = true
	}
}

// delta is a counter's increase since the last sample (0 on the first; the
// new value after a reset).
func (p *summaryPart) delta(metric string, se agent.Series) float64 {
	key := metric
	for _, v := range se.Values {
		key += "\x00" + v
	}
	last, seen := p.lastCounter[key]
	p.lastCounter[key] = se.Value
	switch {
	case !seen:
		return 0
	case se.Value < last:
		return se.Value
	}
	return se.Value - last
}

// closeHour queues the summary of the hour that began at p.start, up to end
// (the hour's end, or the last sample's time for a partial one), and starts
// the hour next.
func (p *summaryPart) closeHour(next, end time.Time, partial bool) {
	sum := agentSummary{SchemaVersion: agentsummary.SchemaVersion, Kind: agentsummary.Kind, CreatedAt: end.Format(time.RFC3339), HourStart: p.start.Format(time.RFC3339),
		HourEnd: end.Format(time.RFC3339), Partial: partial, Host: p.host, Provider: p.node.Provider, InstanceType: p.node.InstanceType, Region: p.node.Region,
		GPU: p.node.GPU, Samples: p.samples, EgressBytes: p.egress}
	if p.utilN > 0 {
		mean, mx := p.utilSum/float64(p.utilN), p.utilMax
		sum.GPUUtilizationMean, sum.GPUUtilizationMax = &mean, &mx
	}
	if p.spendSeen {
		sum.Spend, sum.Currency = money.Number(decimal.NewFromFloat(p.spend)), p.currency
	}
	// A summary the server would refuse is logged and dropped: queued, it
	// would be retried first, and block the ones after it, forever.
	if err := sum.Validate(); err != nil && p.samples > 0 {
		p.log.Warn("agent summary not valid; not sent", "hour", p.start, "err", err)
	} else if b, err := json.Marshal(sum); err == nil && p.samples > 0 {
		if len(p.queue) == maxQueued {
			p.log.Warn("agent summary queue full; the oldest is dropped", "hour", p.start)
			p.queue = p.queue[1:]
		}
		p.queue = append(p.queue, b)
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	p.start, p.samples, p.utilSum, p.utilN, p.utilMax, p.egress, p.spend, p.spendSeen = next, 0, 0, 0, 0, 0, 0, false
}

// stopFlush bounds the last try to send the queue when the agent stops.
const stopFlush = 10 * time.Second

// Run sends queued summaries when one is queued and every minute, until ctx
// ends; then it queues the hour so far and tries once more to send the queue.
func (p *summaryPart) Run(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		p.flush(ctx)
		select {
		case <-ctx.Done():
			p.stop()
			last, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopFlush)
			defer cancel()
			p.flush(last)
			return
		case <-p.wake:
		case <-t.C:
		}
	}
}

// stop queues the hour so far as a partial summary.
func (p *summaryPart) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.samples > 0 {
		p.closeHour(p.start, p.last, true)
	}
}

// flush sends the queue oldest first, stopping at the first failure.
func (p *summaryPart) flush(ctx context.Context) {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.mu.Unlock()
			return
		}
		b := p.queue[0]
		p.mu.Unlock()
		if _, err := p.up.Upload(ctx, store.KindAgent, b); err != nil {
			p.log.Warn("agent summary upload failed; kept for the next try", "err", err)
			return
		}
		p.mu.Lock()
		p.queue = p.queue[1:]
		p.mu.Unlock()
	}
}

type uploaderKey struct{}

// withSummaryUploader carries agent --upload's client to runAgent (nil: none).
func withSummaryUploader(ctx context.Context, c *client.Client) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, uploaderKey{}, c)
}

func summaryUploader(ctx context.Context) *client.Client {
	c, _ := ctx.Value(uploaderKey{}).(*client.Client)
	return c
}
