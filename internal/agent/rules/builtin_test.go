package rules

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/notify"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// builtins are the config's built-in rules with every budget set.
func builtins(t *testing.T) []Rule {
	t.Helper()
	rs, err := FromConfig(agentconfig.DefaultRules(agentconfig.Budgets{EgressBytesPerSecond: 50e6, EgressMonthlyCost: 500, BurnRatePerHour: 40}))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// Every built-in rule, on a fake clock sampled every 15 s: a series that
// breaks it is quiet one sample before `for`, fires at `for` (the window
// covered, for an aggregate) and resolves at the first evaluation its
// value is back on the good side (for avg, once the window's average is);
// a series on the good side never fires.
func TestBuiltinRules(t *testing.T) {
	want := map[string]struct {
		metric string
		over   Aggregate
		op     Op
		th     float64
		dur    time.Duration
	}{
		"GPUMemoryHigh":           {"gpuscout_gpu_memory_used_ratio", Latest, GT, 0.9, 5 * time.Minute},
		"GPUIdle":                 {"gpuscout_gpu_utilization_ratio", Max, LT, 0.05, 30 * time.Minute},
		"CollectorDown":           {"gpuscout_collector_up", Latest, LT, 1, 2 * time.Minute},
		"EgressRateHigh":          {"gpuscout_egress_rate_bytes_per_second", Avg, GT, 50e6, 15 * time.Minute},
		"EgressCostOverBudget":    {"gpuscout_egress_projected_monthly_cost", Avg, GT, 500, time.Hour},
		"SpendBurnRateOverBudget": {"gpuscout_cost_burn_rate_per_hour", Latest, GT, 40, 10 * time.Minute},
	}
	rs := builtins(t)
	if len(rs) != len(want) {
		t.Errorf("%d built-in rules; want %d", len(rs), len(want))
	}
	const step = 15 * time.Second
	for _, r := range rs {
		t.Run(r.Name, func(t *testing.T) {
			w, ok := want[r.Name]
			if !ok {
				t.Fatalf("unexpected built-in rule %s", r.Name)
			}
			if r.Metric != w.metric || r.Over != w.over || r.Op != w.op || r.Threshold != w.th || r.For != w.dur {
				t.Fatalf("rule %s %s(%s) %s %v for %s; want %s(%s) %s %v for %s", r.Name, r.Over, r.Metric, r.Op, r.Threshold, r.For, w.over, w.metric, w.op, w.th, w.dur)
			}
			if r.Labels["severity"] == "" {
				t.Errorf("no severity label")
			}
			e, err := New([]Rule{r}, step, nil)
			if err != nil {
				t.Fatal(err)
			}
			bad, good := breaking(r.Op, r.Threshold)
			series := func(v float64) []Series {
				return []Series{
					{Metric: r.Metric, Labels: map[string]string{"gpu": "0"}, Value: v},
					{Metric: r.Metric, Labels: map[string]string{"gpu": "1"}, Value: good},
				}
			}
			var firedAt, resolvedAt time.Duration = -1, -1
			var fired notify.Alert
			for at := time.Duration(0); at <= 3*r.For+step && resolvedAt < 0; at += step {
				v := bad
				if at > r.For+step {
					v = good // back on the good side after `for` plus one step
				}
				for _, a := range e.Eval(t0.Add(at), series(v)) {
					if a.Labels["gpu"] != "0" {
						t.Fatalf("at %s: gpu %s fired; want only gpu 0", at, a.Labels["gpu"])
					}
					if a.Status() == notify.StatusFiring && firedAt < 0 {
						firedAt, fired = at, a
					}
					if a.Status() == notify.StatusResolved {
						resolvedAt = at
					}
				}
			}
			if firedAt != r.For {
				t.Errorf("fired at %s; want at %s", firedAt, r.For)
			}
			if !fired.StartsAt.Equal(t0.Add(r.For)) || fired.Annotations["summary"] == "" || fired.Action != agentconfig.ActionNotify {
				t.Errorf("alert %+v; want StartsAt %s, a summary, action notify", fired, t0.Add(r.For))
			}
			// latest, max: resolved at the first good sample. avg over
			// n = for/step samples of which k good: above the threshold
			// until bad·(n-k) + good·k ≤ threshold·n.
			wantResolved := r.For + 2*step
			if r.Over == Avg {
				n := int(r.For / step)
				k := 1
				for bad*float64(n-k)+good*float64(k) > r.Threshold*float64(n) {
					k++
				}
				wantResolved = r.For + step + time.Duration(k)*step
			}
			if resolvedAt != wantResolved {
				t.Errorf("resolved at %s; want %s", resolvedAt, wantResolved)
			}
		})
	}
}

func TestFromConfigErrors(t *testing.T) {
	th := 1.0
	rs := []agentconfig.Rule{{Name: "X", Metric: "m", Op: ">", Threshold: &th, Aggregate: "latest",
		Annotations: map[string]string{"summary": "{{ $labels.gpu "}}}
	_, err := FromConfig(rs)
	if err == nil || !strings.Contains(err.Error(), "rules[0].annotations.summary") {
		t.Errorf("FromConfig with a broken template: %v; want an error naming rules[0].annotations.summary", err)
	}
}

// The built-in rules over the agent's own snapshots: metric names come from
// the registry, label values in its order.
func TestForAgentOverSnapshots(t *testing.T) {
	c := agentconfig.Default()
	c.Agent.Interval = agentconfig.Duration(time.Minute)
	e, err := ForAgent(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []notify.Alert
	for i := 0; i <= 30; i++ {
		var b agent.Batch
		b.Add(agent.GPUUtilization, 0.01, "0", "GPU-a")
		b.Add(agent.GPUUtilization, 0.50, "1", "GPU-b")
		b.Add(agent.CollectorUp, 1, "gpu")
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		got = e.EvalSnapshot(&agent.Snapshot{At: t0.Add(time.Duration(i) * time.Minute), Series: b.Series()})
	}
	if len(got) != 1 || got[0].Name() != "GPUIdle" || got[0].Labels["uuid"] != "GPU-a" || got[0].Labels["gpu"] != "0" {
		t.Errorf("after 30 min: %+v; want GPUIdle on gpu 0 (GPU-a)", got)
	}
	c.Rules[0].Metric = "gpuscout_gpu_memory_percent"
	if _, err := ForAgent(c); err == nil || !strings.Contains(err.Error(), `metric "gpuscout_gpu_memory_percent"`) {
		t.Errorf("unknown metric: %v; want an error naming it", err)
	}
}

// The tick handler evaluates the loop's snapshots and queues what fires;
// the dispatcher delivers it.
func TestHandlerQueuesAlerts(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	c := agentconfig.Default()
	c.Agent.Interval = agentconfig.Duration(time.Minute)
	c.Notify.Webhooks = []string{srv.URL}
	c.Notify.QueueDir = t.TempDir()
	e, err := ForAgent(c)
	if err != nil {
		t.Fatal(err)
	}
	rs, xs, o := notify.FromConfig(c.Notify)
	d, err := notify.New(rs, xs, o)
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	h := &Handler{Engine: e, Notify: d, Alerts: func(a []notify.Alert) { seen += len(a) }}
	for i := 0; i <= 5; i++ {
		var b agent.Batch
		b.Add(agent.GPUMemoryUsedRatio, 0.95, "0", "GPU-a")
		at := t0.Add(time.Duration(i) * time.Minute)
		h.Tick(at, &agent.Snapshot{At: at, Series: b.Series()})
	}
	h.Wait()
	if seen != 1 {
		t.Fatalf("alerts seen %d; want 1 (GPUMemoryHigh at 5 min)", seen)
	}
	// The tick started a delivery round in the background; one more tick
	// delivers whatever the first round had not seen.
	var b agent.Batch
	b.Add(agent.GPUMemoryUsedRatio, 0.95, "0", "GPU-a")
	h.Tick(t0.Add(6*time.Minute), &agent.Snapshot{At: t0.Add(6 * time.Minute), Series: b.Series()})
	h.Wait()
	if q := d.Queued(); q != 0 {
		t.Errorf("%d still queued; want 0", q)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || !strings.Contains(got[0], `"alertname":"GPUMemoryHigh"`) {
		t.Errorf("webhook got %v; want one GPUMemoryHigh notice", got)
	}
}

// BenchmarkEvalSnapshot8GPUs is one tick of the built-in rules (all
// budgets) over a snapshot of 8 GPUs with every per-GPU metric, at the
// default 1 s interval, with 30 minutes of history held.
func BenchmarkEvalSnapshot8GPUs(b *testing.B) {
	c := agentconfig.Default()
	c.Rules = agentconfig.DefaultRules(agentconfig.Budgets{EgressBytesPerSecond: 50e6, EgressMonthlyCost: 500, BurnRatePerHour: 40})
	e, err := ForAgent(c)
	if err != nil {
		b.Fatal(err)
	}
	var batch agent.Batch
	for g := range 8 {
		gpu, uuid := string(rune('0'+g)), "GPU-"+string(rune('a'+g))
		for _, m := range agent.Metrics {
			if len(m.Labels) == 2 && m.Labels[0] == "gpu" {
				batch.Add(m.Name, 0.5, gpu, uuid)
			}
		}
	}
	batch.Add(agent.EgressRate, 1e6)
	batch.Add(agent.CostBurnRate, 10, "USD")
	batch.Add(agent.CollectorUp, 1, "gpu")
	snap := &agent.Snapshot{Series: batch.Series()}
	for i := range 1800 {
		snap.At = t0.Add(time.Duration(i) * time.Second)
		e.EvalSnapshot(snap)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap.At = t0.Add(time.Duration(1800+i) * time.Second)
		e.EvalSnapshot(snap)
	}
}
