package cli

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/rules"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// newRulesCmd is `gpuscout rules`: the agent's alert rules for other tools.
func newRulesCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "The agent's alert rules for a Prometheus server",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newRulesExportCmd(e))
	return cmd
}

func newRulesExportCmd(e *env) *cobra.Command {
	var format, config, tests, ruleFile string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the agent's rules as a Prometheus rule file",
		Long: `Write the agent's alert rules (those of --config, or the built-in ones) as a
Prometheus rule file on standard output, for a Prometheus server that scrapes
the agent. The rules are the same: a rule over the latest value becomes
"metric op threshold" with its for; a max, min or avg rule becomes
"<agg>_over_time(metric[for]) op threshold and metric offset for", which,
as the agent does, waits for a whole window of samples.

--tests FILE also writes promtool unit tests of the export, whose expected
alerts are the agent's own evaluation of the same samples:

  gpuscout rules export --format prometheus > gpuscout-rules.yml
  gpuscout rules export --format prometheus --tests gpuscout-rules-test.yml > gpuscout-rules.yml
  promtool check rules gpuscout-rules.yml && promtool test rules gpuscout-rules-test.yml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "prometheus" {
				return usagef("--format %q: want prometheus", format)
			}
			rs, source, err := exportRules(config)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			header := fmt.Sprintf("gpuscout agent alert rules for Prometheus, from %s.\nWritten by `gpuscout rules export --format prometheus`; the metrics are the agent's (/metrics).", source)
			if err := rules.ExportPrometheus(&out, rs, header); err != nil {
				return err
			}
			if tests != "" {
				var tb bytes.Buffer
				if err := rules.ExportPromtoolTests(&tb, rs, ruleFile, func(m string) []string {
					l, _ := agent.MetricLabels(m)
					return l
				}); err != nil {
					return err
				}
				if err := writeOutputFile("--tests", tests, writeBytes(tb.Bytes())); err != nil {
					return err
				}
			}
			_, err = e.stdout.Write(out.Bytes())
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "prometheus", "rule file format: prometheus")
	cmd.Flags().StringVar(&config, "config", "", "agent config whose rules to export (default: the built-in rules)")
	cmd.Flags().StringVar(&tests, "tests", "", "also write promtool test cases to FILE")
	cmd.Flags().StringVar(&ruleFile, "rule-file", "gpuscout-rules.yml", "the rule file the --tests cases load (where you save the export), relative to the tests file")
	return cmd
}

// exportRules returns the rules of the config at path, or the built-in
// rules, and says which.
func exportRules(path string) ([]rules.Rule, string, error) {
	c := agentconfig.Default()
	source := "the built-in rules (no budgets: the egress and spend rules need a config)"
	if path != "" {
		var err error
		c, err = agentconfig.ReadFile(path, agentconfig.Options{Metric: agent.MetricLabels, Annotation: rules.CheckAnnotation})
		if err != nil {
			return nil, "", asUsage(fmt.Errorf("--config: %w", err))
		}
		source = "the agent config " + path
	}
	rs, err := rules.FromConfig(c.Rules)
	if err != nil {
		return nil, "", asUsage(fmt.Errorf("--config %s: %w", path, err))
	}
	return rs, source, nil
}
