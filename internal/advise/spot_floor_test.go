package advise

import (
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// The best spot plan of a job with a deadline carries the hindsight optimum
// of its own simulation: the simulator's optimum on the same first runs, in
// money, never above the plan's usage cost, and the policy's regret over it;
// the other spot plans say where it is.
func TestSpotFloorIsTheSimulatorsOptimum(t *testing.T) {
	a := advisor(t, money.USD)
	a.SpotRuns = 200 // the optimum on the first 20
	req := request(t, a, "cv-training", "A100-SXM4-40GB")
	req.WorkGPUHours, req.Deadline = 672, 100
	res := run(t, a, req)
	n := 0
	for i := range res.Plans {
		p := &res.Plans[i]
		if p.Model != cost.ModelSpot {
			if p.SpotFloor.Valid || p.SpotRegret != nil {
				t.Errorf("%s plan %d has a spot floor", p.Model, p.Rank)
			}
			continue
		}
		if !p.SpotFloor.Valid || p.SpotRegret == nil {
			if text := strings.Join(p.Explanation, "\n"); !strings.Contains(text, "no hindsight optimum") && !strings.Contains(text, "hindsight optimum: computed for the best spot plan") {
				t.Errorf("spot plan %d: no floor, and no note why (%q)", p.Rank, p.Explanation)
			}
			continue
		}
		n++
		usage := p.Breakdown[cost.FlowUsage].Add(p.Breakdown[SpotOverhead])
		if p.SpotFloor.Decimal.GreaterThan(usage) {
			t.Errorf("plan %d: floor %s above the usage %s", p.Rank, p.SpotFloor.Decimal, usage)
		}
		if n > 1 {
			continue
		}
		// The first spot plan by hand: the simulator on the same job and runs.
		o := p.Offering
		lambda, _, _, _ := spot.BandHazard(a.Catalog.SpotBandChoice(o, "").Label)
		sp := a.Catalog.SpotQuoteFor(o).Price.Value.InexactFloat64()
		job := spot.Job{Work: req.WorkGPUHours / p.NodeSpeed / float64(p.Instances), Deadline: req.Deadline, Nodes: p.Instances,
			Checkpoint: 1, Restart: 10.0 / 60 * cost.Harmonic(p.Instances), SpotPrice: sp, ODPrice: o.OnDemand.Value.InexactFloat64()}
		job.Startup = job.Restart
		step, runs := cost.FloorGrid(job.Work, job.Deadline, a.SpotRuns, 1)
		s, err := spot.Simulate(spot.Config{Job: job, Model: spot.Hazard{PerHour: lambda}, Runs: runs, Seed: 1},
			[]spot.Policy{spot.UniformProgress{}, spot.Optimal{Step: step}})
		if err != nil {
			t.Fatal(err)
		}
		// The grid rounds the first launch up to whole steps; the floor takes
		// that back at the spot price.
		surplus := (math.Ceil(job.Startup/step-1e-9)*step - job.Startup) * float64(job.Nodes) * sp
		want := decimal.NewFromFloat(s[1].CostMean - surplus).RoundFloor(2)
		if d := p.SpotFloor.Decimal.Sub(want).Abs(); d.GreaterThan(decimal.RequireFromString("0.01")) {
			t.Errorf("plan %d floor %s, simulator's optimum %s", p.Rank, p.SpotFloor.Decimal, want)
		}
		if r := (1+s[0].RegretMean)*s[1].CostMean/(s[1].CostMean-surplus) - 1; math.Abs(*p.SpotRegret-r) > 1e-4 {
			t.Errorf("plan %d regret %g, simulator %g", p.Rank, *p.SpotRegret, s[0].RegretMean)
		}
		if !strings.Contains(strings.Join(p.Explanation, "\n"), "hindsight optimum") {
			t.Errorf("plan %d explanation does not show the floor: %q", p.Rank, p.Explanation)
		}
	}
	if n != 1 {
		t.Fatalf("%d spot plans with a floor; want the best one only", n)
	}
	for i := range res.Plans {
		if res.Plans[i].Model == cost.ModelSpot {
			if !res.Plans[i].SpotFloor.Valid {
				t.Errorf("the best spot plan, #%d, has no floor", res.Plans[i].Rank)
			}
			break
		}
	}
}

// Without a deadline there is no optimum to show: no fake floor, and the
// explanation says why.
func TestSpotFloorNeedsADeadline(t *testing.T) {
	a := advisor(t, money.USD)
	a.SpotRuns = 200
	req := request(t, a, "cv-training", "A100-SXM4-40GB")
	req.WorkGPUHours = 672
	res := run(t, a, req)
	n := 0
	for i := range res.Plans {
		p := &res.Plans[i]
		if p.Model != cost.ModelSpot {
			continue
		}
		n++
		out := PlanOutput(p)
		if p.SpotFloor.Valid || out.SpotFloorCost != nil || out.SpotRegret != nil {
			t.Errorf("plan %d: floor %v without a deadline", p.Rank, p.SpotFloor)
		}
		if !strings.Contains(strings.Join(p.Explanation, "\n"), "no hindsight optimum: it needs a deadline") {
			t.Errorf("plan %d explanation does not say why there is no floor: %q", p.Rank, p.Explanation)
		}
	}
	if n == 0 {
		t.Fatal("no spot plan")
	}
}
