package spot

import (
	"math"
	"reflect"
	"testing"
)

// TestPointLengthEqualsToday: a point range 48h..48h gives exactly the
// results of a fixed 48 h job, on a trace and on a random model.
func TestPointLengthEqualsToday(t *testing.T) {
	tr, err := LoadTrace("testdata/volatile_1node.json")
	if err != nil {
		t.Fatal(err)
	}
	pols, _ := Policies([]string{"all", "optimal"}, ASGMix{OnDemandPercent: 50})
	for _, m := range []Model{NewReplay(tr), Hazard{PerHour: 0.2, Down: 1, Origin: "test"}} {
		job := Job{Work: 48, Deadline: 52, Nodes: 1, Checkpoint: 1, CheckpointCost: 0.05, Restart: 0.2, Startup: 0.2, SpotPrice: 0.918, ODPrice: 3.06}
		want, err := Simulate(Config{Job: job, Model: m, Runs: 8, Seed: 4}, pols)
		if err != nil {
			t.Fatal(err)
		}
		job.Work, job.Length, job.PlanQuantile = 0, &Length{Lo: 48, Hi: 48}, 0.9
		got, err := Simulate(Config{Job: job, Model: m, Runs: 8, Seed: 4}, pols)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: a point range differs from the fixed length", m.Describe(1))
		}
	}
}

// TestUncertainLengthMissRate: spot never available, no delays, work uniform
// in 40..56 h planned at its median (48 h), deadline 50 h. Greedy idles until
// its safety net at 50 − 48 = 2 h, then runs on on-demand to the end, so it
// finishes at 2 + L: it meets the deadline iff L ≤ 48, with probability 0.5,
// an on-demand-only run finishes at L and meets it iff L ≤ 50: 0.625.
func TestUncertainLengthMissRate(t *testing.T) {
	job := Job{Deadline: 50, Nodes: 1, Restart: 0, SpotPrice: 1, ODPrice: 3, Length: &Length{Lo: 40, Hi: 56}, PlanQuantile: 0.5}
	s, err := Simulate(Config{Job: job, Model: NewReplay(bitsTrace("0000")), Runs: 2000, Seed: 1}, []Policy{Greedy{}, OnDemandOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.5, 0.625} {
		se := math.Sqrt(want * (1 - want) / 2000)
		if got := s[i].PMeetDeadline; math.Abs(got-want) > 4*se {
			t.Errorf("%s: P(meet) %.3f, want %.3f ± %.3f", s[i].Policy, got, want, 4*se)
		}
		// Savings are against each run's own on-demand cost: never above it here.
		if s[i].POverOnDemand != 0 && s[i].Policy == "on-demand" {
			t.Errorf("on-demand above its own on-demand cost in %.3f of runs", s[i].POverOnDemand)
		}
	}
}

// TestLengthQuantileAndValidate: quantiles of a range and of past runs; bad lengths named.
func TestLengthQuantileAndValidate(t *testing.T) {
	for _, tc := range []struct {
		l    Length
		q    float64
		want float64
	}{
		{Length{Lo: 40, Hi: 56}, 0.9, 54.4},
		{Length{Lo: 40, Hi: 56}, 1, 56},
		{Length{Runs: []float64{52, 41, 44}}, 0.5, 44},
		{Length{Runs: []float64{52, 41, 44}}, 0.9, 52},
		{Length{Runs: []float64{52, 41, 44}}, 0.2, 41},
	} {
		if got := tc.l.Quantile(tc.q); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%+v quantile %g = %g, want %g", tc.l, tc.q, got, tc.want)
		}
	}
	base := Job{Deadline: 60, Nodes: 1, SpotPrice: 1, ODPrice: 3, PlanQuantile: 0.9}
	for _, tc := range []struct {
		l Length
		q float64
	}{{Length{Lo: 56, Hi: 40}, 0.9}, {Length{Lo: 0, Hi: 40}, 0.9}, {Length{Lo: 40, Hi: 56}, 0}, {Length{Lo: 40, Hi: 56}, 1.5},
		{Length{Runs: []float64{40, -1}}, 0.9}, {Length{Lo: 70, Hi: 80}, 0.9}} {
		j := base
		j.Length, j.PlanQuantile = &tc.l, tc.q
		if err := j.Validate(); err == nil {
			t.Errorf("length %+v quantile %g accepted", tc.l, tc.q)
		}
	}
}
