// Package collect holds the agent's collectors, each an agent.Collector:
// GPUs through NVML, simulated GPUs replaying a recorded H200 trace
// (--fake-gpus), network bytes per interface from /proc/net/dev with the
// egress projection, and the cost meter. Each reads one source; the loop in
// package agent runs them and marks a failing one down.
package collect

import (
	"github.com/gpuscout/gpuscout/internal/agent"
)

// Collector names, the collector label of gpuscout_collector_up.
const (
	NameGPU     = "gpu"
	NameNetwork = "network"
	NameCost    = "cost"
)

var (
	_ agent.Collector = (*GPU)(nil)
	_ agent.Collector = (*FakeGPUs)(nil)
	_ agent.Collector = (*Network)(nil)
	_ agent.Collector = (*Cost)(nil)
)
