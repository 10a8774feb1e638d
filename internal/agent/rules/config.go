package rules

import (
	"fmt"
	"sort"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// FromConfig converts the config's rules (read and validated by
// agentconfig, which reports bad fields at file:line) into the engine's:
// aggregate becomes Over, match becomes = matchers, severity becomes the
// severity label. An annotation that is not a valid template is an error
// naming rules[i].annotations.NAME.
func FromConfig(cfg []agentconfig.Rule) ([]Rule, error) {
	out := make([]Rule, 0, len(cfg))
	for i, c := range cfg {
		if c.Threshold == nil {
			return nil, fmt.Errorf("rules[%d].threshold: missing", i)
		}
		r := Rule{
			Name: c.Name, Metric: c.Metric, Op: Op(c.Op), Threshold: *c.Threshold, For: c.For.D(),
			Over: Aggregate(c.Aggregate), Action: c.Action, Annotations: c.Annotations,
		}
		names := make([]string, 0, len(c.Match))
		for n := range c.Match {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			r.Match = append(r.Match, Matcher{Label: n, Type: "=", Value: c.Match[n]})
		}
		if len(c.Labels) > 0 || c.Severity != "" {
			r.Labels = map[string]string{}
			for n, v := range c.Labels {
				r.Labels[n] = v
			}
			if c.Severity != "" {
				r.Labels["severity"] = c.Severity
			}
		}
		for _, n := range sortedKeys(c.Annotations) {
			if err := CheckAnnotation(c.Annotations[n]); err != nil {
				return nil, fmt.Errorf("rules[%d].annotations.%s: %v", i, n, err)
			}
		}
		if err := r.Check(nil); err != nil {
			return nil, fmt.Errorf("rules[%d] (%s): %v", i, c.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// CheckAnnotation says whether text is an annotation template the engine
// accepts ({{ $labels.NAME }}, {{ $value }}, humanizePercentage, printf).
func CheckAnnotation(text string) error {
	_, err := parseTemplate("annotation", text)
	return err
}
