package rules

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/notify"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// Known reports whether name is one of the agent's metrics (the registry
// in internal/agent/metrics.go).
func Known(name string) bool {
	_, ok := agent.Lookup(name)
	return ok
}

// ForAgent is the engine of an agent config (read and validated by
// agentconfig.Read with agent.MetricLabels): its rules, at its sampling
// interval, with metric names checked against the registry.
func ForAgent(c *agentconfig.Config) (*Engine, error) {
	rs, err := FromConfig(c.Rules)
	if err != nil {
		return nil, err
	}
	e, err := New(rs, c.Agent.Interval.D(), Known)
	if err != nil {
		return nil, fmt.Errorf("rules: %v", err)
	}
	return e, nil
}

// EvalSnapshot is Eval over one of the agent's snapshots, at its time. Only
// the series of metrics some rule reads are converted.
func (e *Engine) EvalSnapshot(snap *agent.Snapshot) []notify.Alert {
	if snap == nil {
		return nil
	}
	want := make(map[string]bool, len(e.rules))
	for _, r := range e.rules {
		want[r.Metric] = true
	}
	var series []Series
	for _, s := range snap.Series {
		if s.Metric == nil || !want[s.Metric.Name] {
			continue
		}
		l := make(map[string]string, len(s.Values))
		for i, n := range s.Metric.Labels {
			if i < len(s.Values) {
				l[n] = s.Values[i]
			}
		}
		series = append(series, Series{Metric: s.Metric.Name, Labels: l, Value: s.Value})
	}
	return e.Eval(snap.At, series)
}

// Handler is the rules' agent.TickHandler: each tick it evaluates the
// snapshot, hands the alerts to the dispatcher's queue (local disk writes
// only) and, when something is due and no round is running, starts one
// delivery round in the background (Dispatcher.Deliver), so the loop never
// waits on a receiver and the ticks drive the retries. Dispatcher.Run may
// run beside it: delivery rounds never overlap. Log gets one line when an
// alert fires or resolves, so a caller need not log them again:
//
//	d, _ := notify.New(notify.FromConfig(cfg.Notify))
//	e, _ := rules.ForAgent(cfg)
//	e.Persist(filepath.Join(cfg.Agent.StateDir, "rules-state.json"))
//	loop.Handlers = append(loop.Handlers, &rules.Handler{Engine: e, Notify: d})
type Handler struct {
	Engine *Engine
	Notify *notify.Dispatcher // nil: evaluate only
	// Alerts, when set, also gets every tick's alerts (autostop takes those
	// whose Action is stop).
	Alerts func([]notify.Alert)
	// Log, when set, gets a line when an alert fires or resolves.
	Log *slog.Logger

	delivering atomic.Bool
	wg         sync.WaitGroup
}

// Tick evaluates s (at its sampling time) and enqueues the alerts.
func (h *Handler) Tick(now time.Time, s *agent.Snapshot) {
	if s == nil {
		return
	}
	if s.At.IsZero() {
		c := *s
		c.At = now
		s = &c
	}
	alerts := h.Engine.EvalSnapshot(s)
	if h.Log != nil {
		for _, a := range alerts {
			switch {
			case a.Status() == notify.StatusResolved:
				h.Log.Info("alert resolved", "alert", a.Name(), "labels", a.Labels, "since", a.StartsAt)
			case a.StartsAt.Equal(s.At):
				h.Log.Warn("alert firing", "alert", a.Name(), "labels", a.Labels, "summary", a.Annotations["summary"])
			}
		}
		if err := h.Engine.StateError(); err != nil {
			h.Log.Error("rules: state file", "err", err)
		}
	}
	if h.Alerts != nil {
		h.Alerts(alerts)
	}
	if h.Notify == nil {
		return
	}
	if len(alerts) > 0 {
		if err := h.Notify.Enqueue(context.Background(), alerts); err != nil && h.Log != nil {
			h.Log.Error("rules: could not queue alerts", "err", err)
		}
	}
	if h.delivering.CompareAndSwap(false, true) {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			defer h.delivering.Store(false)
			if err := h.Notify.Deliver(context.Background()); err != nil && h.Log != nil {
				h.Log.Info("notify: delivery incomplete; will retry", "err", err)
			}
		}()
	}
}

// Wait waits for the delivery round in flight, if any.
func (h *Handler) Wait() { h.wg.Wait() }
