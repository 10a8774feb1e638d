package autostop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

func TestFromConfig(t *testing.T) {
	const yml = `version: 1
node: {provider: aws, instance_type: p5.48xlarge, region: us-east-1}
agent: {interval: 1m, state_dir: /var/lib/gpuscout-test}
autostop:
  enabled: true
  idle_for: 45m
  idle_utilization: 0.1
  require_no_ssh: true
  hook: [/usr/local/bin/save-checkpoint, --all]
  hook_timeout: 90s
  stop: [aws, ec2, stop-instances, --instance-ids, i-0123456789abcdef0]
  dry_run: true
`
	c, err := agentconfig.Read(strings.NewReader(yml), "agent.yaml", agentconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := FromConfig(c, "/host/proc")
	want := Defaults()
	want.IdleFor, want.IdleUtilization, want.RequireNoSSH = 45*time.Minute, 0.1, true
	want.Hook, want.HookTimeout = []string{"/usr/local/bin/save-checkpoint", "--all"}, 90*time.Second
	want.Stop = []string{"aws", "ec2", "stop-instances", "--instance-ids", "i-0123456789abcdef0"}
	want.DryRun, want.StateDir, want.ProcRoot = true, "/var/lib/gpuscout-test", "/host/proc"
	want.MaxGap = 5 * time.Minute // five 1m intervals
	if !equalOptions(o, want) {
		t.Errorf("FromConfig =\n%+v\nwant\n%+v", o, want)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("FromConfig(...).Validate() = %v", err)
	}

	// The defaults: 30m at 5%, shutdown -h now, max gap 2m at a 1s interval.
	d := agentconfig.Default()
	o = FromConfig(d, "")
	if o.IdleFor != 30*time.Minute || o.IdleUtilization != 0.05 || !slices.Equal(o.Stop, DefaultStop) || o.MaxGap != DefaultMaxGap || o.ProcRoot != "/proc" {
		t.Errorf("FromConfig(Default()) = %+v; want 30m, 0.05, %q, max gap %s, /proc", o, DefaultStop, DefaultMaxGap)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("FromConfig(Default()).Validate() = %v", err)
	}
}

func equalOptions(a, b Options) bool {
	return a.IdleFor == b.IdleFor && a.IdleUtilization == b.IdleUtilization && a.RequireNoSSH == b.RequireNoSSH &&
		slices.Equal(a.SSHPorts, b.SSHPorts) && a.RequireNoGPUProcesses == b.RequireNoGPUProcesses &&
		slices.Equal(a.Hook, b.Hook) && a.HookTimeout == b.HookTimeout && slices.Equal(a.Stop, b.Stop) &&
		a.StopTimeout == b.StopTimeout && a.RetryAfter == b.RetryAfter && a.DryRun == b.DryRun &&
		a.StateDir == b.StateDir && a.ProcRoot == b.ProcRoot && a.MaxGap == b.MaxGap
}
