package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

func newAgentCheckCmd(e *env, f *agentFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Validate an agent config and print what the agent would watch",
		Long: `check reads the config (and the agent's flags) as 'gpuscout agent' would and
prints what it would watch: the collectors and what they count, the rules,
the notify targets and the autostop. It serves nothing and sends nothing.
A bad config is an error naming the file, the line and the field (exit 2).`,
		Example: "  gpuscout agent check --config agent.yaml",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := agentConfig(cmd, f)
			if err != nil {
				return err
			}
			plan, err := buildAgent(cmd.Context(), cfg, e.now())
			if err != nil {
				return err
			}
			defer plan.close()
			writeAgentCheck(e, f.config, cfg, plan)
			return nil
		},
	}
}

func writeAgentCheck(e *env, path string, cfg *agentconfig.Config, plan *agentPlan) {
	w := e.stdout
	if path == "" {
		path = "(none: defaults)"
	}
	fmt.Fprintf(w, "config: %s (format version %d): valid\n", path, cfg.Version)
	n := cfg.Node
	if n.Provider != "" || n.InstanceType != "" {
		fmt.Fprintf(w, "node: %s %s in %q, instances %d, pricing %s\n", n.Provider, n.InstanceType, n.Region, n.Instances, orDash(n.PricingModel))
	}
	fmt.Fprintf(w, "listen: %s, /metrics every scrape serves the last sample; sampling every %s\n", cfg.Agent.Listen, cfg.Agent.Interval)
	if cfg.Agent.DCGMNames {
		fmt.Fprintln(w, "dcgm-exporter names: also exported")
	}
	fmt.Fprintln(w, "collectors:")
	for _, l := range plan.lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintf(w, "rules: %d\n", len(cfg.Rules))
	for _, r := range cfg.Rules {
		cond := fmt.Sprintf("%s %s %g", r.Metric, r.Op, *r.Threshold)
		if r.Aggregate != agentconfig.AggLatest {
			cond = fmt.Sprintf("%s(%s over %s) %s %g", r.Aggregate, r.Metric, r.For, r.Op, *r.Threshold)
		} else if r.For > 0 {
			cond += " for " + r.For.String()
		}
		if len(r.Match) > 0 {
			var m []string
			for k, v := range r.Match {
				m = append(m, fmt.Sprintf("%s=%q", k, v))
			}
			slices.Sort(m)
			cond += " where " + strings.Join(m, ", ")
		}
		fmt.Fprintf(w, "  %s: %s -> %s (%s)\n", r.Name, cond, r.Action, r.Severity)
	}
	nt := cfg.Notify
	fmt.Fprintln(w, "notify:")
	fmt.Fprintf(w, "  alertmanager: %s\n", list(nt.Alertmanager))
	fmt.Fprintf(w, "  webhooks: %s\n", list(nt.Webhooks))
	for _, x := range nt.Exec {
		fmt.Fprintf(w, "  exec %s: %q, timeout %s, no shell\n", x.Name, x.Argv, x.Timeout)
	}
	fmt.Fprintf(w, "  queue: %s\n", nt.QueueDir)
	a := cfg.Autostop
	if !a.Enabled {
		fmt.Fprintln(w, "autostop: off")
		return
	}
	var also []string
	if a.RequireNoSSH {
		also = append(also, "no SSH session")
	}
	if a.RequireNoGPUProcesses {
		also = append(also, "no process on a GPU")
	}
	cond := fmt.Sprintf("every GPU at or under %g utilisation for %s", *a.IdleUtilization, a.IdleFor)
	if len(also) > 0 {
		cond += ", " + strings.Join(also, ", ")
	}
	dry := ""
	if a.DryRun {
		dry = " (dry run: logs, runs nothing)"
	}
	hook := "none"
	if len(a.Hook) > 0 {
		hook = fmt.Sprintf("%q (timeout %s)", a.Hook, a.HookTimeout)
	}
	fmt.Fprintf(w, "autostop: when %s; hook %s; then %q%s\n", cond, hook, a.Stop, dry)
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
