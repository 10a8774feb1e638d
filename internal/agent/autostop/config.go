package autostop

import (
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// FromConfig turns a read and defaulted config into Options: its autostop
// section, with the agent's state directory (where the idle clock is kept)
// and a MaxGap of five sampling intervals (at least DefaultMaxGap, at most
// idle_for). procRoot is where procfs is mounted ("" for /proc). The SSH
// signal watches port 22, and the stop command gets DefaultStopTimeout.
func FromConfig(c *agentconfig.Config, procRoot string) Options {
	a := &c.Autostop
	o := Defaults()
	o.IdleFor = a.IdleFor.D()
	if a.IdleUtilization != nil {
		o.IdleUtilization = *a.IdleUtilization
	}
	o.RequireNoSSH = a.RequireNoSSH
	o.RequireNoGPUProcesses = a.RequireNoGPUProcesses
	o.Hook = append([]string(nil), a.Hook...)
	if a.HookTimeout > 0 {
		o.HookTimeout = a.HookTimeout.D()
	}
	if len(a.Stop) > 0 {
		o.Stop = append([]string(nil), a.Stop...)
	}
	o.DryRun = a.DryRun
	o.StateDir = c.Agent.StateDir
	if procRoot != "" {
		o.ProcRoot = procRoot
	}
	o.MaxGap = min(max(DefaultMaxGap, 5*c.Agent.Interval.D()), o.IdleFor)
	return o
}
