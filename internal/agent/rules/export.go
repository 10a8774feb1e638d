package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/agent/notify"
)

// The Prometheus rule file format (prometheus model/rulefmt), mirrored
// rather than imported: rulefmt pulls in the PromQL engine.
type promFile struct {
	Groups []promGroup `yaml:"groups"`
}

type promGroup struct {
	Name  string     `yaml:"name"`
	Rules []promRule `yaml:"rules"`
}

type promRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// ExportGroup is the rule group name of an export.
const ExportGroup = "gpuscout-agent"

// PromQL is r's expression for a Prometheus server, and its `for`:
//
//   - over latest: `metric{match} op threshold`, for: For;
//   - over max/min/avg: `<agg>_over_time(metric{match}[For]) op threshold and
//     metric{match} offset For`, for: 0s. The `and ... offset` part asks for a
//     sample from For ago, as the agent asks for a history covering the
//     whole window: a new series does not fire on its first samples.
func (r *Rule) PromQL() (expr string, forDur time.Duration) {
	sel := r.Metric + r.selector()
	th := strconv.FormatFloat(r.Threshold, 'g', -1, 64)
	if r.Over == Latest || r.Over == "" {
		return fmt.Sprintf("%s %s %s", sel, r.Op, th), r.For
	}
	w := promDuration(r.For)
	return fmt.Sprintf("%s_over_time(%s[%s]) %s %s and %s offset %s", r.Over, sel, w, r.Op, th, sel, w), 0
}

func (r *Rule) selector() string {
	if len(r.Match) == 0 {
		return ""
	}
	ms := make([]string, len(r.Match))
	for i, m := range r.Match {
		ms[i] = m.Label + m.Type + strconv.Quote(m.Value)
	}
	sort.Strings(ms)
	return "{" + strings.Join(ms, ",") + "}"
}

// promDuration writes d as PromQL does (1h30m, 5m, 90s; ms below a second).
func promDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	for _, u := range []struct {
		unit string
		d    time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}, {"ms", time.Millisecond}} {
		if n := d / u.d; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.unit)
			d -= n * u.d
		}
	}
	return b.String()
}

// ExportPrometheus writes rules as a Prometheus rule file (one group) that
// `promtool check rules` accepts; header is written as comment lines first.
func ExportPrometheus(w io.Writer, rules []Rule, header string) error {
	g := promGroup{Name: ExportGroup, Rules: []promRule{}}
	for _, r := range rules {
		if err := r.Check(nil); err != nil {
			return fmt.Errorf("rule %q: %v", r.Name, err)
		}
		expr, f := r.PromQL()
		pr := promRule{Alert: r.Name, Expr: expr, Labels: r.Labels, Annotations: r.Annotations}
		if f > 0 {
			pr.For = promDuration(f)
		}
		g.Rules = append(g.Rules, pr)
	}
	return writeYAML(w, header, promFile{Groups: []promGroup{g}})
}

func writeYAML(w io.Writer, header string, v any) error {
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimSpace(header), "\n") {
		if l != "" {
			fmt.Fprintf(&b, "# %s\n", l)
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	enc.Close()
	_, err := w.Write(b.Bytes())
	return err
}

// The promtool unit test format (`promtool test rules`).
type promTests struct {
	RuleFiles          []string   `yaml:"rule_files"`
	EvaluationInterval string     `yaml:"evaluation_interval"`
	Tests              []promTest `yaml:"tests"`
}

type promTest struct {
	Name        string           `yaml:"name"`
	Interval    string           `yaml:"interval"`
	InputSeries []promSeries     `yaml:"input_series"`
	AlertTests  []promAlertCheck `yaml:"alert_rule_test"`
}

type promSeries struct {
	Series string `yaml:"series"`
	Values string `yaml:"values"`
}

type promAlertCheck struct {
	EvalTime  string          `yaml:"eval_time"`
	Alertname string          `yaml:"alertname"`
	ExpAlerts []promExpAlerts `yaml:"exp_alerts"`
}

type promExpAlerts struct {
	ExpLabels      map[string]string `yaml:"exp_labels"`
	ExpAnnotations map[string]string `yaml:"exp_annotations,omitempty"`
}

// errNoTest: no series can be made up for a rule with a =~ matcher (the
// config has only = matchers); it gets no test.
var errNoTest = errors.New("no test for a rule with a =~ matcher")

// testStep is the sampling and evaluation interval of exported tests.
const testStep = time.Minute

// ExportPromtoolTests writes `promtool test rules` cases for rules (in the
// rule file ruleFile, as ExportPrometheus writes it). labels gives the label
// names of a metric's series (nil: only the rule's matchers).
//
// Every rule gets one test: a series that breaks the rule and one that
// does not, sampled every minute, checked just before and when the rule
// should fire and one step later. The expected alerts, labels and expanded
// annotations are what this package's Engine produces for the same
// samples, so the test proves that Prometheus and the agent agree.
func ExportPromtoolTests(w io.Writer, rules []Rule, ruleFile string, labels func(metric string) []string) error {
	f := promTests{RuleFiles: []string{ruleFile}, EvaluationInterval: promDuration(testStep)}
	for _, r := range rules {
		if err := r.Check(nil); err != nil {
			return fmt.Errorf("rule %q: %v", r.Name, err)
		}
		t, err := ruleTest(r, labels)
		if err == errNoTest {
			continue
		}
		if err != nil {
			return fmt.Errorf("rule %q: %v", r.Name, err)
		}
		f.Tests = append(f.Tests, t)
	}
	return writeYAML(w, "promtool test rules cases for the gpuscout agent's rules, written by `gpuscout rules export --tests`.\nThe expected alerts are the agent's own evaluation of the same samples.", f)
}

func ruleTest(r Rule, labels func(string) []string) (promTest, error) {
	bad, good := breaking(r.Op, r.Threshold)
	mk := func(v float64, which string) Series {
		l := map[string]string{}
		if labels != nil {
			for _, n := range labels(r.Metric) {
				l[n] = which
			}
		}
		for _, m := range r.Match {
			switch m.Type {
			case "=":
				l[m.Label] = m.Value
			case "!=", "!~":
				l[m.Label] = m.Value + "_not"
			case "=~":
				return Series{}
			}
		}
		if _, ok := l["gpu"]; ok {
			l["gpu"] = map[string]string{"breaks": "0", "holds": "1"}[which]
		}
		return Series{Metric: r.Metric, Labels: l, Value: v}
	}
	series := []Series{mk(bad, "breaks"), mk(good, "holds")}
	if series[0].Metric == "" {
		return promTest{}, errNoTest
	}
	if labelKey(series[0].Labels) == labelKey(series[1].Labels) {
		series = series[:1] // a series without labels: only the breaking one
	}
	e, err := New([]Rule{r}, testStep, nil)
	if err != nil {
		return promTest{}, err
	}
	// The breaking series breaks the rule for `for` and two more steps, then
	// holds it for three: checked one step before `for`, at it, one step
	// after and at the first step back on the good side.
	fireAt := r.For
	steps := int(fireAt/testStep) + 2
	checks := map[time.Duration]bool{fireAt: true, fireAt + testStep: true, fireAt + 3*testStep: true}
	if fireAt >= testStep {
		checks[fireAt-testStep] = true
	}
	t := promTest{Name: r.Name, Interval: promDuration(testStep)}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for i, s := range series {
		v := num(s.Value) + "+0x" + strconv.Itoa(steps)
		if i == 0 {
			v += " " + num(good) + "+0x2"
		}
		t.InputSeries = append(t.InputSeries, promSeries{Series: s.Metric + promLabels(s.Labels), Values: v})
	}
	for i := 0; i <= steps+3; i++ {
		at := time.Duration(i) * testStep
		if i == steps+1 {
			series[0].Value = good
		}
		if i == steps+3 {
			series = series[:0] // the samples end; promtool's series end too
		}
		alerts := e.Eval(time.Unix(0, 0).Add(at), series)
		if !checks[at] {
			continue
		}
		c := promAlertCheck{EvalTime: promDuration(at), Alertname: r.Name, ExpAlerts: []promExpAlerts{}}
		for _, a := range alerts {
			if a.Status() != notify.StatusFiring {
				continue
			}
			l := map[string]string{}
			for n, v := range a.Labels {
				if n != "alertname" {
					l[n] = v
				}
			}
			c.ExpAlerts = append(c.ExpAlerts, promExpAlerts{ExpLabels: l, ExpAnnotations: a.Annotations})
		}
		t.AlertTests = append(t.AlertTests, c)
	}
	return t, nil
}

// breaking returns a value for which `v op t` holds and one for which it
// does not.
func breaking(op Op, t float64) (bad, good float64) {
	step := max(0.01, abs(t)/10)
	// Round to 3 significant digits: the test files read 0.06, not
	// 0.060000000000000005.
	step, _ = strconv.ParseFloat(strconv.FormatFloat(step, 'g', 3, 64), 64)
	defer func() {
		bad, _ = strconv.ParseFloat(strconv.FormatFloat(bad, 'g', 6, 64), 64)
		good, _ = strconv.ParseFloat(strconv.FormatFloat(good, 'g', 6, 64), 64)
	}()
	switch op {
	case GT:
		return t + step, t - step
	case GE:
		return t, t - step
	case LT:
		return t - step, t + step
	case LE:
		return t, t + step
	case EQ:
		return t, t + step
	}
	return t + step, t // NE
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func promLabels(l map[string]string) string {
	if len(l) == 0 {
		return ""
	}
	var parts []string
	for _, n := range sortedKeys(l) {
		parts = append(parts, n+"="+strconv.Quote(l[n]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
