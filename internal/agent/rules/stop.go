package rules

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent/autostop"
	"github.com/gpuscout/gpuscout/internal/agent/notify"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// Stopper carries out a rule's action stop: when such a rule first fires,
// the autostop's hook runs (killed at autostop.hook_timeout) and then its
// stop command, whether or not autostop's own idle watch is enabled, and
// not at all in autostop.dry_run (logged only). It runs once per agent run,
// in its own goroutine: the sampling loop never waits for it.
type Stopper struct {
	a    agentconfig.Autostop
	log  *slog.Logger
	run  func(ctx context.Context, argv []string, timeout time.Duration) autostop.Result
	once sync.Once
	wg   sync.WaitGroup
}

// NewStopper carries out the stop action of cfg's rules with its autostop
// settings (hook, stop command, dry run).
func NewStopper(cfg *agentconfig.Config, log *slog.Logger) *Stopper {
	return &Stopper{a: cfg.Autostop, log: log, run: autostop.RunCommand}
}

// Alerts takes one tick's alerts.
func (s *Stopper) Alerts(as []notify.Alert) {
	for _, a := range as {
		if a.Action != notify.ActionStop || a.Status() != notify.StatusFiring {
			continue
		}
		s.once.Do(func() {
			if s.a.DryRun {
				s.log.Warn("rule stop: dry run (autostop.dry_run); would run the hook and the stop command", "alert", a.Name(), "labels", a.Labels, "hook", s.a.Hook, "stop", s.a.Stop)
				return
			}
			s.log.Warn("rule stop: stopping the machine", "alert", a.Name(), "labels", a.Labels, "stop", s.a.Stop)
			s.wg.Go(s.stop)
		})
	}
}

func (s *Stopper) stop() {
	ctx := context.Background()
	if len(s.a.Hook) > 0 {
		r := s.run(ctx, s.a.Hook, s.a.HookTimeout.D())
		s.log.Info("rule stop: hook ran", "hook", r.Argv, "took", r.Took, "err", r.Err, "output", r.Output)
	}
	r := s.run(ctx, s.a.Stop, time.Minute)
	if r.Err != nil {
		s.log.Error("rule stop: stop command failed", "stop", r.Argv, "err", r.Err, "output", r.Output)
		return
	}
	s.log.Warn("rule stop: stop command done", "stop", r.Argv, "took", r.Took, "output", r.Output)
}

// Wait blocks until a running stop has ended.
func (s *Stopper) Wait() { s.wg.Wait() }
