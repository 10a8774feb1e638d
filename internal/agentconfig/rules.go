package agentconfig

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Rule is one alert rule the agent evaluates against its own samples, one
// alert per matching series (per GPU for GPU metrics).
//
// With Aggregate latest, the rule fires once Metric Op Threshold has held
// for every sample over For (Prometheus's `for`; For 0 fires on the first
// sample). With max, min or avg, the aggregate of the samples over the last
// For is compared, once the agent has sampled for For: "GPU idle" is max
// utilisation < 0.05 over 30m. A rule resolves when the condition no longer
// holds.
type Rule struct {
	Name   string `yaml:"name"`   // alert name, [A-Za-z_][A-Za-z0-9_]*, unique
	Metric string `yaml:"metric"` // a gpuscout_* metric the agent exports
	Op     string `yaml:"op"`     // >, >=, < or <=
	// Threshold is compared with the metric in its base unit (ratios 0–1,
	// bytes, watts, the node's currency); required.
	Threshold *float64 `yaml:"threshold"`
	For       Duration `yaml:"for,omitempty"`       // 0 to 7 days
	Aggregate string   `yaml:"aggregate,omitempty"` // latest (default), max, min or avg over For
	// Match selects series by label equality (gpu: "0"); empty matches all.
	Match map[string]string `yaml:"match,omitempty"`
	// Labels are added to the alert (team: ml).
	Labels map[string]string `yaml:"labels,omitempty"`
	// Annotations are the alert's summary, description, runbook_url, ...
	Annotations map[string]string `yaml:"annotations,omitempty"`
	Severity    string            `yaml:"severity,omitempty"` // info, warning (default) or critical
	// Action is what firing does: notify (default; every notify target),
	// stop (the autostop's hook and stop command, even with autostop
	// disabled; its dry_run applies) or exec:NAME (the notify.exec action
	// NAME).
	Action string `yaml:"action,omitempty"`
}

// Rule comparisons, aggregates, severities and actions.
const (
	OpGT = ">"
	OpGE = ">="
	OpLT = "<"
	OpLE = "<="

	AggLatest = "latest"
	AggMax    = "max"
	AggMin    = "min"
	AggAvg    = "avg"

	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"

	ActionNotify = "notify"
	ActionStop   = "stop"
	ActionExec   = "exec:" // followed by a notify.exec name
)

// Bounds of a rule.
const (
	MaxRules     = 200
	MaxRuleFor   = 7 * 24 * time.Hour
	MaxThreshold = 1e18
	MaxLabels    = 32
	MaxLabelLen  = 1024
)

var (
	nameRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	labelRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

func (r *Rule) applyDefaults() {
	if r.Aggregate == "" {
		r.Aggregate = AggLatest
	}
	if r.Severity == "" {
		r.Severity = SeverityWarning
	}
	if r.Action == "" {
		r.Action = ActionNotify
	}
}

// Holds reports whether v op threshold.
func (r *Rule) Holds(v float64) bool {
	t := *r.Threshold
	switch r.Op {
	case OpGT:
		return v > t
	case OpGE:
		return v >= t
	case OpLT:
		return v < t
	case OpLE:
		return v <= t
	}
	return false
}

// ExecName returns the notify.exec action a rule runs, if its action is exec:NAME.
func (r *Rule) ExecName() (string, bool) { return strings.CutPrefix(r.Action, ActionExec) }

func validateRules(rules []Rule, n *Notify, o Options) error {
	if len(rules) > MaxRules {
		return fieldErr("rules", "%d rules; at most %d", len(rules), MaxRules)
	}
	seen := map[string]bool{}
	for i := range rules {
		r := &rules[i]
		f := func(name string) string { return fmt.Sprintf("rules[%d].%s", i, name) }
		if !nameRE().MatchString(r.Name) {
			return fieldErr(f("name"), "value %q: want a name of letters, digits and _ (not starting with a digit), such as GPUIdle", r.Name)
		}
		if seen[r.Name] {
			return fieldErr(f("name"), "value %q is the name of an earlier rule; rule names are unique", r.Name)
		}
		seen[r.Name] = true
		if r.Metric == "" {
			return fieldErr(f("metric"), "missing; want a gpuscout_* metric name (`gpuscout agent check` lists them)")
		}
		var labels []string
		if o.Metric != nil {
			ls, ok := o.Metric(r.Metric)
			if !ok {
				return fieldErr(f("metric"), "unknown metric %q; the agent exports the gpuscout_* metrics listed in the README (agent)", r.Metric)
			}
			labels = ls
		}
		switch r.Op {
		case OpGT, OpGE, OpLT, OpLE:
		case "":
			return fieldErr(f("op"), "missing; want one of > >= < <=")
		default:
			return fieldErr(f("op"), "value %q: want one of > >= < <=", r.Op)
		}
		if r.Threshold == nil {
			return fieldErr(f("threshold"), "missing; want a number in the metric's base unit (ratios 0 to 1, bytes, watts, currency)")
		}
		if t := *r.Threshold; math.IsNaN(t) || math.Abs(t) > MaxThreshold {
			return fieldErr(f("threshold"), "value %v is outside the allowed range -%g to %g", t, MaxThreshold, MaxThreshold)
		}
		if err := checkDuration(f("for"), r.For, 0, MaxRuleFor); err != nil {
			return err
		}
		switch r.Aggregate {
		case AggLatest, AggMax, AggMin, AggAvg:
			if r.Aggregate != AggLatest && r.For == 0 {
				return fieldErr(f("for"), "missing; aggregate %s needs a window, such as for: 30m", r.Aggregate)
			}
		default:
			return fieldErr(f("aggregate"), "value %q: want latest, max, min or avg", r.Aggregate)
		}
		for _, m := range []struct {
			name string
			kv   map[string]string
		}{{"match", r.Match}, {"labels", r.Labels}, {"annotations", r.Annotations}} {
			if len(m.kv) > MaxLabels {
				return fieldErr(f(m.name), "%d entries; at most %d", len(m.kv), MaxLabels)
			}
			for k, v := range m.kv {
				if !labelRE().MatchString(k) {
					return fieldErr(f(m.name+"."+k), "name %q: want letters, digits and _ (not starting with a digit)", k)
				}
				if len(v) > MaxLabelLen {
					return fieldErr(f(m.name+"."+k), "value is %d bytes long; at most %d", len(v), MaxLabelLen)
				}
				if m.name == "match" && o.Metric != nil && !slices.Contains(labels, k) {
					return fieldErr(f(m.name+"."+k), "label %q is not a label of %s; its labels: %s", k, r.Metric, strings.Join(labels, ", "))
				}
				if m.name == "annotations" && o.Annotation != nil {
					if err := o.Annotation(v); err != nil {
						return fieldErr(f(m.name+"."+k), "%v", err)
					}
				}
			}
		}
		switch r.Severity {
		case SeverityInfo, SeverityWarning, SeverityCritical:
		default:
			return fieldErr(f("severity"), "value %q: want info, warning or critical", r.Severity)
		}
		if name, ok := r.ExecName(); ok {
			if !slices.ContainsFunc(n.Exec, func(e ExecAction) bool { return e.Name == name }) {
				return fieldErr(f("action"), "value %q names no notify.exec action; define one with name: %s under notify.exec", r.Action, name)
			}
		} else if r.Action != ActionNotify && r.Action != ActionStop {
			return fieldErr(f("action"), "value %q: want notify, stop or exec:NAME (a notify.exec action)", r.Action)
		}
	}
	return nil
}

// Budgets are the limits the budget rules compare with; a zero field
// leaves its rule out.
type Budgets struct {
	// EgressBytesPerSecond is the egress rate above which EgressRateHigh fires.
	EgressBytesPerSecond float64
	// EgressMonthlyCost is the projected monthly egress cost, in the node's
	// currency, above which EgressCostOverBudget fires.
	EgressMonthlyCost float64
	// BurnRatePerHour is the spend per hour, all instances, in the node's
	// currency, above which SpendBurnRateOverBudget fires.
	BurnRatePerHour float64
}

// DefaultRules returns the built-in rules (the article's cases): GPU memory
// over 90% for 5 minutes, GPU idle (max utilisation under 5% over 30
// minutes), a collector down for 2 minutes, and, where b gives a budget,
// egress rate, projected monthly egress cost and spend burn rate over it.
func DefaultRules(b Budgets) []Rule {
	th := func(v float64) *float64 { return &v }
	rules := []Rule{
		{Name: "GPUMemoryHigh", Metric: "gpuscout_gpu_memory_used_ratio", Op: OpGT, Threshold: th(0.9), For: Duration(5 * time.Minute),
			Aggregate: AggLatest, Severity: SeverityWarning, Action: ActionNotify,
			Annotations: map[string]string{"summary": "GPU memory above 90% for 5 minutes: scale out or use a larger GPU"}},
		{Name: "GPUIdle", Metric: "gpuscout_gpu_utilization_ratio", Op: OpLT, Threshold: th(0.05), For: Duration(30 * time.Minute),
			Aggregate: AggMax, Severity: SeverityWarning, Action: ActionNotify,
			Annotations: map[string]string{"summary": "GPU utilisation stayed under 5% for 30 minutes: an idle GPU still bills"}},
		{Name: "CollectorDown", Metric: "gpuscout_collector_up", Op: OpLT, Threshold: th(1), For: Duration(2 * time.Minute),
			Aggregate: AggLatest, Severity: SeverityWarning, Action: ActionNotify,
			Annotations: map[string]string{"summary": "a gpuscout collector has failed for 2 minutes: its metrics are missing"}},
	}
	if b.EgressBytesPerSecond > 0 {
		rules = append(rules, Rule{Name: "EgressRateHigh", Metric: "gpuscout_egress_rate_bytes_per_second", Op: OpGT, Threshold: th(b.EgressBytesPerSecond),
			For: Duration(15 * time.Minute), Aggregate: AggAvg, Severity: SeverityWarning, Action: ActionNotify,
			Annotations: map[string]string{"summary": "bytes sent (an upper bound of billed egress) above the budgeted rate over 15 minutes"}})
	}
	if b.EgressMonthlyCost > 0 {
		rules = append(rules, Rule{Name: "EgressCostOverBudget", Metric: "gpuscout_egress_projected_monthly_cost", Op: OpGT, Threshold: th(b.EgressMonthlyCost),
			For: Duration(time.Hour), Aggregate: AggAvg, Severity: SeverityWarning, Action: ActionNotify,
			Annotations: map[string]string{"summary": "projected monthly egress cost (an upper bound) above the budget"}})
	}
	if b.BurnRatePerHour > 0 {
		rules = append(rules, Rule{Name: "SpendBurnRateOverBudget", Metric: "gpuscout_cost_burn_rate_per_hour", Op: OpGT, Threshold: th(b.BurnRatePerHour),
			For: Duration(10 * time.Minute), Aggregate: AggLatest, Severity: SeverityWarning, Action: ActionNotify,
			Annotations: map[string]string{"summary": "spend per hour above the budget"}})
	}
	return rules
}
