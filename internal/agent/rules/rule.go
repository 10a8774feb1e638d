// Package rules evaluates the agent's alert rules over its samples,
// deterministically: the caller passes the time of every evaluation, so tests
// drive it with a fake clock.
//
// A rule compares one metric's series (those its matchers select) with a
// threshold. With over: latest (the default) a series' alert is pending from
// the first evaluation where `value op threshold` holds and firing once it
// has held for `for`, as in Prometheus. With over: max, min or avg the value
// is that aggregate of the series' samples in the last `for` (a bounded ring
// buffer per series keeps them); the alert is pending while the aggregate
// holds but the series' history is shorter than `for`, and firing once the
// whole window is covered (so "max utilisation < 5% over 30 min" needs 30
// minutes of samples, also after an agent restart). A firing alert resolves
// at the first evaluation where the condition fails or its series is gone.
//
// The agent's run loop calls, on its sampling ticker,
//
//	alerts := engine.Eval(now, series) // []notify.Alert
//	dispatcher.Send(ctx, alerts)       // notify.Dispatcher
//
// Eval returns every firing alert (EndsAt zero) and, once, every alert that
// resolved at this evaluation (EndsAt = now). For the agent:
//
//	e, err := rules.ForAgent(cfg)  // the config's rules at its interval
//	err = e.Persist(filepath.Join(cfg.Agent.StateDir, "rules-state.json"))
//	loop.Handlers = append(loop.Handlers, &rules.Handler{Engine: e, Notify: dispatcher})
//
// Persist keeps the firing alerts across restarts, so a restart neither
// notifies an alert twice nor forgets to resolve it. ExportPrometheus
// writes the same rules as a Prometheus rule file, ExportPromtoolTests
// `promtool test rules` cases for it.
package rules

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Rule is one alert rule.
type Rule struct {
	// Name is the alert name (the alertname label): letters, digits, _.
	Name string
	// Metric is the series' metric name, one of the agent's metrics.
	Metric string
	// Match selects series by label.
	Match []Matcher
	// Over is how the samples in the For window become one value.
	Over Aggregate
	// Op compares the value with Threshold.
	Op Op
	// Threshold is what the value is compared with.
	Threshold float64
	// For is how long the condition must hold (latest) or the window the
	// aggregate covers (max, min, avg).
	For time.Duration
	// Labels are added to the alert's labels (severity, say).
	Labels map[string]string
	// Annotations are text templates: {{ $labels.gpu }}, {{ $value }}.
	Annotations map[string]string
	// Action is carried to the alerts (notify.Alert.Action): notify, stop
	// or exec:NAME; empty is notify.
	Action string
}

// Aggregate says how a window of samples becomes one value.
type Aggregate string

// Aggregates.
const (
	Latest Aggregate = "latest"
	Max    Aggregate = "max"
	Min    Aggregate = "min"
	Avg    Aggregate = "avg"
)

// Aggregates lists the allowed values of Rule.Over.
var Aggregates = []Aggregate{Latest, Max, Min, Avg}

// Op is a comparison.
type Op string

// Comparisons.
const (
	GT Op = ">"
	GE Op = ">="
	LT Op = "<"
	LE Op = "<="
	EQ Op = "=="
	NE Op = "!="
)

// Ops lists the allowed comparisons.
var Ops = []Op{GT, GE, LT, LE, EQ, NE}

func (o Op) holds(v, t float64) bool {
	switch o {
	case GT:
		return v > t
	case GE:
		return v >= t
	case LT:
		return v < t
	case LE:
		return v <= t
	case EQ:
		return v == t
	case NE:
		return v != t
	}
	return false
}

// Matcher selects series by one label: = and != compare the value, =~ and
// !~ match a regular expression against the whole value.
type Matcher struct {
	Label string
	Type  string // =, !=, =~, !~
	Value string
	re    *regexp.Regexp
}

// MatchTypes lists the allowed Matcher types.
var MatchTypes = []string{"=", "!=", "=~", "!~"}

// NewMatcher checks and compiles a matcher.
func NewMatcher(label, typ, value string) (Matcher, error) {
	m := Matcher{Label: label, Type: typ, Value: value}
	if !labelName().MatchString(label) {
		return m, fmt.Errorf("label %q: want letters, digits and _, not starting with a digit", label)
	}
	switch typ {
	case "=", "!=":
	case "=~", "!~":
		re, err := regexp.Compile("^(?:" + value + ")$")
		if err != nil {
			return m, fmt.Errorf("regular expression %q: %v", value, err)
		}
		m.re = re
	default:
		return m, fmt.Errorf("match type %q: want one of %s", typ, strings.Join(MatchTypes, " "))
	}
	return m, nil
}

// ParseMatcher reads `label=value`, `label!=value`, `label=~re` or `label!~re`.
func ParseMatcher(s string) (Matcher, error) {
	i := strings.IndexAny(s, "=!")
	if i <= 0 {
		return Matcher{}, fmt.Errorf("matcher %q: want label=value, label!=value, label=~regex or label!~regex", s)
	}
	label, rest := s[:i], s[i:]
	for _, t := range []string{"=~", "!~", "!=", "="} {
		if v, ok := strings.CutPrefix(rest, t); ok {
			return NewMatcher(label, t, v)
		}
	}
	return Matcher{}, fmt.Errorf("matcher %q: want label=value, label!=value, label=~regex or label!~regex", s)
}

func (m Matcher) matches(labels map[string]string) bool {
	v := labels[m.Label]
	switch m.Type {
	case "=":
		return v == m.Value
	case "!=":
		return v != m.Value
	case "=~":
		return m.re != nil && m.re.MatchString(v)
	case "!~":
		return m.re != nil && !m.re.MatchString(v)
	}
	return false
}

var (
	labelName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`) })
	metricName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`) })
)

// MaxFor bounds a rule's For (a week, as the config allows); an aggregate's
// history is bounded apart, by MaxHistory.
const MaxFor = 7 * 24 * time.Hour

// Check validates r; known reports whether a metric name exists (nil
// accepts any well-formed name). Errors name the field, the value and what
// is allowed.
func (r *Rule) Check(known func(string) bool) error {
	if !labelName().MatchString(r.Name) {
		return fmt.Errorf("name %q: want letters, digits and _, not starting with a digit", r.Name)
	}
	if !metricName().MatchString(r.Metric) || (known != nil && !known(r.Metric)) {
		return fmt.Errorf("metric %q: not one of the agent's metrics (gpuscout agent check lists them)", r.Metric)
	}
	if r.Over == "" {
		r.Over = Latest
	}
	if !contains(Aggregates, r.Over) {
		return fmt.Errorf("over %q: want one of %s", r.Over, joinAny(Aggregates))
	}
	if !contains(Ops, r.Op) {
		return fmt.Errorf("op %q: want one of %s", r.Op, joinAny(Ops))
	}
	if r.Threshold != r.Threshold || r.Threshold > 1e18 || r.Threshold < -1e18 {
		return fmt.Errorf("threshold %v: want a number between -1e18 and 1e18", r.Threshold)
	}
	if r.For < 0 || r.For > MaxFor {
		return fmt.Errorf("for %s: want 0s to %s", r.For, MaxFor)
	}
	if r.Over != Latest && r.For == 0 {
		return fmt.Errorf("for 0s with over %s: an aggregate needs a window; set for (30m, say) or use over latest", r.Over)
	}
	for i, m := range r.Match {
		c, err := NewMatcher(m.Label, m.Type, m.Value)
		if err != nil {
			return fmt.Errorf("match[%d]: %v", i, err)
		}
		r.Match[i] = c
	}
	for _, n := range sortedKeys(r.Labels) {
		if !labelName().MatchString(n) || n == "alertname" {
			return fmt.Errorf("labels.%s: want letters, digits and _ (and not alertname)", n)
		}
	}
	for _, n := range sortedKeys(r.Annotations) {
		if !labelName().MatchString(n) {
			return fmt.Errorf("annotations.%s: want letters, digits and _", n)
		}
		if _, err := parseTemplate(n, r.Annotations[n]); err != nil {
			return fmt.Errorf("annotations.%s: %v", n, err)
		}
	}
	return nil
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func joinAny[T ~string](list []T) string {
	s := make([]string, len(list))
	for i, x := range list {
		s[i] = string(x)
	}
	return strings.Join(s, " ")
}

func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}
