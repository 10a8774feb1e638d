package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent/notify"
)

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// step is one evaluation: the series' values at t0 + at.
type step struct {
	at     time.Duration
	values map[string]float64 // gpu label -> value; absent = no series
	firing []string           // gpu labels firing after the step
	ended  []string           // gpu labels resolved at this step
}

// run drives an engine over steps sampled every interval (values hold until
// the next step) and checks every listed step.
func run(t *testing.T, r Rule, interval time.Duration, steps []step) {
	t.Helper()
	e, err := New([]Rule{r}, interval, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cur map[string]float64
	si := 0
	end := steps[len(steps)-1].at
	for at := time.Duration(0); at <= end; at += interval {
		check := si < len(steps) && steps[si].at == at
		if check {
			cur = steps[si].values
		}
		var series []Series
		for gpu, v := range cur {
			series = append(series, Series{Metric: r.Metric, Labels: map[string]string{"gpu": gpu}, Value: v})
		}
		got := e.Eval(t0.Add(at), series)
		if !check {
			continue
		}
		s := steps[si]
		si++
		var firing, ended []string
		for _, a := range got {
			if a.Name() != r.Name {
				t.Errorf("at %s: alertname %q; want %q", at, a.Name(), r.Name)
			}
			if a.Status() == notify.StatusFiring {
				firing = append(firing, a.Labels["gpu"])
			} else {
				ended = append(ended, a.Labels["gpu"])
				if !a.EndsAt.Equal(t0.Add(at)) {
					t.Errorf("at %s: gpu %s EndsAt %s; want %s", at, a.Labels["gpu"], a.EndsAt, t0.Add(at))
				}
			}
		}
		if strings.Join(firing, ",") != strings.Join(s.firing, ",") || strings.Join(ended, ",") != strings.Join(s.ended, ",") {
			t.Errorf("at %s: firing %v, resolved %v; want firing %v, resolved %v", at, firing, ended, s.firing, s.ended)
		}
	}
}

func TestLatestForPendingFiringResolved(t *testing.T) {
	// GPU memory above 90% for 5 minutes, sampled every 10 s.
	r := Rule{Name: "GPUMemoryHigh", Metric: "gpuscout_gpu_memory_used_ratio", Op: GT, Threshold: 0.9, For: 5 * time.Minute}
	run(t, r, 10*time.Second, []step{
		{at: 0, values: map[string]float64{"0": 0.95, "1": 0.5}},
		{at: 4*time.Minute + 50*time.Second, values: map[string]float64{"0": 0.95, "1": 0.5}}, // pending 4m50s
		{at: 5 * time.Minute, values: map[string]float64{"0": 0.95, "1": 0.95}, firing: []string{"0"}},
		{at: 6 * time.Minute, values: map[string]float64{"0": 0.95, "1": 0.95}, firing: []string{"0"}},
		// exactly the threshold is not above it: resolves
		{at: 7 * time.Minute, values: map[string]float64{"0": 0.9, "1": 0.95}, ended: []string{"0"}},
		{at: 10 * time.Minute, values: map[string]float64{"0": 0.9, "1": 0.95}, firing: []string{"1"}},
		// the series goes away: its alert resolves
		{at: 11 * time.Minute, values: map[string]float64{"0": 0.9}, ended: []string{"1"}},
		{at: 12 * time.Minute, values: map[string]float64{"0": 0.9}},
	})
}

func TestPendingResetsWhenConditionBreaks(t *testing.T) {
	r := Rule{Name: "GPUMemoryHigh", Metric: "m", Op: GT, Threshold: 0.9, For: 5 * time.Minute}
	run(t, r, time.Minute, []step{
		{at: 0, values: map[string]float64{"0": 0.95}},
		{at: 4 * time.Minute, values: map[string]float64{"0": 0.5}}, // breaks: pending dropped, nothing resolved
		{at: 5 * time.Minute, values: map[string]float64{"0": 0.95}},
		{at: 9 * time.Minute, values: map[string]float64{"0": 0.95}},
		{at: 10 * time.Minute, values: map[string]float64{"0": 0.95}, firing: []string{"0"}},
	})
}

func TestIdleMaxOver30m(t *testing.T) {
	// GPU idle: max utilisation < 5% over 30 min, sampled every minute.
	r := Rule{Name: "GPUIdle", Metric: "gpuscout_gpu_utilization_ratio", Over: Max, Op: LT, Threshold: 0.05, For: 30 * time.Minute}
	run(t, r, time.Minute, []step{
		// Idle from the start: the window is covered at 30 min, not before
		// (an agent restart does not fire on one sample).
		{at: 0, values: map[string]float64{"0": 0.01, "1": 0.5}},
		{at: 29 * time.Minute, values: map[string]float64{"0": 0.01, "1": 0.5}},
		{at: 30 * time.Minute, values: map[string]float64{"0": 0.01, "1": 0.0}, firing: []string{"0"}},
		// One busy sample on gpu 0 at 31m resolves it; it stays out for 30 min
		// (max over the window sees the burst).
		{at: 31 * time.Minute, values: map[string]float64{"0": 0.8, "1": 0.0}, ended: []string{"0"}},
		{at: 32 * time.Minute, values: map[string]float64{"0": 0.0, "1": 0.0}},
		{at: 60 * time.Minute, values: map[string]float64{"0": 0.0, "1": 0.0}, firing: []string{"1"}},
		{at: 61 * time.Minute, values: map[string]float64{"0": 0.0, "1": 0.0}, firing: []string{"0", "1"}},
	})
}

func TestAvgAndMinOverWindow(t *testing.T) {
	// avg over 10 min of 0,1,0,1... sampled every minute is 0.5 (ten samples in (t-10m, t]).
	e, err := New([]Rule{
		{Name: "AvgHalf", Metric: "m", Over: Avg, Op: GE, Threshold: 0.5, For: 10 * time.Minute},
		{Name: "MinZero", Metric: "m", Over: Min, Op: EQ, Threshold: 0, For: 10 * time.Minute},
		{Name: "AvgHigh", Metric: "m", Over: Avg, Op: GT, Threshold: 0.5, For: 10 * time.Minute},
	}, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []notify.Alert
	for i := 0; i <= 10; i++ {
		got = e.Eval(t0.Add(time.Duration(i)*time.Minute), []Series{{Metric: "m", Labels: map[string]string{"gpu": "0"}, Value: float64(i % 2)}})
	}
	var names []string
	for _, a := range got {
		names = append(names, a.Name())
	}
	if strings.Join(names, ",") != "AvgHalf,MinZero" {
		t.Errorf("firing after 10 min of 0,1,0,1: %v; want [AvgHalf MinZero]", names)
	}
}

func TestMatchersAndLabels(t *testing.T) {
	e, err := New([]Rule{{
		Name: "CollectorDown", Metric: "gpuscout_collector_up", Op: EQ, Threshold: 0, For: time.Minute,
		Match:       []Matcher{{Label: "collector", Type: "!~", Value: "net.*"}},
		Labels:      map[string]string{"severity": "warning"},
		Annotations: map[string]string{"summary": "collector {{ $labels.collector }} is down ({{ $value }}); {{ $labels.nothing }}."},
	}}, 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := []Series{
		{Metric: "gpuscout_collector_up", Labels: map[string]string{"collector": "gpu"}, Value: 0},
		{Metric: "gpuscout_collector_up", Labels: map[string]string{"collector": "netdev"}, Value: 0},
		{Metric: "gpuscout_collector_up", Labels: map[string]string{"collector": "cost"}, Value: 1},
		{Metric: "other", Labels: map[string]string{"collector": "gpu"}, Value: 0},
	}
	e.Eval(t0, snap)
	got := e.Eval(t0.Add(time.Minute), snap)
	if len(got) != 1 {
		t.Fatalf("got %d alerts %+v; want 1 (gpu)", len(got), got)
	}
	a := got[0]
	want := map[string]string{"alertname": "CollectorDown", "collector": "gpu", "severity": "warning"}
	if labelKey(a.Labels) != labelKey(want) {
		t.Errorf("labels %v; want %v", a.Labels, want)
	}
	if s := a.Annotations["summary"]; s != "collector gpu is down (0); ." {
		t.Errorf("summary %q; want %q", s, "collector gpu is down (0); .")
	}
	if !a.StartsAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("StartsAt %s; want %s", a.StartsAt, t0.Add(time.Minute))
	}
}

func TestTemplatesAreSafe(t *testing.T) {
	for _, text := range []string{
		`{{ exec "rm" }}`, `{{ template "x" }}`, `{{ call .Labels }}`, `{{ $labels.gpu `,
	} {
		r := Rule{Name: "X", Metric: "m", Op: GT, Annotations: map[string]string{"summary": text}}
		e, err := New([]Rule{r}, time.Second, nil)
		if err != nil {
			if !strings.Contains(err.Error(), "annotations.summary") {
				t.Errorf("%q: error %v; want it to name annotations.summary", text, err)
			}
			continue
		}
		// Accepted templates must not panic and must say they failed.
		got := e.Eval(t0, []Series{{Metric: "m", Value: 1}})
		if len(got) != 1 || !strings.Contains(got[0].Annotations["summary"], "failed") {
			t.Errorf("%q: %+v; want one alert whose summary says the template failed", text, got)
		}
	}
	r := Rule{Name: "X", Metric: "m", Op: GT, Annotations: map[string]string{"summary": `{{ $value | humanizePercentage }} on {{ printf "%s" $labels.gpu }}`}}
	e, err := New([]Rule{r}, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := e.Eval(t0, []Series{{Metric: "m", Labels: map[string]string{"gpu": "3"}, Value: 0.93}})
	if s := got[0].Annotations["summary"]; s != "93% on 3" {
		t.Errorf("summary %q; want %q", s, "93% on 3")
	}
}

func TestBadRules(t *testing.T) {
	known := func(m string) bool { return m == "gpuscout_gpu_utilization_ratio" }
	ok := Rule{Name: "A", Metric: "gpuscout_gpu_utilization_ratio", Op: LT, Threshold: 0.05, For: time.Minute}
	for _, c := range []struct {
		edit func(*Rule)
		want string
	}{
		{func(r *Rule) { r.Metric = "gpuscout_gpu_utilisation" }, `metric "gpuscout_gpu_utilisation": not one of the agent's metrics`},
		{func(r *Rule) { r.Op = "=>" }, `op "=>": want one of > >= < <= == !=`},
		{func(r *Rule) { r.Over = "median" }, `over "median": want one of latest max min avg`},
		{func(r *Rule) { r.Over = Max; r.For = 0 }, "an aggregate needs a window"},
		{func(r *Rule) { r.For = 8 * 24 * time.Hour }, "for 192h0m0s: want 0s to 168h0m0s"},
		{func(r *Rule) { r.Name = "GPU idle" }, `name "GPU idle"`},
		{func(r *Rule) { r.Match = []Matcher{{Label: "gpu", Type: "=~", Value: "("}} }, "match[0]: regular expression"},
		{func(r *Rule) { r.Labels = map[string]string{"alertname": "x"} }, "labels.alertname"},
	} {
		r := ok
		c.edit(&r)
		_, err := New([]Rule{r}, time.Second, known)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v; want one containing %q", err, c.want)
		}
	}
	if _, err := New([]Rule{ok}, time.Second, known); err != nil {
		t.Errorf("good rule: %v", err)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	e, err := New([]Rule{{Name: "I", Metric: "m", Over: Max, Op: LT, Threshold: 1, For: 10 * time.Second}}, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		e.Eval(t0.Add(time.Duration(i)*time.Second), []Series{{Metric: "m", Labels: map[string]string{"gpu": "0"}, Value: 0}})
	}
	h := e.history[seriesKey("m", map[string]string{"gpu": "0"})]
	if len(h.b) != 14 || h.n != 14 {
		t.Errorf("history holds %d of %d buckets; want 14 of 14 (10 s ÷ 1 s + 4)", h.n, len(h.b))
	}
	// A week's window at 100 ms keeps MaxHistory buckets (+4), not 6 million samples.
	if h := newHistory(7*24*time.Hour, 100*time.Millisecond); len(h.b) != MaxHistory+4 {
		t.Errorf("a week at 100 ms: %d buckets; want %d", len(h.b), MaxHistory+4)
	}
	// A series that goes away is forgotten after the window.
	e.Eval(t0.Add(2000*time.Second), nil)
	if len(e.history) != 0 {
		t.Errorf("%d histories after the series went away; want 0", len(e.history))
	}
}

func TestHistoryBucketsAtFastInterval(t *testing.T) {
	// 100 ms sampling, 30 min window: 18000 samples in MaxHistory+4
	// buckets. A single 100 ms burst at 40 min is still seen by max for
	// the next 30 minutes, and the window's avg and min stay right.
	h := newHistory(30*time.Minute, 100*time.Millisecond)
	if len(h.b) != MaxHistory+4 {
		t.Fatalf("%d buckets; want %d", len(h.b), MaxHistory+4)
	}
	check := func(at time.Duration, agg Aggregate, want float64) {
		t.Helper()
		now := t0.Add(at)
		got, ok := h.aggregate(agg, now.Add(-30*time.Minute), now)
		if !ok || got < want-1e-9 || got > want+1e-9 {
			t.Errorf("at %s: %s = %v (%v); want %v", at, agg, got, ok, want)
		}
	}
	at := time.Duration(0)
	add := func(until time.Duration, v float64) {
		for ; at <= until; at += 100 * time.Millisecond {
			h.add(t0.Add(at), v)
		}
	}
	add(40*time.Minute-100*time.Millisecond, 0.01)
	check(at-100*time.Millisecond, Max, 0.01)
	add(40*time.Minute, 0.91)
	add(69*time.Minute, 0.01)
	check(40*time.Minute+29*time.Minute, Max, 0.91)
	check(69*time.Minute, Min, 0.01)
	// avg over the window: 0.9 more in one of about 18000 samples
	// (the window's start is known to a bucket, so the count is approximate).
	now := t0.Add(69 * time.Minute)
	if avg, _ := h.aggregate(Avg, now.Add(-30*time.Minute), now); avg < 0.01+0.9/18100 || avg > 0.01+0.9/17900 {
		t.Errorf("avg %v; want about %v", avg, 0.01+0.9/18000)
	}
	add(71*time.Minute, 0.01)
	check(71*time.Minute, Max, 0.01)
	if !h.since.Equal(t0) {
		t.Errorf("since %s; want %s (no gap)", h.since, t0)
	}
}

// After a gap longer than three intervals the history starts again: the
// old samples count neither for the aggregate nor for the coverage.
func TestHistoryGapRestarts(t *testing.T) {
	h := newHistory(10*time.Minute, time.Minute)
	for i := 0; i < 5; i++ {
		h.add(t0.Add(time.Duration(i)*time.Minute), 0.9)
	}
	resume := t0.Add(9 * time.Minute) // 5 min without a sample
	h.add(resume, 0.1)
	if v, ok := h.aggregate(Max, resume.Add(-10*time.Minute), resume); !ok || v != 0.1 {
		t.Errorf("max after the gap = %v (%v); want 0.1 (the samples before the gap are gone)", v, ok)
	}
	if !h.since.Equal(resume) {
		t.Errorf("since %s; want %s", h.since, resume)
	}
}
