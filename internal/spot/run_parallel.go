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

// oneRun simulates run i of cfg under p (gang nodes on spot) with at most
// budget events.
func oneRun(cfg *Config, p Policy, nodes, i int, budget int64) (runStat, int64, bool) {
	r, steps, exhausted := runOnce(cfg, p, nodes, i, false, budget)
	return runStat{cost: r.Cost, hours: r.Hours, wasted: r.Wasted, interruptions: r.Interruptions, switches: r.Switches, met: r.Met,
		od: cfg.odCost(cfg.Job.trueWork(cfg.Seed, i)), moves: r.Moves, moveCost: r.MoveCost}, steps, exhausted
}

// runOnce is run i of cfg under p, with its timeline if trace: the one
// place that picks the simulator. With several zones, the zone policies and
// the optimum choose among them and the other policies run in the first
// zone alone.
func runOnce(cfg *Config, p Policy, nodes, i int, trace bool, budget int64) (r Result, steps int64, exhausted bool) {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
	plan := cfg.Job.planned()
	work := cfg.Job.trueWork(cfg.Seed, i)
	var names []string
	if trace {
		names = cfg.zoneNames()
	}
	switch zp, isZone := p.(zonePolicy); {
	case !cfg.multiZone():
		return simulate(&plan, work, p, runSource(*cfg, rng, nodes, i), trace, budget)
	case isOptimal(p):
		return runOptimalZones(cfg, &plan, work, p.(Optimal), zoneSources(cfg, rng, nodes, i), trace), 1, false
	case isZone:
		return simulateZone(cfg, &plan, work, zp, zoneSources(cfg, rng, nodes, i), names, trace, budget)
	default:
		first := cfg.firstZone()
		fplan := first.Job.planned()
		return simulate(&fplan, work, p, runSource(first, rng, nodes, i), trace, budget)
	}
}

func isOptimal(p Policy) bool { _, ok := p.(Optimal); return ok }

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
