package rules

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"text/template"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent/notify"
)

// Series is one sampled value of a metric for one label set.
type Series struct {
	Metric string
	Labels map[string]string
	Value  float64
}

// Engine evaluates rules. It is not safe for concurrent use: one run loop
// calls Eval.
type Engine struct {
	rules    []compiled
	interval time.Duration
	// GeneratorURL is set on every alert (the agent's page); optional.
	GeneratorURL string

	history map[string]*history // by series key, for metrics with an aggregate rule
	alerts  map[string]*active  // by rule index and label set

	statePath string         // Persist's file; "" keeps nothing
	lastSaved string         // the firing set last written
	stateErr  error          // the last state file failure
	orphans   []notify.Alert // restored alerts whose rule is gone: resolved at the next Eval
}

type compiled struct {
	Rule
	annotations map[string]*template.Template
}

type active struct {
	rule     int
	labels   map[string]string
	since    time.Time // first evaluation with the condition holding
	firingAt time.Time // zero while pending
	value    float64
	seen     bool
}

// New checks the rules (known says which metric names exist; nil accepts
// any) and returns an engine for samples taken every interval.
func New(rules []Rule, interval time.Duration, known func(string) bool) (*Engine, error) {
	if interval <= 0 {
		return nil, fmt.Errorf("interval %s: want more than 0s", interval)
	}
	e := &Engine{interval: interval, history: map[string]*history{}, alerts: map[string]*active{}}
	for i := range rules {
		r := rules[i]
		r.Match = append([]Matcher(nil), r.Match...)
		if err := r.Check(known); err != nil {
			return nil, fmt.Errorf("rule %q: %v", r.Name, err)
		}
		c := compiled{Rule: r, annotations: map[string]*template.Template{}}
		for n, text := range r.Annotations {
			t, _ := parseTemplate(n, text) // checked above
			c.annotations[n] = t
		}
		e.rules = append(e.rules, c)
	}
	return e, nil
}

// Rules returns the engine's rules as checked (Over filled in).
func (e *Engine) Rules() []Rule {
	out := make([]Rule, len(e.rules))
	for i, c := range e.rules {
		out[i] = c.Rule
	}
	return out
}

// Eval evaluates every rule at now over the series sampled at now. It
// returns the firing alerts (EndsAt zero) and those that resolved at this
// evaluation (EndsAt now), sorted by name and fingerprint.
func (e *Engine) Eval(now time.Time, series []Series) []notify.Alert {
	e.record(now, series)
	for _, a := range e.alerts {
		a.seen = false
	}
	for ri := range e.rules {
		r := &e.rules[ri]
		for _, s := range series {
			if s.Metric != r.Metric || !selects(r.Match, s.Labels) {
				continue
			}
			v, covered, ok := e.value(r, now, s)
			if !ok || !r.Op.holds(v, r.Threshold) {
				continue
			}
			labels := alertLabels(r, s.Labels)
			k := fmt.Sprintf("%d\x00%s", ri, labelKey(labels))
			a := e.alerts[k]
			if a == nil {
				a = &active{rule: ri, labels: labels, since: now}
				e.alerts[k] = a
			}
			a.seen, a.value = true, v
			if a.firingAt.IsZero() {
				ready := covered
				if r.Over == Latest {
					ready = !now.Before(a.since.Add(r.For))
				}
				if ready {
					a.firingAt = now
				}
			}
		}
	}
	var out []notify.Alert
	for k, a := range e.alerts {
		switch {
		case a.seen && !a.firingAt.IsZero():
			out = append(out, e.alert(a, time.Time{}))
		case !a.seen:
			if !a.firingAt.IsZero() {
				out = append(out, e.alert(a, now))
			}
			delete(e.alerts, k)
		}
	}
	for _, o := range e.orphans {
		o.EndsAt = now
		out = append(out, o)
	}
	e.orphans = nil
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name() != out[j].Name() {
			return out[i].Name() < out[j].Name()
		}
		return labelKey(out[i].Labels) < labelKey(out[j].Labels)
	})
	e.saveState(out)
	return out
}

// Pending returns the number of alerts waiting for their `for`.
func (e *Engine) Pending() int {
	n := 0
	for _, a := range e.alerts {
		if a.firingAt.IsZero() {
			n++
		}
	}
	return n
}

func (e *Engine) alert(a *active, endsAt time.Time) notify.Alert {
	r := &e.rules[a.rule]
	ann := make(map[string]string, len(r.annotations))
	for n, t := range r.annotations {
		ann[n] = expand(t, a.labels, a.value)
	}
	labels := make(map[string]string, len(a.labels))
	for n, v := range a.labels {
		labels[n] = v
	}
	return notify.Alert{Labels: labels, Annotations: ann, StartsAt: a.firingAt, EndsAt: endsAt, GeneratorURL: e.GeneratorURL, Action: r.Action}
}

// value is the rule's value for series s at now; covered reports whether
// the series' history spans the whole For window.
func (e *Engine) value(r *compiled, now time.Time, s Series) (v float64, covered, ok bool) {
	if r.Over == Latest {
		return s.Value, true, !math.IsNaN(s.Value)
	}
	h := e.history[seriesKey(s.Metric, s.Labels)]
	if h == nil {
		return 0, false, false
	}
	v, ok = h.aggregate(r.Over, now.Add(-r.For), now)
	return v, !h.since.After(now.Add(-r.For)), ok
}

// record appends the samples of metrics that an aggregate rule reads and
// drops the history of series unseen for the longest window.
func (e *Engine) record(now time.Time, series []Series) {
	var longest time.Duration
	need := map[string]time.Duration{}
	for _, r := range e.rules {
		if r.Over != Latest && r.For > need[r.Metric] {
			need[r.Metric] = r.For
		}
		longest = max(longest, r.For)
	}
	for _, s := range series {
		w, ok := need[s.Metric]
		if !ok {
			continue
		}
		k := seriesKey(s.Metric, s.Labels)
		h := e.history[k]
		if h == nil {
			h = newHistory(w, e.interval)
			e.history[k] = h
		}
		h.add(now, s.Value)
	}
	for k, h := range e.history {
		if h.last.Before(now.Add(-longest - e.interval)) {
			delete(e.history, k)
		}
	}
}

func selects(ms []Matcher, labels map[string]string) bool {
	for _, m := range ms {
		if !m.matches(labels) {
			return false
		}
	}
	return true
}

func alertLabels(r *compiled, series map[string]string) map[string]string {
	l := make(map[string]string, len(series)+len(r.Labels)+1)
	for n, v := range series {
		l[n] = v
	}
	for n, v := range r.Labels {
		l[n] = v
	}
	l["alertname"] = r.Name
	return l
}

func labelKey(labels map[string]string) string {
	var b strings.Builder
	for _, n := range sortedKeys(labels) {
		b.WriteString(n)
		b.WriteByte(0xff)
		b.WriteString(labels[n])
		b.WriteByte(0xff)
	}
	return b.String()
}

func seriesKey(metric string, labels map[string]string) string {
	return metric + "\x00" + labelKey(labels)
}
