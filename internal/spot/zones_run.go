package spot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

// firstZone is the config of the first zone alone: where the policies that
// do not choose zones run when there are several.
func (c *Config) firstZone() Config {
	f := *c
	f.Zones = c.Zones[:1]
	return f.oneZone()
}

// zoneNames are the zones' names, for timelines.
func (c *Config) zoneNames() []string {
	out := make([]string, len(c.Zones))
	for i, z := range c.Zones {
		out[i] = z.Name
	}
	return out
}

// checkZoneOffsets: start offsets must lie inside every zone's trace.
func (c *Config) checkZoneOffsets() error {
	for i, o := range c.Offsets {
		for _, z := range c.Zones {
			rp, ok := z.Model.(*Replay)
			if !ok {
				return fmt.Errorf("start offsets need trace replays in every zone; zone %s is %s", z.Name, z.Model.Describe(c.Job.Nodes))
			}
			if total := rp.Trace.Hours(); !(o >= 0 && o < total) {
				return fmt.Errorf("start offset %d (%g h) is outside the trace of zone %s (0 to %g h)", i+1, o, z.Name, total)
			}
		}
	}
	return nil
}

// runs is the number of runs of a multi-zone config.
func (c *Config) zoneRuns() int {
	switch {
	case len(c.Offsets) > 0:
		return len(c.Offsets)
	case c.Runs > 0:
		return c.Runs
	}
	if _, ok := c.Zones[0].Model.(*Replay); ok {
		return DefaultOffsetRuns
	}
	return DefaultRuns
}

// estimateZoneEvents is roughly the events one run sees: its checkpoints
// and the availability changes of every zone.
func estimateZoneEvents(c *Config) float64 {
	var n float64
	for _, z := range c.Zones {
		zc := *c
		zc.Zones, zc.Model = nil, z.Model
		n += estimateEvents(&zc)
	}
	return n
}

// odCostZones is the job's cost on on-demand alone in its cheapest zone.
func (c *Config) odCostZones(work float64) float64 {
	best := math.Inf(1)
	for i := range c.Zones {
		j := c.Job
		j.Work = work
		j.ODPrice = c.Zones[i].odPrice(&c.Job)
		best = math.Min(best, j.ODCost())
	}
	return best
}

// zoneMinPrices are the lowest spot and on-demand prices of any zone.
func (c *Config) zoneMinPrices() (spot, od float64) {
	spot, od = math.Inf(1), math.Inf(1)
	for i := range c.Zones {
		z := &c.Zones[i]
		od = math.Min(od, z.odPrice(&c.Job))
		if rp, ok := z.Model.(*Replay); ok && rp.Trace.Prices != nil {
			spot = math.Min(spot, rp.runsFor(1).prices.min())
			continue
		}
		spot = math.Min(spot, z.spotPrice(&c.Job))
	}
	return spot, od
}

// simulateZones is SimulateMany for configs of several zones: the
// multi-zone policies and the optimum choose among the zones; the other
// policies run in the first zone alone. Savings are against on-demand in the
// cheapest zone.
func simulateZones(cfgs []Config, pols []Policy, progress func(done, total int)) ([]Summary, error) {
	if err := cfgs[0].Job.Validate(); err != nil {
		return nil, err
	}
	job := cfgs[0].Job.planned()
	budget := cfgs[0].MaxEvents
	if budget <= 0 {
		budget = DefaultMaxEvents
	}
	total := 0
	var estimate float64
	for k := range cfgs {
		c := &cfgs[k]
		if !c.multiZone() {
			return nil, fmt.Errorf("config %d: one zone among configs of several; give every config its zones", k+1)
		}
		if err := c.checkZones(); err != nil {
			return nil, fmt.Errorf("config %d: %w", k+1, err)
		}
		if err := c.checkZoneOffsets(); err != nil {
			return nil, fmt.Errorf("config %d: %w", k+1, err)
		}
		for _, p := range pols {
			if !p.NeedsDeadline() || job.Deadline > 0 {
				total += c.zoneRuns()
				if _, od := p.(OnDemandOnly); !od {
					estimate += float64(c.zoneRuns()) * estimateZoneEvents(c)
				}
			}
		}
	}
	if estimate > float64(budget) {
		return nil, &BudgetError{Budget: budget, Estimate: estimate, Total: total}
	}
	stats := make([][]runStat, len(pols))
	moves := make([][2]float64, len(pols)) // sums of moves and of their money
	minSpot, minOD := math.Inf(1), math.Inf(1)
	done := 0
	var spent int64
	for k := range cfgs {
		cfg := &cfgs[k]
		first := cfg.firstZone()
		names := cfg.zoneNames()
		s, o := cfg.zoneMinPrices()
		minSpot, minOD = math.Min(minSpot, s), math.Min(minOD, o)
		n := cfg.zoneRuns()
		for pi, p := range pols {
			if p.NeedsDeadline() && job.Deadline == 0 {
				continue
			}
			nodes := gangNodes(p, job.Nodes)
			var opt []Result
			if o, ok := p.(Optimal); ok {
				opt = optimalZoneRuns(cfg, o, nodes, n)
			}
			for i := range n {
				rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
				plan := cfg.Job.planned()
				work := cfg.Job.trueWork(cfg.Seed, i)
				var r Result
				var steps int64
				var exhausted bool
				switch zp := p.(type) {
				case Optimal:
					r, steps = opt[i], 1
				case zonePolicy:
					r, steps, exhausted = simulateZone(cfg, &plan, work, zp, zoneSources(cfg, rng, nodes, i), names, false, budget-spent)
				default:
					fplan := first.Job.planned()
					r, steps, exhausted = simulate(&fplan, work, p, runSource(first, rng, nodes, i), false, budget-spent)
				}
				spent += steps
				if exhausted {
					return nil, &BudgetError{Budget: budget, Done: done, Total: total, Policy: p.Name()}
				}
				stats[pi] = append(stats[pi], runStat{cost: r.Cost, hours: r.Hours, wasted: r.Wasted, interruptions: r.Interruptions,
					switches: r.Switches, met: r.Met, od: cfg.odCostZones(work)})
				moves[pi][0] += float64(r.Moves)
				moves[pi][1] += r.MoveCost
				done++
				if progress != nil && done%256 == 0 {
					progress(done, total)
				}
			}
		}
	}
	if progress != nil {
		progress(total, total)
	}
	out := make([]Summary, len(pols))
	od := cfgs[0].odCostZones(job.Work)
	for pi, p := range pols {
		if p.NeedsDeadline() && job.Deadline == 0 {
			out[pi] = Summary{Policy: p.Name(), Note: "needs --deadline"}
			continue
		}
		out[pi] = summarize(p.Name(), stats[pi], od)
		out[pi].MaxSavings = 1 - minSpot/minOD
		if n := float64(len(stats[pi])); n > 0 {
			out[pi].MovesMean, out[pi].MoveCostMean = moves[pi][0]/n, moves[pi][1]/n
		}
	}
	for oi, p := range pols {
		if _, ok := p.(Optimal); ok && len(stats[oi]) > 0 {
			for pi := range pols {
				if len(stats[pi]) == len(stats[oi]) {
					out[pi].RegretMean, out[pi].RegretP95, out[pi].HasRegret = regret(stats[pi], stats[oi])
				}
			}
			break
		}
	}
	return out, nil
}

// optimalZoneRuns computes the optimum of runs 0..n-1 of a config, on all
// the machine's cores: each run is independent of the others (its own
// random stream), so the results do not depend on the order.
func optimalZoneRuns(cfg *Config, o Optimal, nodes, n int) []Result {
	out := make([]Result, n)
	for _, z := range cfg.Zones {
		if rp, ok := z.Model.(*Replay); ok {
			rp.runsFor(nodes) // filled here: the workers only read the cache
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
				plan := cfg.Job.planned()
				out[i] = runOptimalZones(cfg, &plan, cfg.Job.trueWork(cfg.Seed, i), o, zoneSources(cfg, rng, nodes, i), false)
			}
		})
	}
	wg.Wait()
	return out
}

// explainZones is Explain for a config of several zones.
func explainZones(cfg Config, p Policy) (Result, error) {
	if err := cfg.checkZones(); err != nil {
		return Result{}, err
	}
	if err := cfg.checkZoneOffsets(); err != nil {
		return Result{}, err
	}
	nodes := gangNodes(p, cfg.Job.Nodes)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	budget := cfg.MaxEvents
	if budget <= 0 {
		budget = DefaultMaxEvents
	}
	plan := cfg.Job.planned()
	work := cfg.Job.trueWork(cfg.Seed, 0)
	var r Result
	var exhausted bool
	switch zp := p.(type) {
	case Optimal:
		r = runOptimalZones(&cfg, &plan, work, zp, zoneSources(&cfg, rng, nodes, 0), true)
	case zonePolicy:
		r, _, exhausted = simulateZone(&cfg, &plan, work, zp, zoneSources(&cfg, rng, nodes, 0), cfg.zoneNames(), true, budget)
	default:
		first := cfg.firstZone()
		fplan := first.Job.planned()
		r, _, exhausted = simulate(&fplan, work, p, runSource(first, rng, nodes, 0), true, budget)
	}
	if exhausted {
		return r, &BudgetError{Budget: budget, Total: 1, Policy: p.Name()}
	}
	return r, nil
}
