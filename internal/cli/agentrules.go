package cli

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/notify"
	"github.com/gpuscout/gpuscout/internal/agent/rules"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

func init() { agentTickHandlers = append(agentTickHandlers, rulesTickHandler) }

// rulesTickHandler is the agent's rules and notifiers: the config's rules
// evaluated every tick, their alerts queued under notify.queue_dir and sent
// to notify's Alertmanagers, webhooks and exec actions. Without a notify
// target nothing is written to disk and alerts only go to the log.
func rulesTickHandler(cfg *agentconfig.Config, log *slog.Logger) (agent.TickHandler, error) {
	if len(cfg.Rules) == 0 {
		return nil, nil
	}
	e, err := rules.ForAgent(cfg)
	if err != nil {
		return nil, asUsage(err)
	}
	e.GeneratorURL = "http://" + cfg.Agent.Listen + "/"
	h := &rules.Handler{Engine: e, Log: log}
	rs, xs, o := notify.FromConfig(cfg.Notify)
	if len(rs)+len(xs) == 0 {
		return h, nil
	}
	o.Log, o.ExternalURL = log, e.GeneratorURL
	d, err := notify.New(rs, xs, o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Agent.StateDir, 0o700); err != nil {
		return nil, err
	}
	if err := e.Persist(filepath.Join(cfg.Agent.StateDir, "rules-state.json")); err != nil {
		return nil, err
	}
	h.Notify = d
	return h, nil
}
