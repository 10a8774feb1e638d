package spot

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// run is one simulated run's inputs: the job as the policy plans it and
// its true length, the availability history of each zone it may use from
// the run's start, and what to record.
type run struct {
	cfg    *Config
	plan   Job      // what the policy plans on (the planned quantile of an uncertain length)
	work   float64  // the run's true length, hours
	srcs   []source // one per zone the run may use: every zone for a zone-aware policy, else the first
	trace  bool     // keep the timeline
	budget int64    // events allowed
	live   *atomic.Int64
}

// zoneJob is the job of true length in zone k, at the zone's prices.
func (r *run) zoneJob(k int) Job {
	j := r.plan
	j.Work = r.work
	z := &r.cfg.Zones[k]
	j.SpotPrice, j.ODPrice = z.spotPrice(&r.plan), z.odPrice(&r.plan)
	return j
}

// zoneStream and offsetStream separate the random streams of the zones
// after the first (the first uses the run's own, as with one zone) and of a
// shared trace offset drawn when the first zone is not a trace.
const (
	zoneStream   = 0x7a6f6e65
	offsetStream = 0x6f6666736574
)

// sources starts run i's availability history in the first n zones into
// m.srcs: traces from the same start offset (they are paired by time),
// models each from its own random stream; the first zone draws from rng,
// as one zone alone does, and a trace there replays into m's own source.
func (c *Config) sources(m *sim, rng *rand.Rand, nodes, i, n int) {
	m.srcs = m.srcs[:0]
	off := -1.0
	if len(c.Offsets) > 0 {
		off = c.Offsets[i%len(c.Offsets)]
	}
	for k := range n {
		model := c.Zones[k].Model
		rp, replay := model.(*Replay)
		switch {
		case replay && k == 0:
			runs := rp.runsFor(nodes)
			if off < 0 {
				off = rng.Float64() * runs.Total // as Replay.source draws it
			}
			m.ts.start(runs, off)
			m.srcs = append(m.srcs, &m.ts)
		case replay && off >= 0:
			m.srcs = append(m.srcs, rp.sourceAt(rp.runsFor(nodes), off))
		case replay:
			runs := rp.runsFor(nodes)
			off = rand.New(rand.NewPCG(c.Seed^offsetStream, uint64(i))).Float64() * runs.Total
			m.srcs = append(m.srcs, rp.sourceAt(runs, off))
		case k == 0:
			m.srcs = append(m.srcs, model.source(rng, nodes))
		default:
			m.srcs = append(m.srcs, model.source(rand.New(rand.NewPCG(c.Seed^(zoneStream*uint64(k)), uint64(i))), nodes))
		}
	}
}

// sims are the simulators' per-run state, reused from run to run.
var sims = sync.Pool{New: func() any {
	m := new(sim)
	m.rng = rand.New(&m.pcg)
	return m
}}

// runOnce is run i of cfg (its zones set: Config.withZones) under p, with
// gang nodes on spot and its timeline if trace: the one runner of every
// policy. A zone-aware policy may use every zone, the others run in the
// first alone; a policy that solves its runs whole (on-demand alone, the
// optimum) does, the others are stepped by the event loop. live, if set,
// receives the events as they are spent.
func runOnce(cfg *Config, p Policy, nodes, i int, trace bool, budget int64, live *atomic.Int64) (Result, int64, bool) {
	n := 1
	if p.zoneAware() {
		n = len(cfg.Zones)
	}
	m := sims.Get().(*sim)
	defer sims.Put(m)
	m.run = run{cfg: cfg, plan: cfg.Job.planned(), work: cfg.Job.trueWork(cfg.Seed, i), srcs: m.srcs, trace: trace, budget: budget, live: live}
	m.pcg.Seed(cfg.Seed, uint64(i))
	cfg.sources(m, m.rng, nodes, i, n)
	if res, events, ok := p.solve(&m.run); ok {
		if live != nil {
			live.Add(events)
		}
		// A run solved whole cannot stop at the budget: it ran out if it went past.
		return res, events, events > budget
	}
	m.start(p)
	res := m.loop()
	m.flush()
	return res, m.steps, m.exhaust
}

// oneRun simulates run i of cfg under p (gang nodes on spot) with at most
// budget events.
func oneRun(cfg *Config, p Policy, nodes, i int, budget int64, live *atomic.Int64) (runStat, int64, bool) {
	r, steps, exhausted := runOnce(cfg, p, nodes, i, false, budget, live)
	return runStat{cost: r.Cost, hours: r.Hours, wasted: r.Wasted, interruptions: r.Interruptions, switches: r.Switches, met: r.Met,
		od: cfg.odCost(cfg.Job.trueWork(cfg.Seed, i)), moves: r.Moves, moveCost: r.MoveCost}, steps, exhausted
}
