package spot

import (
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// sequentialMany is SimulateMany's loop as it was before the workers: every
// run one by one, each with what the runs before it left of the budget. It
// returns the runs' outcomes per policy or the run at which the budget ran out.
func sequentialMany(cfgs []Config, pols []Policy, budget int64) (stats [][]runStat, doneAt int, policy string) {
	stats = make([][]runStat, len(pols))
	var spent int64
	done := 0
	for k := range cfgs {
		for pi, p := range pols {
			if p.NeedsDeadline() && cfgs[0].Job.Deadline == 0 {
				continue
			}
			cfg := cfgs[k].withZones()
			for i := range cfg.runs() {
				st, steps, exhausted := oneRun(&cfg, p, gangNodes(p, cfgs[0].Job.Nodes), i, budget-spent, nil)
				spent += steps
				if exhausted {
					return nil, done, p.Name()
				}
				stats[pi] = append(stats[pi], st)
				done++
			}
		}
	}
	return stats, -1, ""
}

// withProcs runs f with GOMAXPROCS set to n.
func withProcs(n int, f func()) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	f()
}

// TestSimulateManyParallel: on 1, 2 and 7 workers, SimulateMany's per-run
// costs, hours and switches equal the one-by-one loop's, in the same order,
// for traces, a random model and an uncertain length; progress only rises
// and ends at the total.
func TestSimulateManyParallel(t *testing.T) {
	tr, err := LoadTrace("testdata/volatile_1node.json")
	if err != nil {
		t.Fatal(err)
	}
	job := Job{Work: 10, Deadline: 14, Nodes: 1, Checkpoint: 1, CheckpointCost: 0.05, Restart: 0.2, Startup: 0.1, SpotPrice: 0.9, ODPrice: 3}
	long := job
	long.Length, long.PlanQuantile = &Length{Runs: []float64{8, 10, 12}}, 0.5
	cfgs := []Config{
		{Job: job, Model: NewReplay(tr), Runs: 40, Seed: 3},
		{Job: job, Model: Hazard{PerHour: 0.3, Down: 0.5}, Runs: 70, Seed: 4},
		{Job: job, Model: NewReplay(tr), Offsets: []float64{0, 5, 17.5}, Seed: 5},
	}
	pols, _ := Policies([]string{"all", "optimal"}, ASGMix{OnDemandPercent: 50})
	for _, cs := range [][]Config{cfgs, {{Job: long, Model: NewReplay(tr), Runs: 50, Seed: 6}}} {
		want, _, _ := sequentialMany(cs, pols, DefaultMaxEvents)
		for _, procs := range []int{1, 2, 7} {
			var calls []int
			var got []Summary
			withProcs(procs, func() {
				got, err = SimulateMany(cs, pols, func(p Progress) {
					if len(calls) > 0 && p.Runs < calls[len(calls)-1] || p.Runs > p.Total {
						t.Errorf("%d workers: progress %d of %d after %v", procs, p.Runs, p.Total, calls)
					}
					calls = append(calls, p.Runs)
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for pi, s := range got {
				total += len(want[pi])
				var costs, hours []float64
				var sw []int
				for _, r := range want[pi] {
					costs, hours, sw = append(costs, r.cost), append(hours, r.hours), append(sw, r.switches)
				}
				if !sameFloats(s.Costs, costs) || !sameFloats(s.Hours, hours) || !reflect.DeepEqual(s.Switches, sw) {
					t.Errorf("%d workers, %s: runs differ from one by one", procs, s.Policy)
				}
			}
			if len(calls) == 0 || calls[len(calls)-1] != total {
				t.Errorf("%d workers: progress calls %v, want the last = %d", procs, calls, total)
			}
		}
	}
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// TestSimulateManyBudgetParallel: a budget the estimate misses runs out at
// the same run, named the same way, on 1, 2 and 7 workers as one by one.
// Without the optimum: budgets from 5,000 events (the estimate: 4,971) to
// 40,000, so it runs out in different policies or not at all. With it (its
// programme on 0.1 h steps counts as 720 events a run; the estimate:
// 20,091): it runs out in the optimum's runs, solved whole, which spend
// more than the budget left to them.
func TestSimulateManyBudgetParallel(t *testing.T) {
	job := Job{Work: 10, Deadline: 30, Nodes: 1, SpotPrice: 1, ODPrice: 3}
	cfgs := []Config{{Job: job, Model: Hazard{PerHour: 10, Down: 0.1}, Runs: 12, Seed: 1}, {Job: job, Model: Hazard{PerHour: 5, Down: 0.2}, Runs: 9, Seed: 2}}
	for _, tc := range []struct {
		policies string
		budgets  []int64
	}{
		{"spot,od,greedy,fallback", []int64{5000, 5500, 6100, 6500, 6873, 7800, 8300, 40000}},
		{"spot,od,greedy,fallback,optimal", []int64{20200, 21000, 23000, 40000}},
	} {
		pols, _ := Policies(strings.Split(tc.policies, ","), ASGMix{})
		for _, budget := range tc.budgets {
			cfgs[0].MaxEvents = budget
			_, wantDone, wantPolicy := sequentialMany(cfgs, pols, budget)
			t.Logf("%s, budget %d: one by one runs out after %d runs (%s)", tc.policies, budget, wantDone, wantPolicy)
			for _, procs := range []int{1, 2, 7} {
				var err error
				withProcs(procs, func() { _, err = SimulateMany(cfgs, pols, nil) })
				var be *BudgetError
				switch {
				case wantDone < 0 && err != nil:
					t.Errorf("budget %d, %d workers: %v; one by one fits", budget, procs, err)
				case wantDone >= 0 && !errors.As(err, &be):
					t.Errorf("budget %d, %d workers: err %v; one by one runs out after %d runs (%s)", budget, procs, err, wantDone, wantPolicy)
				case wantDone >= 0 && (be.Done != wantDone || be.Policy != wantPolicy || be.Estimate != 0):
					t.Errorf("budget %d, %d workers: ran out after %d runs (%s), one by one after %d (%s)", budget, procs, be.Done, be.Policy, wantDone, wantPolicy)
				}
			}
		}
	}
}
