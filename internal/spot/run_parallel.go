package spot

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

// runTask is one run of SimulateMany: config, policy and run number, in the
// order SimulateMany reports them (config by config, policy by policy).
type runTask struct{ cfg, pol, run int32 }

// runOut is a run's outcome.
type runOut struct {
	stat      runStat
	steps     int64
	exhausted bool
	ran       bool
}

// oneRun simulates run i of cfg under p (gang nodes on spot) with at most budget events.
func oneRun(cfg *Config, p Policy, nodes, i int, budget int64) (runStat, int64, bool) {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
	plan := cfg.Job.planned()
	work := cfg.Job.trueWork(cfg.Seed, i)
	r, steps, exhausted := simulate(&plan, work, p, runSource(*cfg, rng, nodes, i), false, budget)
	tj := plan
	tj.Work = work
	return runStat{r.Cost, r.Hours, r.Wasted, r.Interruptions, r.Switches, r.Met, tj.ODCost()}, steps, exhausted
}

// runParallel runs the tasks on GOMAXPROCS workers and returns their
// outcomes in task order, or the *BudgetError a one-by-one run would give.
//
// Each run has its own seeded generator, so its outcome does not depend on
// the worker or the order. The event budget is shared in task order: run j
// may use what runs 0..j−1 left. Workers run each task under the whole
// budget and stop taking tasks once the events spent pass it; then the
// outcomes are walked in task order, and a run that used at least what was
// left to it (or was cut short, or never ran) is run again under exactly
// that remainder, as one-by-one: the BudgetError names the same run.
// progress, if set, is called with a rising count now and then (serialised).
func runParallel(cfgs []Config, pols []Policy, nodes []int, tasks []runTask, budget int64, progress func(done, total int)) ([]runOut, error) {
	outs := make([]runOut, len(tasks))
	total := len(tasks)
	var (
		next, done, spent atomic.Int64
		stop              atomic.Bool
		mu                sync.Mutex
		reported          int
	)
	work := func() {
		for !stop.Load() {
			j := int(next.Add(1) - 1)
			if j >= len(tasks) {
				return
			}
			tk := tasks[j]
			o := &outs[j]
			o.stat, o.steps, o.exhausted = oneRun(&cfgs[tk.cfg], pols[tk.pol], nodes[tk.pol], int(tk.run), budget)
			o.ran = true
			if spent.Add(o.steps) > budget || o.exhausted {
				stop.Store(true)
			}
			if d := int(done.Add(1)); progress != nil && d%256 == 0 {
				mu.Lock()
				if d > reported {
					reported = d
					progress(d, total)
				}
				mu.Unlock()
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(tasks))
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()

	var used int64
	for j, tk := range tasks {
		o := &outs[j]
		if left := budget - used; !o.ran || o.exhausted || o.steps >= left {
			o.stat, o.steps, o.exhausted = oneRun(&cfgs[tk.cfg], pols[tk.pol], nodes[tk.pol], int(tk.run), left)
			o.ran = true
			if o.exhausted {
				return nil, &BudgetError{Budget: budget, Done: j, Total: total, Policy: pols[tk.pol].Name()}
			}
		}
		used += o.steps
	}
	return outs, nil
}
