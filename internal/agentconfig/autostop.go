package agentconfig

import "time"

// Autostop stops an idle machine: when GPU utilisation has stayed at or
// under IdleUtilization on every GPU for IdleFor (and, if asked, no SSH
// session and no process on a GPU), Hook runs (killed at HookTimeout), then
// Stop. A signal that cannot be read counts as activity: the agent never
// stops a machine because a reading failed.
type Autostop struct {
	Enabled bool `yaml:"enabled"`
	// IdleUtilization is the GPU utilisation ratio (0 to 1) at or under
	// which a GPU is idle (default 0.05).
	IdleUtilization *float64 `yaml:"idle_utilization,omitempty"`
	// IdleFor is how long every GPU must stay idle (default 30m, 1m to 30 days).
	IdleFor Duration `yaml:"idle_for,omitempty"`
	// RequireNoSSH also requires no logged-in SSH session.
	RequireNoSSH bool `yaml:"require_no_ssh,omitempty"`
	// RequireNoGPUProcesses also requires no process using a GPU.
	RequireNoGPUProcesses bool `yaml:"require_no_gpu_processes,omitempty"`
	// Hook runs before Stop (argv, no shell), for a checkpoint or a notice.
	Hook []string `yaml:"hook,omitempty"`
	// HookTimeout bounds Hook (default 5m, 1s to 1h); Stop runs after it either way.
	HookTimeout Duration `yaml:"hook_timeout,omitempty"`
	// Stop is the stop command (argv, no shell; default shutdown -h now;
	// a cloud CLI call also works).
	Stop []string `yaml:"stop,omitempty"`
	// DryRun logs and reports what would run, and runs nothing.
	DryRun bool `yaml:"dry_run,omitempty"`
}

// Defaults and bounds of the autostop section.
const (
	DefaultIdleUtilization = 0.05
	DefaultIdleFor         = 30 * time.Minute
	MinIdleFor             = time.Minute
	MaxIdleFor             = 30 * 24 * time.Hour
	DefaultHookTimeout     = 5 * time.Minute
	MaxHookTimeout         = time.Hour
)

// DefaultStop is the stop command unless the config says otherwise.
var DefaultStop = []string{"shutdown", "-h", "now"}

func (a *Autostop) applyDefaults() {
	if a.IdleUtilization == nil {
		v := DefaultIdleUtilization
		a.IdleUtilization = &v
	}
	if a.IdleFor == 0 {
		a.IdleFor = Duration(DefaultIdleFor)
	}
	if a.HookTimeout == 0 {
		a.HookTimeout = Duration(DefaultHookTimeout)
	}
	if len(a.Stop) == 0 {
		a.Stop = append([]string(nil), DefaultStop...)
	}
}

func (a *Autostop) validate() error {
	if u := *a.IdleUtilization; !(u >= 0 && u <= 1) {
		return fieldErr("autostop.idle_utilization", "value %v is outside the allowed range 0 to 1 (a ratio: 0.05 is 5%%)", u)
	}
	if err := checkDuration("autostop.idle_for", a.IdleFor, MinIdleFor, MaxIdleFor); err != nil {
		return err
	}
	if err := checkDuration("autostop.hook_timeout", a.HookTimeout, time.Second, MaxHookTimeout); err != nil {
		return err
	}
	if len(a.Hook) > 0 && a.Hook[0] == "" {
		return fieldErr("autostop.hook", "the command is empty; want the command and its arguments as a list")
	}
	if a.Stop[0] == "" {
		return fieldErr("autostop.stop", "the command is empty; want the command and its arguments as a list, such as [shutdown, -h, now]")
	}
	return nil
}
