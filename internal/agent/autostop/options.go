package autostop

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// Options say when a node counts as idle and what stopping it means. The
// zero value is not usable: start from Defaults.
type Options struct {
	// IdleFor is how long every enabled signal must have been idle before
	// the node stops (the SkyPilot-style idle minutes).
	IdleFor time.Duration
	// IdleUtilization is the GPU utilisation (0..1) at or under which a GPU
	// is idle; the node's GPU signal is idle only when every GPU is, so the
	// window's maximum decides (one burst is activity).
	IdleUtilization float64
	// RequireNoSSH adds the signal "no established connection to an SSH
	// port" (SSHPorts, read from ProcRoot/net/tcp and tcp6).
	RequireNoSSH bool
	SSHPorts     []int
	// RequireNoGPUProcesses adds the signal "no compute process on any GPU"
	// (NVML's compute processes, through the Watcher's injected func).
	RequireNoGPUProcesses bool

	// Hook runs first (argv, no shell), killed with its process group after
	// HookTimeout; its failure or timeout is logged and the stop goes ahead.
	Hook        []string
	HookTimeout time.Duration
	// Stop is the stop command (argv, no shell): DefaultStop, or a cloud
	// CLI call such as `aws ec2 stop-instances --instance-ids i-...`.
	Stop        []string
	StopTimeout time.Duration
	// RetryAfter is how long after a failed stop command it runs again.
	RetryAfter time.Duration

	// DryRun logs what would run and runs nothing.
	DryRun bool
	// StateDir holds the persisted last-active time ("" keeps it in memory
	// only, so an agent restart restarts the idle clock).
	StateDir string
	// ProcRoot is where procfs is mounted (/proc; /host/proc in a container
	// that mounts the host's).
	ProcRoot string
	// MaxGap is the longest time between two ticks that still counts as
	// watched: a longer gap (agent stopped, clock jump, sampling stalled) is
	// time nobody saw, so it counts as active. Set it to a few sampling
	// intervals; New lowers it to IdleFor.
	MaxGap time.Duration
}

// Bounds and defaults of the options.
const (
	MinIdleFor             = time.Minute
	MaxIdleFor             = 30 * 24 * time.Hour
	DefaultIdleFor         = 30 * time.Minute
	DefaultIdleUtilization = 0.05
	DefaultHookTimeout     = 5 * time.Minute
	MaxCommandTimeout      = time.Hour
	DefaultStopTimeout     = 2 * time.Minute
	DefaultRetryAfter      = 5 * time.Minute
	DefaultMaxGap          = 2 * time.Minute
	DefaultSSHPort         = 22
)

// DefaultStop powers the machine off; on most clouds an instance whose OS
// halts is stopped (billing for its GPUs ends; disks are still billed).
var DefaultStop = []string{"shutdown", "-h", "now"}

// Defaults returns the options with every default filled in: GPU
// utilisation under 5% for 30 minutes, no SSH or process signal, the stop
// command `shutdown -h now`, state only in memory, procfs at /proc.
func Defaults() Options {
	return Options{
		IdleFor:         DefaultIdleFor,
		IdleUtilization: DefaultIdleUtilization,
		SSHPorts:        []int{DefaultSSHPort},
		HookTimeout:     DefaultHookTimeout,
		Stop:            append([]string(nil), DefaultStop...),
		StopTimeout:     DefaultStopTimeout,
		RetryAfter:      DefaultRetryAfter,
		ProcRoot:        "/proc",
		MaxGap:          DefaultMaxGap,
	}
}

// Validate checks the options; errors name the field, the value and what
// is allowed. It changes nothing.
func (o *Options) Validate() error {
	if o.IdleFor < MinIdleFor || o.IdleFor > MaxIdleFor {
		return fmt.Errorf("autostop.idle_for %s: want %s to %s", o.IdleFor, MinIdleFor, MaxIdleFor)
	}
	if !(o.IdleUtilization >= 0) || o.IdleUtilization > 1 {
		return fmt.Errorf("autostop.idle_utilization %v: want a ratio from 0 to 1 (0.05 is 5%%)", o.IdleUtilization)
	}
	if o.RequireNoSSH {
		if len(o.SSHPorts) == 0 {
			return fmt.Errorf("autostop.ssh_ports is empty: want at least one port (22)")
		}
		for _, p := range o.SSHPorts {
			if p < 1 || p > 65535 {
				return fmt.Errorf("autostop.ssh_ports %d: want 1 to 65535", p)
			}
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"autostop.hook_timeout", o.HookTimeout}, {"autostop.stop_timeout", o.StopTimeout}, {"autostop.retry_after", o.RetryAfter}} {
		if d.v < time.Second || d.v > MaxCommandTimeout {
			return fmt.Errorf("%s %s: want 1s to %s", d.name, d.v, MaxCommandTimeout)
		}
	}
	if len(o.Stop) == 0 || o.Stop[0] == "" {
		return fmt.Errorf("autostop.stop is empty: want the command and its arguments as a list, such as [shutdown, -h, now]")
	}
	if len(o.Hook) > 0 && o.Hook[0] == "" {
		return fmt.Errorf("autostop.hook %q: the program name is empty", o.Hook)
	}
	if o.MaxGap < time.Second {
		return fmt.Errorf("autostop max gap %s: want at least 1s", o.MaxGap)
	}
	if o.ProcRoot == "" {
		return fmt.Errorf("autostop proc root is empty: want a procfs mount such as /proc")
	}
	return nil
}

// fingerprint identifies the options that decide idleness: a persisted
// idle clock counts only under the same ones (a new setting restarts it).
func (o *Options) fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "idle=%s util=%v ssh=%t ports=%v procs=%t", o.IdleFor, o.IdleUtilization, o.RequireNoSSH, o.SSHPorts, o.RequireNoGPUProcesses)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// signalNames lists the enabled signals, for logs and `agent check`.
func (o *Options) signalNames() string {
	s := []string{fmt.Sprintf("GPU utilisation <= %g%%", o.IdleUtilization*100)}
	if o.RequireNoSSH {
		s = append(s, fmt.Sprintf("no SSH session on port %v", o.SSHPorts))
	}
	if o.RequireNoGPUProcesses {
		s = append(s, "no GPU compute process")
	}
	return strings.Join(s, " AND ")
}
