package advise

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// AgentConfig is the monitoring configuration for the plan's nodes: what
// they are and cost (in the plan's currency), and the alerts the agent
// evaluates. egressBudgetGB is the internet egress a month the plan assumed;
// with 0 there is no egress alert.
func AgentConfig(p *Plan, egressBudgetGB float64) *agentconfig.Config {
	o := p.Offering
	price := func(d decimal.NullDecimal) *float64 { return agentconfig.Price(d.Decimal.InexactFloat64(), d.Valid) }
	cfg := &agentconfig.Config{
		Version: agentconfig.Version,
		Node: agentconfig.Node{Provider: o.Provider, InstanceType: o.InstanceType, Region: o.Region, GPU: o.GPU.Name, GPUCount: o.GPUCount,
			Instances: p.Instances, PricingModel: p.Model, PricePerHour: price(p.PricePerHour), OnDemandPricePerHour: price(p.OnDemandPerHour),
			Currency: string(p.Currency)},
		Alerts: []agentconfig.Alert{
			{Name: "GPUMemoryHigh", Expr: "gpuscout_gpu_memory_used_ratio > 0.9", For: "5m", Action: agentconfig.ActionNotify, Note: "scale out (the article's rule)"},
			{Name: "GPUIdle", Expr: "gpuscout_gpu_utilization_ratio < 0.05", For: "30m", Action: agentconfig.ActionStop, Note: "autostop idle machines"},
		},
		Notify: agentconfig.Notify{Alertmanager: "http://127.0.0.1:9093"},
	}
	if egressBudgetGB > 0 {
		cfg.Alerts = append(cfg.Alerts, agentconfig.Alert{Name: "EgressOverBudget", Expr: fmt.Sprintf("gpuscout_egress_projected_monthly_bytes > %.0f", egressBudgetGB*1e9*1.2),
			For: "1h", Action: agentconfig.ActionNotify, Note: "20% over the internet egress the plan assumed"})
	}
	cfg.Alerts = append(cfg.Alerts, agentconfig.Alert{Name: "SpendOverPlan", Expr: fmt.Sprintf("gpuscout_cost_projected_total > %s", p.Total.Value.Round(2).StringFixed(2)),
		For: "1h", Action: agentconfig.ActionNotify, Note: "projected spend above the plan's total, in " + string(p.Currency)})
	return cfg
}
