package agentconfig

import (
	"net"
	"strconv"
	"time"
)

// Agent is how the agent itself runs.
type Agent struct {
	// Listen is the address of the Prometheus endpoint (default
	// DefaultListen, loopback only; a port of 0 picks a free one).
	Listen string `yaml:"listen,omitempty"`
	// Interval is how often the collectors sample (default 1s, 100ms to 10m).
	// A scrape serves the last sample, whatever its rate.
	Interval Duration `yaml:"interval,omitempty"`
	// FakeGPUs, when more than 0, replaces NVML with that many simulated GPUs
	// replaying a recorded H200 trace, labelled fake="true" and with a model
	// name starting "FAKE" (0 to MaxFakeGPUs).
	FakeGPUs int `yaml:"fake_gpus,omitempty"`
	// StateDir keeps what must survive a restart: the alert queue and the
	// autostop's last-active time (default /var/lib/gpuscout).
	StateDir string `yaml:"state_dir,omitempty"`
	// DCGMNames also exports the GPU series under dcgm-exporter's names
	// (DCGM_FI_DEV_GPU_UTIL, ...) in dcgm-exporter's units, for dashboards
	// built on it.
	DCGMNames bool `yaml:"dcgm_names,omitempty"`
}

// Defaults and bounds of the agent section. Port 9836 sits next to
// nvidia_gpu_exporter's 9835 and clear of dcgm-exporter's 9400 and
// node_exporter's 9100.
const (
	DefaultListen   = "127.0.0.1:9836"
	DefaultInterval = time.Second
	MinInterval     = 100 * time.Millisecond
	MaxInterval     = 10 * time.Minute
	MaxFakeGPUs     = 64
	DefaultStateDir = "/var/lib/gpuscout"
)

func (a *Agent) applyDefaults() {
	if a.Listen == "" {
		a.Listen = DefaultListen
	}
	if a.Interval == 0 {
		a.Interval = Duration(DefaultInterval)
	}
	if a.StateDir == "" {
		a.StateDir = DefaultStateDir
	}
}

func (a *Agent) validate() error {
	if err := CheckListen("agent.listen", a.Listen); err != nil {
		return err
	}
	if err := checkDuration("agent.interval", a.Interval, MinInterval, MaxInterval); err != nil {
		return err
	}
	if a.FakeGPUs < 0 || a.FakeGPUs > MaxFakeGPUs {
		return fieldErr("agent.fake_gpus", "value %d is outside the allowed range 0 to %d", a.FakeGPUs, MaxFakeGPUs)
	}
	return nil
}

// CheckListen wants host:port with a port from 0 to 65535 (the host may be
// empty for every interface); field names the flag or field in the error.
func CheckListen(field, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		var p int
		p, err = strconv.Atoi(port)
		if err == nil && (p < 0 || p > 65535) {
			err = strconv.ErrRange
		}
	}
	if err != nil {
		return fieldErr(field, "value %q is not an address; want host:port such as 127.0.0.1:9836 or :9836 (port 0 to 65535)", addr)
	}
	return nil
}
