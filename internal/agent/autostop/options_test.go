package autostop

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Options)
		wantErr string // "" for valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"idle_for too short", func(o *Options) { o.IdleFor = 30 * time.Second }, "autostop.idle_for 30s: want 1m0s to 720h0m0s"},
		{"idle_for too long", func(o *Options) { o.IdleFor = 31 * 24 * time.Hour }, "autostop.idle_for 744h0m0s"},
		{"utilisation zero is allowed", func(o *Options) { o.IdleUtilization = 0 }, ""},
		{"utilisation as a percentage", func(o *Options) { o.IdleUtilization = 5 }, "autostop.idle_utilization 5: want a ratio from 0 to 1"},
		{"utilisation negative", func(o *Options) { o.IdleUtilization = -0.1 }, "autostop.idle_utilization -0.1"},
		{"no ssh ports", func(o *Options) { o.RequireNoSSH, o.SSHPorts = true, nil }, "autostop.ssh_ports is empty"},
		{"bad ssh port", func(o *Options) { o.RequireNoSSH, o.SSHPorts = true, []int{22, 70000} }, "autostop.ssh_ports 70000: want 1 to 65535"},
		{"bad port ignored when ssh not required", func(o *Options) { o.SSHPorts = []int{0} }, ""},
		{"hook timeout zero", func(o *Options) { o.HookTimeout = 0 }, "autostop.hook_timeout 0s: want 1s to 1h0m0s"},
		{"stop timeout too long", func(o *Options) { o.StopTimeout = 2 * time.Hour }, "autostop.stop_timeout 2h0m0s"},
		{"empty stop", func(o *Options) { o.Stop = nil }, "autostop.stop is empty"},
		{"empty hook program", func(o *Options) { o.Hook = []string{"", "x"} }, "autostop.hook"},
		{"max gap over idle_for (New lowers it)", func(o *Options) { o.MaxGap = time.Hour }, ""},
		{"max gap zero", func(o *Options) { o.MaxGap = 0 }, "max gap 0s: want at least 1s"},
		{"no proc root", func(o *Options) { o.ProcRoot = "" }, "proc root is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Defaults()
			tt.change(&o)
			err := o.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v; want %q", err, tt.wantErr)
			}
			if _, nerr := New(o, Deps{}); (nerr == nil) != (err == nil) {
				t.Errorf("New() error %v; want the same as Validate's %v", nerr, err)
			}
		})
	}
}
