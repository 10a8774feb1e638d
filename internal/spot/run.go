package spot

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Validate checks a job. Errors name the field and what is allowed. With an
// uncertain length, the work checked is the planned quantile.
func (j *Job) Validate() error {
	if j.Length != nil {
		if err := j.Length.validate(); err != nil {
			return err
		}
		if !(j.PlanQuantile > 0 && j.PlanQuantile <= 1) {
			return fmt.Errorf("plan quantile %g: want a share in (0, 1], such as 0.9", j.PlanQuantile)
		}
		p := j.planned()
		p.Length = nil
		return p.Validate()
	}
	switch {
	case !(j.Work > 0) || math.IsInf(j.Work, 0):
		return fmt.Errorf("work %g h: want a positive duration such as 72h", j.Work)
	case j.Deadline < 0:
		return fmt.Errorf("deadline %g h: want a positive duration", j.Deadline)
	case j.Deadline > 0 && j.Deadline < j.Work+j.Startup-1e-9:
		return fmt.Errorf("deadline %g h is shorter than the work %g h plus the start-up %g h: even on-demand cannot meet it", j.Deadline, j.Work, j.Startup)
	case j.Nodes < 1 || j.Nodes > 10000:
		return fmt.Errorf("nodes %d: want 1 to 10000", j.Nodes)
	case j.Checkpoint < 0 || j.CheckpointCost < 0 || j.Restart < 0 || j.Startup < 0:
		return fmt.Errorf("checkpoint interval, checkpoint cost, restart and start-up must be >= 0")
	case j.Checkpoint > 0 && !math.IsInf(j.Checkpoint, 1) && j.Checkpoint <= j.CheckpointCost:
		return fmt.Errorf("checkpoint interval %.4g h is at or below the checkpoint cost %.4g h: the job would write checkpoints at least half the time; want an interval above the cost (Daly's optimum for the job's interruption rate is usually far above it)", j.Checkpoint, j.CheckpointCost)
	case !(j.SpotPrice >= 0) || !(j.ODPrice > 0):
		return fmt.Errorf("prices: spot %g must be >= 0 and on-demand %g > 0 per node-hour", j.SpotPrice, j.ODPrice)
	}
	return nil
}

// DefaultRuns is the number of simulated runs per policy for a random
// availability model (a band, a hazard, a fitted two-state model): the 95%
// interval of the mean savings is then about ±1% on volatile spot.
const DefaultRuns = 1000

// DefaultOffsetRuns is the number of start offsets per trace when a trace is
// replayed: the 300 random start offsets per trace of Can't Be Late (§6.1).
const DefaultOffsetRuns = 300

// DefaultMaxEvents bounds the events (availability changes, decisions,
// checkpoints; an optimum's grid counts as the events its programme costs
// as much time as) one simulation may process, all runs and policies
// together: some seconds of work on a slow machine.
const DefaultMaxEvents = 100_000_000

// Summary is the Monte Carlo result of one policy.
type Summary struct {
	Policy            string
	Runs              int
	CostMean          float64
	CostP50, CostP95  float64
	SavingsMean       float64 // 1 − cost / on-demand cost
	SavingsCI95       float64 // half-width of the 95% confidence interval of the mean
	POverOnDemand     float64 // share of finished runs that cost more than on-demand alone
	PMeetDeadline     float64
	CompletionMean    float64
	CompletionP95     float64
	InterruptionsMean float64
	SwitchesMean      float64 // changes of mode per run (idle, spot, on-demand), the first launch included
	WastedMean        float64
	Unfinished        int       // runs that never finished (spot never available)
	Costs             []float64 // per run
	Hours             []float64 // per run completion time (Inf: unfinished)
	Switches          []int     // per run
	MaxSavings        float64   // the best any run can do: the spot discount
	// Regret is the run's cost over the hindsight optimum's on the same run,
	// as a share of the optimum's (0.1: 10% more), over the runs in which
	// the policy met the deadline; set only when the optimum was simulated
	// too and such runs exist.
	RegretMean, RegretP95 float64
	HasRegret             bool
	// MovesMean and MoveCostMean, with several zones: the moves between
	// zones per run and the money they cost (transfer; their restart delay
	// is in the cost as any launch's), means over all runs.
	MovesMean, MoveCostMean float64
	Note                    string
}

// Config is one simulation: a job in one zone or several. Without Zones it
// runs in one zone, of Model at the job's prices.
type Config struct {
	Job   Job
	Model Model
	Runs  int // 0: DefaultRuns (DefaultOffsetRuns for a Replay)
	Seed  uint64
	// Offsets, for a Replay model, replays from these start times (hours
	// since the trace start), one run each, instead of random ones.
	Offsets []float64
	// MaxEvents bounds the work of a whole SimulateMany call (the first
	// config's value counts); 0: DefaultMaxEvents.
	MaxEvents int64
	// Zones are where the job may run (Model is then unused; see
	// zones.go): the policies that choose zones use them all, the others
	// the first; one zone is the same as Model at the zone's prices.
	Zones []Zone
	// MoveCost[i][j] is the money one move from zone i to zone j costs (the
	// job's state moved), >= 0; nil: free. A move's delay is Job.Restart (a
	// move is a relaunch elsewhere).
	MoveCost [][]float64
}

// ODCost is the cost of the job on on-demand only: (start-up + work) × nodes × price.
func (j *Job) ODCost() float64 { return (j.Work + j.Startup) * float64(j.Nodes) * j.ODPrice }

// Simulate runs cfg.Runs histories per policy with one random stream per run,
// shared across policies so they face the same histories.
func Simulate(cfg Config, pols []Policy) ([]Summary, error) {
	return SimulateMany([]Config{cfg}, pols, nil)
}

// runStat is what a summary needs of one run.
type runStat struct {
	cost, hours, wasted     float64
	interruptions, switches int
	met                     bool
	od                      float64 // the run's on-demand cost (its true length on on-demand alone, in the cheapest zone)
	moves                   int     // moves between zones
	moveCost                float64 // their transfer money
}

// SimulateMany runs every config (one per trace, say) and summarises each
// policy over all their runs together; progress, if set, is called every
// second or so while the runs go on, from another goroutine (never two
// calls at once), with the runs done, the events processed and the time
// taken (runs never fewer than before), and last with every run done. The
// runs are spread over GOMAXPROCS workers; each has its own seeded
// generator, so the results are those of running them one by one, in the
// same order. The work is bounded by the first config's MaxEvents: a batch
// estimated beyond it (every policy asked for, the optimum too) is refused
// before it starts, and the events are otherwise spent run by run in that
// order: beyond the budget SimulateMany returns a *BudgetError naming the
// same run as one by one.
func SimulateMany(cfgs []Config, pols []Policy, progress func(Progress)) ([]Summary, error) {
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("nothing to simulate")
	}
	for k := range cfgs {
		if cfgs[k].multiZone() != cfgs[0].multiZone() {
			return nil, fmt.Errorf("config %d: one zone among configs of several; give every config its zones", k+1)
		}
	}
	if err := cfgs[0].Job.Validate(); err != nil {
		return nil, err
	}
	cfgs = withZones(cfgs)
	job := cfgs[0].Job.planned()
	budget := cfgs[0].MaxEvents
	if budget <= 0 {
		budget = DefaultMaxEvents
	}
	nodes := make([]int, len(pols))
	for pi, p := range pols {
		nodes[pi] = gangNodes(p, job.Nodes)
	}
	total := 0
	var est work
	for k := range cfgs {
		cfg := &cfgs[k]
		if err := cfg.checkOffsets(); err != nil {
			return nil, fmt.Errorf("config %d: %w", k+1, err)
		}
		for pi, p := range pols {
			if runnable(p, &job) {
				total += cfg.runs()
				est = est.plus(p.estimate(cfg, nodes[pi]).plus(perRun).times(float64(cfg.runs())))
			}
		}
	}
	if est.events > float64(budget) {
		return nil, &BudgetError{Budget: budget, Estimate: est.events, Seconds: est.wall(), Total: total}
	}
	stats := make([][]runStat, len(pols))
	minSpot, minOD := math.Inf(1), math.Inf(1)
	tasks := make([]runTask, 0, total)
	for k := range cfgs {
		cfg := &cfgs[k]
		sp, od := cfg.minPrices()
		minSpot, minOD = math.Min(minSpot, sp), math.Min(minOD, od)
		for pi, p := range pols {
			if !runnable(p, &job) {
				continue
			}
			for _, z := range cfg.Zones {
				if rp, ok := z.Model.(*Replay); ok {
					rp.runsFor(nodes[pi]) // fill the cache before the workers read it
				}
			}
			for i := range cfg.runs() {
				tasks = append(tasks, runTask{int32(k), int32(pi), int32(i)})
			}
		}
	}
	start := time.Now()
	outs, events, err := runParallel(cfgs, pols, nodes, tasks, budget, progress)
	if err != nil {
		return nil, err
	}
	for j, tk := range tasks {
		stats[tk.pol] = append(stats[tk.pol], outs[j].stat)
	}
	if progress != nil {
		progress(Progress{Runs: total, Total: total, Events: events, Budget: budget, Elapsed: time.Since(start)})
	}
	out := make([]Summary, len(pols))
	od := cfgs[0].odCost(job.Work)
	for pi, p := range pols {
		if !runnable(p, &job) {
			out[pi] = Summary{Policy: p.Name(), Note: "needs --deadline"}
			continue
		}
		out[pi] = summarize(p.Name(), stats[pi], od)
		out[pi].MaxSavings = 1 - minSpot/minOD
		if n := float64(len(stats[pi])); n > 0 && cfgs[0].multiZone() {
			var moves, money float64
			for _, st := range stats[pi] {
				moves, money = moves+float64(st.moves), money+st.moveCost
			}
			out[pi].MovesMean, out[pi].MoveCostMean = moves/n, money/n
		}
	}
	for oi, p := range pols {
		if p.hindsight() && len(stats[oi]) > 0 {
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

// regret is the mean and 95th percentile of cost/optimum − 1 over the runs
// in which the policy met the deadline (a run that misses it is not
// comparable: the optimum meets it) and the optimum has a schedule.
func regret(runs, opt []runStat) (mean, p95 float64, ok bool) {
	var xs []float64
	for i, r := range runs {
		o := opt[i]
		if !r.met || math.IsInf(o.hours, 1) || !(o.cost > 0) {
			continue
		}
		xs = append(xs, r.cost/o.cost-1)
	}
	if len(xs) == 0 {
		return 0, 0, false
	}
	for _, x := range xs {
		mean += x
	}
	sort.Float64s(xs)
	return mean / float64(len(xs)), quantile(xs, 0.95), true
}

// summarize computes a policy's statistics; cost and savings describe the
// finished runs (an unfinished job has no price), P(meet) all runs.
func summarize(name string, runs []runStat, od float64) Summary {
	sum := Summary{Policy: name, Runs: len(runs), Costs: make([]float64, len(runs)), Hours: make([]float64, len(runs)), Switches: make([]int, len(runs))}
	var comp, costs []float64
	var sSum, sSq float64
	for i, r := range runs {
		sum.Costs[i], sum.Hours[i], sum.Switches[i] = r.cost, r.hours, r.switches
		if r.met {
			sum.PMeetDeadline++
		}
		sum.InterruptionsMean += float64(r.interruptions)
		sum.SwitchesMean += float64(r.switches)
		sum.WastedMean += r.wasted
		if math.IsInf(r.hours, 1) {
			sum.Unfinished++
			continue
		}
		if r.od > 0 {
			od = r.od
		}
		if r.cost > od*(1+1e-9) {
			sum.POverOnDemand++
		}
		sum.CostMean += r.cost
		s := 1 - r.cost/od
		sSum += s
		sSq += s * s
		comp = append(comp, r.hours)
		costs = append(costs, r.cost)
		sum.CompletionMean += r.hours
	}
	n := float64(len(runs))
	sum.PMeetDeadline /= n
	sum.InterruptionsMean /= n
	sum.SwitchesMean /= n
	sum.WastedMean /= n
	if nf := float64(len(comp)); nf > 0 {
		sum.CostMean /= nf
		sum.CompletionMean /= nf
		sum.POverOnDemand /= nf
		sum.SavingsMean = sSum / nf
		if nf > 1 {
			v := (sSq - sSum*sSum/nf) / (nf - 1)
			sum.SavingsCI95 = 1.96 * math.Sqrt(math.Max(v, 0)/nf)
		}
		sort.Float64s(comp)
		sort.Float64s(costs)
		sum.CompletionP95 = quantile(comp, 0.95)
		sum.CostP50, sum.CostP95 = quantile(costs, 0.5), quantile(costs, 0.95)
	} else {
		sum.CompletionMean, sum.CompletionP95 = math.Inf(1), math.Inf(1)
		sum.CostMean, sum.CostP50, sum.CostP95 = math.NaN(), math.NaN(), math.NaN()
		sum.SavingsMean, sum.SavingsCI95, sum.POverOnDemand = math.NaN(), math.NaN(), math.NaN()
	}
	return sum
}

// quantile of sorted xs by linear interpolation.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}

// Explain simulates one run with its timeline.
func Explain(cfg Config, p Policy) (Result, error) {
	if err := cfg.Job.Validate(); err != nil {
		return Result{}, err
	}
	cfg = cfg.withZones()
	if cfg.multiZone() {
		if err := cfg.checkOffsets(); err != nil {
			return Result{}, err
		}
	}
	budget := cfg.MaxEvents
	if budget <= 0 {
		budget = DefaultMaxEvents
	}
	r, _, exhausted := runOnce(&cfg, p, gangNodes(p, cfg.Job.Nodes), 0, true, budget, nil)
	if exhausted {
		return r, &BudgetError{Budget: budget, Total: 1, Policy: p.Name()}
	}
	return r, nil
}
