package spot

import (
	"fmt"
	"math"
	"testing"
)

// TestCheckpointCyclesExact: on spot that never goes away, a job of W hours
// checkpointing every τ hours at a cost of c finishes after its start-up,
// its work and ⌈W/τ⌉ − 1 checkpoints (none after the last stretch), the
// i-th saved at start-up + i(τ + c); its cost is those hours at the spot
// price. Intervals from 1 s (36,000 checkpoints, taken in closed form
// between the run's few events) to 1.3 h, with and without a cost.
func TestCheckpointCyclesExact(t *testing.T) {
	tr := spans([2]float64{200, 1})
	for _, tc := range []struct{ tau, cost float64 }{
		{1.0 / 3600, 0.1 / 3600}, {10.0 / 3600, 0}, {0.3, 0.05}, {0.7, 0}, {1.3, 0.2}, {2.5, 0.1},
	} {
		job := Job{Work: 10, Nodes: 1, Checkpoint: tc.tau, CheckpointCost: tc.cost, Restart: 0.2, Startup: 0.1, SpotPrice: 2, ODPrice: 3}
		n := math.Ceil(job.Work/tc.tau-1e-9) - 1
		want := job.Startup + job.Work + n*tc.cost
		r, err := Explain(Config{Job: job, Model: NewReplay(tr), Offsets: []float64{0}}, SpotOnly{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Hours-want) > 1e-9*want || math.Abs(r.Cost-2*want) > 1e-9*want || r.Interruptions != 0 {
			t.Errorf("τ %.4g h, c %.4g h: %.9g h, cost %.9g, %d interruptions; want %.9g h, cost %.9g, none", tc.tau, tc.cost, r.Hours, r.Cost, r.Interruptions, want, 2*want)
		}
		var saved []Event
		for _, e := range r.Events {
			if e.What == "checkpoint" {
				saved = append(saved, e)
			}
		}
		if float64(len(saved)) != n {
			t.Fatalf("τ %.4g h: %d checkpoints in the timeline, want %.0f", tc.tau, len(saved), n)
		}
		for i, e := range saved {
			at := job.Startup + float64(i+1)*(tc.tau+tc.cost)
			if math.Abs(e.T-at) > 1e-9*at || e.Detail != fmt.Sprintf("saved: %.2f h of %.2f h done", float64(i+1)*tc.tau, job.Work) {
				t.Fatalf("τ %.4g h: checkpoint %d at %.9g h, %q; want at %.9g h", tc.tau, i+1, e.T, e.Detail, at)
			}
		}
	}
}

// wake is a policy that decides again at least every h hours: the event
// loop then never sees two checkpoint cycles between events and steps each
// one, as it did before stretches of whole cycles were taken in closed form.
type wake struct {
	Policy
	h float64
}

func (w wake) decide(s *State) (Mode, int, float64) {
	m, z, until := w.Policy.decide(s)
	return m, z, min(until, s.T+w.h)
}

// TestCheckpointCyclesEqualStepping: every policy's runs, on traces (with
// and without prices) and memoryless models, with
// checkpoint intervals from 3 min to 1 h and costs, are the same (to
// rounding) whether whole checkpoint cycles between events are taken in
// closed form or stepped one by one. (Deciding more often is neutral for
// these policies, not for uniform-progress-lite, which leaves on-demand at
// whichever decision finds it ahead, nor for an uncertain length, replanned
// at the first decision past the planned work.)
func TestCheckpointCyclesEqualStepping(t *testing.T) {
	models := []Model{
		NewReplay(mustTrace(t, "testdata/volatile_1node.json")),
		NewReplay(mustTrace(t, "testdata/stable_1node.json")),
		NewReplay(mustTrace(t, "testdata/priced_4node.json")),
		Hazard{PerHour: 0.2, Down: 0.5},
		TwoState{MeanUp: 5, MeanDown: 1},
	}
	pols, err := Policies([]string{"on-demand", "spot", "fallback", "asg-mix", "greedy", "uniform-progress", "failover-deadline"}, ASGMix{OnDemandPercent: 50})
	if err != nil {
		t.Fatal(err)
	}
	for mi, m := range models {
		for _, ck := range [][2]float64{{0.05, 0}, {0.05, 0.01}, {0.3, 0.02}, {1, 0.1}} {
			job := Job{Work: 20, Deadline: 26, Nodes: 2, Checkpoint: ck[0], CheckpointCost: ck[1], Restart: 0.2, Startup: 0.1, SpotPrice: 0.9, ODPrice: 3}
			cfg := Config{Job: job, Model: m, Seed: 11}.withZones()
			for _, p := range pols {
				for i := range 12 {
					n := gangNodes(p, job.Nodes)
					got, _, _ := runOnce(&cfg, p, n, i, false, 1e8, nil)
					want, _, _ := runOnce(&cfg, wake{p, 0.9 * (ck[0] + ck[1])}, n, i, false, 1e8, nil)
					close := func(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
					if !close(got.Cost, want.Cost) || !close(got.Hours, want.Hours) || !close(got.Wasted, want.Wasted) || got.Switches != want.Switches || got.Interruptions != want.Interruptions {
						t.Fatalf("model %d, checkpoint %v, %s, run %d: closed form %.12g h %.12g, %d switches, %d interruptions; stepped %.12g h %.12g, %d, %d",
							mi, ck, p.Name(), i, got.Hours, got.Cost, got.Switches, got.Interruptions, want.Hours, want.Cost, want.Switches, want.Interruptions)
					}
				}
			}
		}
	}
}

// TestCheckpointsAreEvents: the budget counts a run's checkpoints as it
// goes, as its estimate does: a run of 3,600 checkpoints spends at least
// 3,600 events, and given fewer it stops at the budget.
func TestCheckpointsAreEvents(t *testing.T) {
	job := Job{Work: 10, Nodes: 1, Checkpoint: 10.0 / 3600, CheckpointCost: 1.0 / 3600, Restart: 0.1, SpotPrice: 1, ODPrice: 3}
	cfg := Config{Job: job, Model: NewReplay(spans([2]float64{100, 1})), Offsets: []float64{0}}.withZones()
	_, events, exhausted := runOnce(&cfg, SpotOnly{}, 1, 0, false, 1e6, nil)
	if events < 3599 || exhausted {
		t.Errorf("%d events, exhausted %v; want at least the 3,599 checkpoints", events, exhausted)
	}
	if _, _, exhausted := runOnce(&cfg, SpotOnly{}, 1, 0, false, 3000, nil); !exhausted {
		t.Error("a budget of 3,000 events held 3,599 checkpoints")
	}
}
