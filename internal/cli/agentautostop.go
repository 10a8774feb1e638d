package cli

import (
	"log/slog"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/autostop"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// The autostop part of `gpuscout agent`: when the config's autostop is on,
// a watcher takes every sample (agent's loop, TickHandler) and exports its
// own metrics (gpuscout_autostop_*, as a collector).
func init() { agentTickHandlers = append(agentTickHandlers, newAutostopPart) }

// autostopPart is both the loop's tick handler and the collector of the
// watcher's metrics.
type autostopPart struct {
	*autostop.StatusCollector
	w *autostop.Watcher
}

// Tick hands the sample to the watcher.
func (p autostopPart) Tick(now time.Time, s *agent.Snapshot) { p.w.HandleTick(now, s) }

var (
	_ agent.TickHandler = autostopPart{}
	_ agent.Collector   = autostopPart{}
)

func newAutostopPart(cfg *agentconfig.Config, log *slog.Logger) (agent.TickHandler, error) {
	if !cfg.Autostop.Enabled {
		return nil, nil
	}
	w, err := autostop.New(autostop.FromConfig(cfg, agentProcRoot), autostop.Deps{Log: log})
	if err != nil {
		return nil, asUsage(err)
	}
	log.Info("autostop: " + w.Describe())
	return autostopPart{w.StatusCollector(), w}, nil
}
