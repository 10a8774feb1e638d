package spot

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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

// runParallel runs the tasks on GOMAXPROCS workers and returns their
// outcomes in task order and the events they spent, or the *BudgetError a
// one-by-one run would give.
//
// Each run has its own seeded generator, so its outcome does not depend on
// the worker or the order. The event budget is shared in task order: run j
// may use what runs 0..j−1 left. Workers run each task under the whole
// budget and stop taking tasks once the events spent pass it; then the
// outcomes are walked in task order, and a run that used at least what was
// left to it (or was cut short, or never ran) is run again under exactly
// that remainder, as one-by-one: the BudgetError names the same run.
// progress, if set, is called every progressEvery from a goroutine of its
// own (never two calls at once) with the runs done and the events
// processed so far, runs in progress included.
func runParallel(cfgs []Config, pols []Policy, nodes []int, tasks []runTask, budget int64, progress func(Progress)) ([]runOut, int64, error) {
	start := time.Now()
	outs := make([]runOut, len(tasks))
	total := len(tasks)
	var (
		next, done, spent, events atomic.Int64
		stop                      atomic.Bool
	)
	if progress != nil {
		quit := make(chan struct{})
		var ticker sync.WaitGroup
		ticker.Go(func() {
			t := time.NewTicker(progressEvery)
			defer t.Stop()
			for {
				select {
				case <-quit:
					return
				case <-t.C:
					progress(Progress{Runs: int(done.Load()), Total: total, Events: events.Load(), Budget: budget, Elapsed: time.Since(start)})
				}
			}
		})
		defer func() {
			close(quit)
			ticker.Wait()
		}()
	}
	work := func() {
		for !stop.Load() {
			j := int(next.Add(1) - 1)
			if j >= len(tasks) {
				return
			}
			tk := tasks[j]
			o := &outs[j]
			o.stat, o.steps, o.exhausted = oneRun(&cfgs[tk.cfg], pols[tk.pol], nodes[tk.pol], int(tk.run), budget, &events)
			o.ran = true
			if spent.Add(o.steps) > budget || o.exhausted {
				stop.Store(true)
			}
			done.Add(1)
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
			if !o.ran {
				done.Add(1)
			}
			o.stat, o.steps, o.exhausted = oneRun(&cfgs[tk.cfg], pols[tk.pol], nodes[tk.pol], int(tk.run), left, &events)
			o.ran = true
			if o.exhausted {
				return nil, events.Load(), &BudgetError{Budget: budget, Done: j, Total: total, Policy: pols[tk.pol].Name(), Elapsed: time.Since(start)}
			}
		}
		used += o.steps
	}
	return outs, used, nil
}
