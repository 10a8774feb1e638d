package advise

import (
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// skypilotClouds are the providers SkyPilot can launch on (of gpuscout's).
var skypilotClouds = map[string]string{"aws": "aws", "gcp": "gcp", "azure": "azure", "lambda": "lambda", "nebius": "nebius", "vast": "vast", "seeweb": "seeweb", "fluidstack": "fluidstack"}

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

// WriteSkyPilot prints a SkyPilot task YAML that launches the plan.
func WriteSkyPilot(w io.Writer, p *Plan, scenario string) error {
	o := p.Offering
	cloud, ok := skypilotClouds[o.Provider]
	if !ok {
		return fmt.Errorf("SkyPilot cannot launch on %s; --export skypilot needs a plan on one of aws, azure, gcp, lambda, nebius, vast, seeweb, fluidstack", o.Provider)
	}
	res := map[string]any{
		"cloud":         cloud,
		"instance_type": o.InstanceType,
		"accelerators":  fmt.Sprintf("%s:%s", SkyPilotAccelerator(o.GPU), fmtCount(o.GPUCount)),
		"use_spot":      p.Model == "spot",
	}
	if o.Region != "" {
		res["region"] = o.Region
	}
	if p.Model == "spot" {
		res["job_recovery"] = map[string]any{"strategy": "EAGER_NEXT_REGION", "max_restarts_on_errors": 0}
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
	head := fmt.Sprintf("# SkyPilot task for gpuscout's plan #%d: %s %s, %s %s\n# expected %s total; launch with: sky launch task.yaml (managed jobs: sky jobs launch)\n",
		p.Rank, o.Provider, o.InstanceType, p.Model, p.Term, p.Total.Round(2).String()+" "+string(p.Currency))
	_, err = io.WriteString(w, head+string(b))
	return err
}

// AgentConfigVersion is the format version of `--export agent`. The agent
// that reads it comes in a later version; the format is documented in README.
const AgentConfigVersion = 0

// WriteAgentConfig prints the monitoring configuration for the plan's nodes:
// what the node is and costs, and the alerts the agent will evaluate.
func WriteAgentConfig(w io.Writer, p *Plan, egressBudgetGB float64) error {
	o := p.Offering
	hourly := ""
	if o.OnDemand.Known {
		hourly = o.OnDemand.Amount.String()
	}
	cfg := map[string]any{
		"version": AgentConfigVersion,
		"node": map[string]any{
			"provider": o.Provider, "instance_type": o.InstanceType, "region": o.Region,
			"gpu": o.GPU.Name, "gpu_count": o.GPUCount, "instances": p.Instances,
			"pricing_model": p.Model, "price_per_hour": hourly, "currency": string(o.OnDemand.Currency),
		},
		"alerts": []map[string]any{
			{"name": "GPUMemoryHigh", "expr": "gpuscout_gpu_memory_used_ratio > 0.9", "for": "5m", "action": "notify", "note": "scale out (the article's rule)"},
			{"name": "GPUIdle", "expr": "gpuscout_gpu_utilization_ratio < 0.05", "for": "30m", "action": "stop", "note": "autostop idle machines"},
			{"name": "EgressOverBudget", "expr": fmt.Sprintf("gpuscout_egress_projected_monthly_bytes > %.0f", egressBudgetGB*1e9*1.2), "for": "1h", "action": "notify"},
			{"name": "SpendOverPlan", "expr": fmt.Sprintf("gpuscout_cost_projected_total > %s", p.Total.Round(2).String()), "for": "1h", "action": "notify"},
		},
		"notify": map[string]any{"alertmanager": "http://127.0.0.1:9093", "webhook": ""},
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "# gpuscout agent config, format version 0 (see README: Agent config)\n"+strings.TrimSpace(string(b))+"\n")
	return err
}
