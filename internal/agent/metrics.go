// Package agent is the core of `gpuscout agent`: the metric registry (the
// one place metric names, help, types and labels are decided), the sample
// store the exporter and the rules read, the sampling loop that runs the
// collectors on their own ticker, and the Prometheus exporter. The
// collectors live in agent/collect; rules, notifiers and autostop in their
// own subpackages, called by the loop each tick through TickHandler.
package agent

import "slices"

// Type is a metric's Prometheus type.
type Type int

// Metric types.
const (
	Gauge Type = iota
	Counter
)

// String is the type as the exposition format writes it.
func (t Type) String() string {
	if t == Counter {
		return "counter"
	}
	return "gauge"
}

// Metric describes one metric the agent exports. Names follow Prometheus's
// conventions: the gpuscout_ prefix, base units (bytes, seconds, watts,
// joules, hertz, celsius), _total on counters, ratios from 0 to 1.
type Metric struct {
	Name   string
	Help   string
	Type   Type
	Labels []string // label names, in the order collectors give the values
	// DCGM is dcgm-exporter's name for the same value (with agent.dcgm_names),
	// and DCGMScale the factor from our unit to its unit; "" for none.
	DCGM      string
	DCGMScale float64
}

// Metric names, for collectors and tests; Metrics describes each.
const (
	GPUInfo              = "gpuscout_gpu_info"
	GPUUtilization       = "gpuscout_gpu_utilization_ratio"
	GPUMemoryUtilization = "gpuscout_gpu_memory_utilization_ratio"
	GPUMemoryUsed        = "gpuscout_gpu_memory_used_bytes"
	GPUMemoryTotal       = "gpuscout_gpu_memory_total_bytes"
	GPUMemoryUsedRatio   = "gpuscout_gpu_memory_used_ratio"
	GPUPower             = "gpuscout_gpu_power_watts"
	GPUPowerLimit        = "gpuscout_gpu_power_limit_watts"
	GPUEnergy            = "gpuscout_gpu_energy_joules_total"
	GPUTemperature       = "gpuscout_gpu_temperature_celsius"
	GPUSMClock           = "gpuscout_gpu_sm_clock_hertz"
	GPUMemoryClock       = "gpuscout_gpu_memory_clock_hertz"
	GPUClockEvent        = "gpuscout_gpu_clock_event_active"
	GPUProcesses         = "gpuscout_gpu_processes"
	GPUECCErrors         = "gpuscout_gpu_ecc_errors_total"
	GPUXidErrors         = "gpuscout_gpu_xid_errors_total"
	GPUPCIeTransmit      = "gpuscout_gpu_pcie_transmit_bytes_per_second"
	GPUPCIeReceive       = "gpuscout_gpu_pcie_receive_bytes_per_second"

	NetworkReceive  = "gpuscout_network_receive_bytes_total"
	NetworkTransmit = "gpuscout_network_transmit_bytes_total"

	EgressRate           = "gpuscout_egress_rate_bytes_per_second"
	EgressProjectedBytes = "gpuscout_egress_projected_monthly_bytes"
	EgressProjectedCost  = "gpuscout_egress_projected_monthly_cost"
	CostPricePerHour     = "gpuscout_cost_price_per_hour"
	CostBurnRate         = "gpuscout_cost_burn_rate_per_hour"
	CostSpend            = "gpuscout_cost_spend_total"
	CollectorUp          = "gpuscout_collector_up"
	CollectorDuration    = "gpuscout_collector_duration_seconds"
	LastSampleTimestamp  = "gpuscout_last_sample_timestamp_seconds"
	AgentInfo            = "gpuscout_agent_info"
	NodeUptime           = "gpuscout_node_uptime_seconds"
	labelGPU, labelUUID  = "gpu", "uuid"
	labelCurrency        = "currency"
	labelCollector       = "collector"
	labelInterface       = "interface"
	labelProvider        = "provider"
	labelRegion          = "region"
	labelReason          = "reason"
	labelErrorType       = "type"
	labelModel, labelDrv = "model", "driver"
	labelFake            = "fake"
	labelVersion         = "version"
	labelInstanceType    = "instance_type"
)

// Autostop's metric names (internal/agent/autostop emits them).
const (
	AutostopArmed         = "gpuscout_autostop_armed"
	AutostopIdle          = "gpuscout_autostop_idle_seconds"
	AutostopIdleThreshold = "gpuscout_autostop_idle_threshold_seconds"
	AutostopLastActive    = "gpuscout_autostop_last_active_timestamp_seconds"
	AutostopSignalActive  = "gpuscout_autostop_signal_active"
	AutostopSignalUp      = "gpuscout_autostop_signal_up"
	labelSignal           = "signal"
)

// gpuLabels are the labels of every per-GPU series.
var gpuLabels = []string{labelGPU, labelUUID}

// Metrics is every metric the agent exports. The exporter, the rules'
// validation, `rules export` and the Grafana dashboard's test read it.
var Metrics = []Metric{
	{Name: GPUInfo, Help: "GPU identity, value 1; fake=\"true\" marks the simulated GPUs of --fake-gpus (model then starts with FAKE).", Labels: []string{labelGPU, labelUUID, labelModel, labelDrv, labelFake}},
	{Name: GPUUtilization, Help: "Fraction of the last sample period a kernel ran on the GPU (NVML utilization.gpu), 0 to 1.", Labels: gpuLabels, DCGM: "DCGM_FI_DEV_GPU_UTIL", DCGMScale: 100},
	{Name: GPUMemoryUtilization, Help: "Fraction of the last sample period device memory was read or written (NVML utilization.memory), 0 to 1.", Labels: gpuLabels, DCGM: "DCGM_FI_DEV_MEM_COPY_UTIL", DCGMScale: 100},
	{Name: GPUMemoryUsed, Help: "GPU memory in use, bytes.", Labels: gpuLabels, DCGM: "DCGM_FI_DEV_FB_USED", DCGMScale: 1.0 / (1 << 20)},
	{Name: GPUMemoryTotal, Help: "GPU memory in total, bytes.", Labels: gpuLabels},
	{Name: GPUMemoryUsedRatio, Help: "GPU memory in use over memory in total, 0 to 1.", Labels: gpuLabels},
	{Name: GPUPower, Help: "GPU power draw, watts.", Labels: gpuLabels, DCGM: "DCGM_FI_DEV_POWER_USAGE", DCGMScale: 1},
	{Name: GPUPowerLimit, Help: "GPU enforced power limit, watts.", Labels: gpuLabels},
	{Name: GPUEnergy, Help: "GPU energy consumed since the driver loaded, joules.", Type: Counter, Labels: gpuLabels, DCGM: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", DCGMScale: 1000},
	{Name: GPUTemperature, Help: "GPU core temperature, degrees Celsius.", Labels: gpuLabels, DCGM: "DCGM_FI_DEV_GPU_TEMP", DCGMScale: 1},
	{Name: GPUSMClock, Help: "GPU SM clock, hertz.", Labels: gpuLabels, DCGM: "DCGM_FI_DEV_SM_CLOCK", DCGMScale: 1e-6},
	{Name: GPUMemoryClock, Help: "GPU memory clock, hertz.", Labels: gpuLabels, DCGM: "DCGM_FI_DEV_MEM_CLOCK", DCGMScale: 1e-6},
	{Name: GPUClockEvent, Help: "1 while NVML reports the clock-event (throttle) reason, such as sw_power_cap or hw_thermal_slowdown; 0 otherwise.", Labels: []string{labelGPU, labelUUID, labelReason}},
	{Name: GPUProcesses, Help: "Compute processes using the GPU.", Labels: gpuLabels},
	{Name: GPUECCErrors, Help: "ECC errors since the driver loaded (NVML volatile counters), type corrected or uncorrected; absent where ECC is off.", Type: Counter, Labels: []string{labelGPU, labelUUID, labelErrorType}},
	{Name: GPUXidErrors, Help: "Xid errors (critical driver error reports) since the agent started watching; each is logged with its code; absent where NVML cannot report them.", Type: Counter, Labels: gpuLabels},
	{Name: GPUPCIeTransmit, Help: "PCIe bytes per second sent by the GPU (NVML's 20 ms sample; collect.pcie).", Labels: gpuLabels},
	{Name: GPUPCIeReceive, Help: "PCIe bytes per second received by the GPU (NVML's 20 ms sample; collect.pcie).", Labels: gpuLabels},

	{Name: NetworkReceive, Help: "Bytes received on the interface (/proc/net/dev).", Type: Counter, Labels: []string{labelInterface}},
	{Name: NetworkTransmit, Help: "Bytes sent on the interface (/proc/net/dev).", Type: Counter, Labels: []string{labelInterface}},

	{Name: EgressRate, Help: "Bytes per second sent on the counted interfaces over the last sample period: an upper bound of billed egress (private destinations included).", Labels: nil},
	{Name: EgressProjectedBytes, Help: "Egress a 730-hour month at the current rate, bytes: an upper bound of billed egress.", Labels: nil},
	{Name: EgressProjectedCost, Help: "The projected month's egress priced with the provider's internet egress tiers for the region (catalog), in the currency: an upper bound.", Labels: []string{labelCurrency, labelProvider, labelRegion}},
	{Name: CostPricePerHour, Help: "Price of one instance-hour under the plan's pricing model (config node.price_per_hour), in the currency.", Labels: []string{labelCurrency, labelInstanceType}},
	{Name: CostBurnRate, Help: "Spend per hour of the plan's instances (price per hour times node.instances), in the currency.", Labels: []string{labelCurrency}},
	{Name: CostSpend, Help: "Spend since this node booted: price per hour times node.instances times uptime, in the currency.", Type: Counter, Labels: []string{labelCurrency}},
	{Name: NodeUptime, Help: "Seconds since this node booted (/proc/uptime).", Labels: nil},

	{Name: CollectorUp, Help: "1 when the collector's last sample succeeded, 0 when it failed (the other collectors go on).", Labels: []string{labelCollector}},
	{Name: CollectorDuration, Help: "How long the collector's last sample took, seconds.", Labels: []string{labelCollector}},
	{Name: LastSampleTimestamp, Help: "When the last sample was taken, Unix seconds.", Labels: nil},
	{Name: AgentInfo, Help: "The agent's version, value 1.", Labels: []string{labelVersion}},

	{Name: AutostopArmed, Help: "1 when autostop stops the machine once idle long enough; 0 in dry run (logs only) or while a stop is under way.", Labels: nil},
	{Name: AutostopIdle, Help: "Seconds every autostop signal has been idle (a signal that cannot be read counts as active and resets it).", Labels: nil},
	{Name: AutostopIdleThreshold, Help: "Idle seconds at which autostop stops the machine (config autostop.idle_for).", Labels: nil},
	{Name: AutostopLastActive, Help: "When an autostop signal was last active or unreadable, Unix seconds.", Labels: nil},
	{Name: AutostopSignalActive, Help: "1 when the autostop signal (gpu_utilization, ssh_sessions, gpu_processes) counts as active at the last tick, read active or unreadable; 0 when idle.", Labels: []string{labelSignal}},
	{Name: AutostopSignalUp, Help: "1 when the autostop signal could be read at the last tick; 0 when it could not (it then counts as active).", Labels: []string{labelSignal}},
}

var byName = func() map[string]*Metric {
	m := make(map[string]*Metric, len(Metrics))
	for i := range Metrics {
		m[Metrics[i].Name] = &Metrics[i]
	}
	return m
}()

// Lookup returns the metric named name.
func Lookup(name string) (*Metric, bool) {
	m, ok := byName[name]
	return m, ok
}

// MetricLabels returns the label names of the metric named name; it is the
// agentconfig.Options.Metric check of rules.
func MetricLabels(name string) ([]string, bool) {
	m, ok := byName[name]
	if !ok {
		return nil, false
	}
	return slices.Clone(m.Labels), true
}
