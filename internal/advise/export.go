package advise

import (
	"fmt"
	"math"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/catalog"
)

// AgentConfig is the agent configuration (format version 1) for the plan's
// nodes: what they are and cost (in the plan's currency), the built-in
// rules with the plan's budgets, Alertmanager on the local host, and the
// GPU-aware autostop in dry-run mode. egressBudgetGB is the internet egress
// a month the plan assumed; with 0 there is no egress rule. The budgets sit
// 20% above the plan: an alert means the plan's assumption no longer holds.
func AgentConfig(p *Plan, egressBudgetGB float64) *agentconfig.Config {
	o := p.Offering
	margin := decimal.RequireFromString("1.2")
	var b agentconfig.Budgets
	if egressBudgetGB > 0 {
		b.EgressBytesPerSecond = math.Round(egressBudgetGB * 1e9 * 1.2 / (catalog.HoursPerMonth * 3600))
	}
	if p.PricePerHour.Valid {
		b.BurnRatePerHour = p.PricePerHour.Decimal.Mul(decimal.NewFromInt(int64(p.Instances))).Mul(margin).Round(4).InexactFloat64()
	}
	cfg := &agentconfig.Config{
		Version: agentconfig.Version,
		Node: agentconfig.Node{Provider: o.Provider, InstanceType: o.InstanceType, Region: o.Region, GPU: o.GPU.Name, GPUCount: o.GPUCount,
			Instances: p.Instances, PricingModel: p.Model, PricePerHour: agentconfig.PriceOf(p.PricePerHour),
			OnDemandPricePerHour: agentconfig.PriceOf(p.OnDemandPerHour), Currency: string(p.Currency)},
		Rules:    agentconfig.DefaultRules(b),
		Notify:   agentconfig.Notify{Alertmanager: []string{"http://127.0.0.1:9093"}},
		Autostop: agentconfig.Autostop{Enabled: true, DryRun: true, RequireNoSSH: true, RequireNoGPUProcesses: true},
	}
	total := p.Total.Value.Round(2).InexactFloat64()
	cfg.Rules = append(cfg.Rules, agentconfig.Rule{Name: "SpendOverPlan", Metric: "gpuscout_cost_spend_total", Op: agentconfig.OpGT, Threshold: &total,
		Aggregate: agentconfig.AggLatest, Severity: agentconfig.SeverityWarning, Action: agentconfig.ActionNotify,
		Annotations: map[string]string{"summary": fmt.Sprintf("spend so far above the plan's total of %s %s", p.Total.Value.Round(2).StringFixed(2), p.Currency)}})
	return cfg
}
