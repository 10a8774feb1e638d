package advise

import (
	"fmt"
	"io"
	"strings"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// SkyPilotAccelerator names a GPU as SkyPilot's catalog does (common/accelerators.csv).
func SkyPilotAccelerator(g *catalog.GPU) string {
	switch g.Family {
	case "A100":
		if g.MemoryGiB.Known && g.MemoryGiB.Value >= 80 {
			return "A100-80GB"
		}
		return "A100"
	case "V100":
		if g.MemoryGiB.Known && g.MemoryGiB.Value >= 32 {
			return "V100-32GB"
		}
		return "V100"
	case "H100":
		if g.FormFactor == "NVL" {
			return "H100-NVL"
		}
		return "H100"
	case "Trainium":
		return "Trainium"
	case "Inferentia":
		return "Inferentia"
	case "T4G":
		return "T4g"
	case "RTX-A6000":
		return "A6000"
	case "RTX-A5000":
		return "A5000"
	case "RadeonProV520":
		return "Radeon Pro V520"
	}
	return g.Family
}

// skyPilotClouds lists the providers of the catalog SkyPilot can launch on.
func skyPilotClouds(c *catalog.Catalog) []string {
	var out []string
	for _, name := range c.ProviderNames() {
		if p := c.Provider(name); p != nil && p.SkyPilotCloud != "" {
			out = append(out, name)
		}
	}
	return out
}

// WriteSkyPilot prints a SkyPilot task YAML that launches the plan. A spot
// plan is a managed job (job_recovery); a spot plan made under a deadline
// (Uniform Progress with on-demand fallback) lists spot and on-demand as
// candidates (any_of), and a comment says what SkyPilot cannot express.
func WriteSkyPilot(w io.Writer, c *catalog.Catalog, p *Plan, scenario string) error {
	o := p.Offering
	prov := c.Provider(o.Provider)
	if prov == nil || prov.SkyPilotCloud == "" {
		return fmt.Errorf("SkyPilot cannot launch on %s; --export skypilot needs a plan on one of %s", o.Provider, strings.Join(skyPilotClouds(c), ", "))
	}
	res := map[string]any{
		"cloud":         prov.SkyPilotCloud,
		"instance_type": o.InstanceType,
		"accelerators":  fmt.Sprintf("%s:%s", SkyPilotAccelerator(o.GPU), fmtCount(o.GPUCount)),
	}
	if o.Region != "" {
		res["region"] = o.Region
	}
	var notes []string
	spotPlan := p.Model == cost.ModelSpot
	switch {
	case spotPlan && p.Deadline > 0:
		// Spot first (the optimizer picks the cheaper candidate), on-demand
		// when spot cannot be had; managed jobs restart from the checkpoint.
		res["any_of"] = []map[string]any{{"use_spot": true}, {"use_spot": false}}
		res["job_recovery"] = map[string]any{"strategy": "FAILOVER", "max_restarts_on_errors": 0}
		notes = append(notes,
			fmt.Sprintf("deadline %s: gpuscout priced this plan as %s (spot, switching to on-demand when the job falls behind the progress line the deadline sets).", cost.FormatHours(p.Deadline), p.Payment),
			"SkyPilot cannot express a deadline: any_of falls back to on-demand only when spot cannot be launched, and never because the job runs late.",
			"Watch progress yourself and relaunch with use_spot: false if the job falls behind; launch with: sky jobs launch task.yaml")
	case spotPlan:
		res["use_spot"] = true
		res["job_recovery"] = map[string]any{"strategy": "EAGER_NEXT_REGION", "max_restarts_on_errors": 0}
		notes = append(notes, "spot-only with checkpoint/restart: run it as a managed job so that preemptions are recovered: sky jobs launch task.yaml")
	default:
		res["use_spot"] = false
		if p.Term != "" {
			notes = append(notes, fmt.Sprintf("SkyPilot cannot buy the %s %s: buy it from %s first; SkyPilot then launches on-demand instances that the commitment covers", p.Model, p.Term, o.Provider))
		}
		notes = append(notes, "launch with: sky launch task.yaml (managed jobs: sky jobs launch task.yaml)")
	}
	task := map[string]any{
		"name":      "gpuscout-" + scenario,
		"resources": res,
		"num_nodes": p.Instances,
		"run":       "echo 'replace with your training or serving command'\n",
	}
	b, err := yaml.Marshal(task)
	if err != nil {
		return err
	}
	var head strings.Builder
	fmt.Fprintf(&head, "# SkyPilot task for gpuscout's plan #%d: %s %s, %s\n# expected %s total\n",
		p.Rank, o.Provider, o.InstanceType, strings.TrimSpace(planName(p)+" "+p.Payment), money.Format(p.Total, p.Currency))
	for _, n := range notes {
		head.WriteString("# " + n + "\n")
	}
	_, err = io.WriteString(w, head.String()+string(b))
	return err
}

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
	cfg.Alerts = append(cfg.Alerts, agentconfig.Alert{Name: "SpendOverPlan", Expr: fmt.Sprintf("gpuscout_cost_projected_total > %s", p.Total.Round(2).StringFixed(2)),
		For: "1h", Action: agentconfig.ActionNotify, Note: "projected spend above the plan's total, in " + string(p.Currency)})
	return cfg
}
