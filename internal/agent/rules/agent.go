package rules

import (
	"fmt"

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
