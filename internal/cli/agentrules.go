package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/notify"
	"github.com/gpuscout/gpuscout/internal/agent/rules"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// The rules and notify part of `gpuscout agent`: the engine evaluates every
// sample (the loop's TickHandler) and queues the alerts on disk; the
// dispatcher delivers them in its own goroutine (agent.Runner).
func init() { agentTickHandlers = append(agentTickHandlers, newRulesPart) }

type rulesPart struct {
	*rules.Handler
	d    *notify.Dispatcher
	stop *rules.Stopper // rules with action stop; nil without
}

// Run delivers the queued alerts until ctx ends, then waits for a stop
// command a rule started.
func (p rulesPart) Run(ctx context.Context) {
	if p.d != nil {
		p.d.Run(ctx)
	} else {
		<-ctx.Done()
	}
	if p.stop != nil {
		p.stop.Wait()
	}
}

var (
	_ agent.TickHandler = rulesPart{}
	_ agent.Runner      = rulesPart{}
)

func newRulesPart(cfg *agentconfig.Config, log *slog.Logger) (agent.TickHandler, error) {
	if len(cfg.Rules) == 0 {
		return nil, nil
	}
	e, err := rules.ForAgent(cfg)
	if err != nil {
		return nil, asUsage(err)
	}
	// The firing alerts survive a restart in the state directory; where it
	// cannot be written (a demo run without root), they are kept in memory.
	if err := os.MkdirAll(cfg.Agent.StateDir, 0o755); err != nil {
		log.Warn("rules: state directory not writable; firing alerts are kept in memory only", "dir", cfg.Agent.StateDir, "err", err)
	} else if err := e.Persist(filepath.Join(cfg.Agent.StateDir, "rules-state.json")); err != nil {
		log.Warn("rules: previous state not read", "err", err)
	}
	h := &rules.Handler{Engine: e, Log: log}
	p := rulesPart{Handler: h}
	n := cfg.Notify
	if len(n.Alertmanager)+len(n.Webhooks)+len(n.Exec) > 0 {
		rs, xs, o := notify.FromConfig(n)
		o.Log = log
		o.ExternalURL = "http://" + cfg.Agent.Listen
		d, err := notify.New(rs, xs, o)
		if err != nil {
			return nil, fmt.Errorf("agent: notify (queue in notify.queue_dir %s): %w", n.QueueDir, err)
		}
		h.Notify, p.d = d, d
	}
	var logged func([]notify.Alert)
	if h.Notify == nil {
		log.Info("rules: no notify targets; alerts are evaluated and logged only")
		logged = logAlerts(log)
	}
	var stop *rules.Stopper
	for _, r := range cfg.Rules {
		if r.Action == agentconfig.ActionStop {
			stop = rules.NewStopper(cfg, log)
			p.stop = stop
			break
		}
	}
	if logged != nil || stop != nil {
		h.Alerts = func(as []notify.Alert) {
			if logged != nil {
				logged(as)
			}
			if stop != nil {
				stop.Alerts(as)
			}
		}
	}
	return p, nil
}

// logAlerts logs each alert's state changes when nothing else receives them.
func logAlerts(log *slog.Logger) func([]notify.Alert) {
	seen := map[string]string{}
	return func(as []notify.Alert) {
		for _, a := range as {
			key := a.Fingerprint()
			if st := a.Status(); seen[key] != st {
				seen[key] = st
				log.Info("alert "+st, "name", a.Name(), "labels", a.Labels)
			}
		}
	}
}
