package cost

import (
	"fmt"
	"math"

	"github.com/gpuscout/gpuscout/internal/spot"
)

// Bounds of the hindsight optimum a spot estimate computes (SimModel.Floor),
// to keep it to about a tenth of a second per job shape on a slow machine.
// In one zone the optimum (spot.Optimal) costs about its grid steps (it
// works in lag space: measured 0.4 µs a step on the 2-core dev box, 87,600
// steps in 35 ms); across zones it is a programme over steps × steps of
// work × zone states (some 40 ns a cell).
const (
	// FloorMaxRuns is the most runs the optimum is computed on: a tenth of
	// the estimate's runs (the first ones, which face the same
	// availability), at least FloorMinRuns (or all where fewer), at most this.
	FloorMaxRuns = 100
	FloorMinRuns = 20
	// FloorStepsPerRun bounds the one-zone optimum's grid steps per run
	// (deadline ÷ step): some 2 ms a run.
	FloorStepsPerRun = 5000.0
	// FloorCellsPerRun bounds the several-zone optimum's grid cells per run
	// (steps to the deadline × steps of work, for one zone's six states):
	// some 1.6 ms a run.
	FloorCellsPerRun = 40000.0
	// FloorMaxStep is the coarsest grid, hours: the optimum rounds each
	// launch's delay up to whole steps, so a coarser grid would overstate it.
	FloorMaxStep = 0.5
)

// FloorGrid is the grid, in hours, and the number of runs of the hindsight
// optimum of a job of work hours with a deadline, for an estimate of runs
// runs in zones zones: n runs (a tenth, at least FloorMinRuns or all, at
// most FloorMaxRuns) get a budget of n × FloorStepsPerRun steps (one zone)
// or n × FloorCellsPerRun cells (several); the grid is
// spot.DefaultOptimalStep where that allows, else coarser up to
// FloorMaxStep, else the runs are fewer; n = 0 where fewer than
// FloorMinRuns (or all) would fit. The step is then shortened so that the
// work is a whole number of steps (the optimum rounds the work up to whole
// steps, which would put it above a policy that needs no rounding).
//
// With several zones the optimum's states per cell grow from 6 to 1 + 3z
// plus z² moves: the budget is divided by (1 + 3z + z²)/6.
func FloorGrid(work, deadline float64, runs, zones int) (step float64, n int) {
	n = min(runs, max(runs/10, FloorMinRuns), FloorMaxRuns)
	var h float64
	if zones < 2 {
		budget := float64(n) * FloorStepsPerRun
		h = math.Max(spot.DefaultOptimalStep, deadline/FloorStepsPerRun)
		if h > FloorMaxStep {
			h = FloorMaxStep
			n = min(n, int(budget*h/deadline))
		}
	} else {
		perRun := FloorCellsPerRun * 6 / float64(1+3*zones+zones*zones)
		budget := float64(n) * perRun
		h = math.Max(spot.DefaultOptimalStep, math.Sqrt(deadline*work/perRun))
		if h > FloorMaxStep {
			h = FloorMaxStep
			n = min(n, int(budget*h*h/(deadline*work)))
		}
	}
	if n < 1 || n < min(runs, FloorMinRuns) {
		return 0, 0
	}
	return work / math.Ceil(work/h-1e-9), n
}

// floor computes the hindsight optimum of the estimate's job on the first
// runs of the same simulation (same seed, same model) beside the policy,
// or says in FloorNote why there is none.
func (m *SimModel) floor(est *SpotEstimate, cfg spot.Config, pol spot.Policy, runs int) error {
	job := cfg.Job
	switch {
	case job.Deadline == 0:
		est.FloorNote = "no hindsight optimum: it needs a deadline (--deadline) to weigh waiting for spot against on-demand"
		return nil
	case pol.Name() == (spot.SpotOnly{}).Name() || pol.Name() == (spot.Failover{}).Name():
		est.FloorNote = "no hindsight optimum: the on-demand price is not known in the spot price's currency"
		return nil
	}
	step, n := FloorGrid(job.Work, job.Deadline, runs, len(cfg.Zones))
	if n == 0 {
		est.FloorNote = fmt.Sprintf("no hindsight optimum: %s of work within %s would need a grid coarser than %g h or fewer than %d runs to stay within its time budget",
			FormatHours(job.Work), FormatHours(job.Deadline), FloorMaxStep, FloorMinRuns)
		return nil
	}
	cfg.Runs = n
	sums, err := spot.Simulate(cfg, []spot.Policy{pol, spot.Optimal{Step: step}})
	if err != nil {
		return fmt.Errorf("hindsight optimum: %w", err)
	}
	opt := sums[1]
	if opt.Unfinished == opt.Runs {
		est.FloorNote = "no hindsight optimum: no schedule meets the deadline on the optimum's grid"
		return nil
	}
	nodeHours := job.Work * float64(job.Nodes)
	f := &SpotFloor{Factor: opt.CostMean / nodeHours, Regret: sums[0].RegretMean, HasRegret: sums[0].HasRegret,
		Runs: n, Step: step, SavingsMean: opt.SavingsMean}
	startupSurplus(f, job, step)
	est.Floor = f
	return nil
}

// startupSurplus takes off the floor what its grid adds to every run: the
// first launch's start-up rounded up to whole steps, billed at the spot
// price (the optimum launches first on spot wherever spot is up), so that
// the floor is not above a policy for its grid alone. The regret is
// rescaled by the same mean: (1 + R)·F/F′ − 1, a mean of ratios approximated
// by the ratio of means, exact when every run pays the same surplus.
func startupSurplus(f *SpotFloor, job spot.Job, step float64) {
	extra := (math.Ceil(job.Startup/step-1e-9)*step - job.Startup) * float64(job.Nodes) * job.SpotPrice
	if !(extra > 0) {
		return
	}
	nodeHours := job.Work * float64(job.Nodes)
	old := f.Factor
	f.Factor -= extra / nodeHours
	if od := job.ODCost(); od > 0 {
		f.SavingsMean += extra / od
	}
	if f.HasRegret && f.Factor > 0 {
		f.Regret = (1+f.Regret)*old/f.Factor - 1
	}
}
