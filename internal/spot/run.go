package spot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Policies returns the policies by name; "all" gives every one.
func Policies(names []string, asg ASGMix) ([]Policy, error) {
	all := []Policy{OnDemandOnly{}, SpotOnly{}, Fallback{}, asg, Greedy{}, UniformProgress{}}
	var out []Policy
	for _, n := range names {
		n = strings.TrimSpace(strings.ToLower(n))
		if n == "all" {
			return all, nil
		}
		found := false
		for _, p := range all {
			if p.Name() == n || (n == "up" && p.Name() == "uniform-progress") || (n == "od" && p.Name() == "on-demand") || (n == "asg" && p.Name() == "asg-mix") {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown policy %q; want one of %s or all", n, strings.Join(PolicyNames(), ", "))
		}
	}
	return out, nil
}

// PolicyNames lists the policy names.
func PolicyNames() []string {
	return []string{"on-demand", "spot", "fallback", "asg-mix", "greedy", "uniform-progress"}
}

// Validate checks a job. Errors name the field and what is allowed.
func (j *Job) Validate() error {
	switch {
	case !(j.Work > 0) || math.IsInf(j.Work, 0):
		return fmt.Errorf("work %g h: want a positive duration such as 72h", j.Work)
	case j.Deadline < 0:
		return fmt.Errorf("deadline %g h: want a positive duration", j.Deadline)
	case j.Deadline > 0 && j.Deadline < j.Work:
		return fmt.Errorf("deadline %g h is shorter than the work %g h: even on-demand cannot meet it", j.Deadline, j.Work)
	case j.Nodes < 1 || j.Nodes > 10000:
		return fmt.Errorf("nodes %d: want 1 to 10000", j.Nodes)
	case j.Checkpoint < 0 || j.CheckpointCost < 0 || j.Restart < 0:
		return fmt.Errorf("checkpoint interval, checkpoint cost and restart must be >= 0")
	case !(j.SpotPrice >= 0) || !(j.ODPrice > 0):
		return fmt.Errorf("prices: spot %g must be >= 0 and on-demand %g > 0 per node-hour", j.SpotPrice, j.ODPrice)
	}
	return nil
}

// Summary is the Monte Carlo result of one policy.
type Summary struct {
	Policy            string
	Runs              int
	CostMean          float64
	CostP50, CostP95  float64
	SavingsMean       float64 // 1 − cost / on-demand cost
	SavingsCI95       float64 // half-width of the 95% confidence interval of the mean
	PMeetDeadline     float64
	CompletionMean    float64
	CompletionP95     float64
	InterruptionsMean float64
	WastedMean        float64
	Unfinished        int       // runs that never finished (spot never available)
	Costs             []float64 // per run
	Hours             []float64 // per run completion time (Inf: unfinished)
	MaxSavings        float64   // the best any run can do: the spot discount
	Note              string
}

// Config is one simulation.
type Config struct {
	Job   Job
	Model Model
	Runs  int
	Seed  uint64
	// Offsets, for a Replay model, replays from these start times (hours) instead of random ones.
	Offsets []float64
}

// ODCost is the cost of the job on on-demand only: work × nodes × price.
func (j *Job) ODCost() float64 { return j.Work * float64(j.Nodes) * j.ODPrice }

// Simulate runs cfg.Runs histories per policy with one random stream per run,
// shared across policies so they face the same histories.
func Simulate(cfg Config, pols []Policy) ([]Summary, error) {
	return SimulateMany([]Config{cfg}, pols, nil)
}

// runStat is what a summary needs of one run.
type runStat struct {
	cost, hours, wasted float64
	interruptions       int
	met                 bool
}

// SimulateMany runs every config (one per trace, say) and summarises each
// policy over all their runs together; progress, if set, is called after each
// config with the number done and the total.
func SimulateMany(cfgs []Config, pols []Policy, progress func(done, total int)) ([]Summary, error) {
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("nothing to simulate")
	}
	job := cfgs[0].Job
	if err := job.Validate(); err != nil {
		return nil, err
	}
	stats := make([][]runStat, len(pols))
	minSpot := math.Inf(1)
	for k, cfg := range cfgs {
		if cfg.Runs <= 0 {
			cfg.Runs = 300
		}
		minSpot = math.Min(minSpot, minSpotPrice(cfg))
		for pi, p := range pols {
			if p.NeedsDeadline() && job.Deadline == 0 {
				continue
			}
			nodes := job.Nodes
			if a, ok := p.(ASGMix); ok {
				if _, sp := a.Split(job.Nodes); sp > 0 {
					nodes = sp
				}
			}
			for i := 0; i < cfg.Runs; i++ {
				rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
				r := simulate(&cfg.Job, p, runSource(cfg, rng, nodes, i), false)
				stats[pi] = append(stats[pi], runStat{r.Cost, r.Hours, r.Wasted, r.Interruptions, r.Met})
			}
		}
		if progress != nil {
			progress(k+1, len(cfgs))
		}
	}
	out := make([]Summary, len(pols))
	for pi, p := range pols {
		if p.NeedsDeadline() && job.Deadline == 0 {
			out[pi] = Summary{Policy: p.Name(), Note: "needs --deadline"}
			continue
		}
		out[pi] = summarize(p.Name(), stats[pi], job.ODCost())
		out[pi].MaxSavings = 1 - minSpot/job.ODPrice
	}
	return out, nil
}

// summarize computes a policy's statistics; cost and savings describe the
// finished runs (an unfinished job has no price), P(meet) all runs.
func summarize(name string, runs []runStat, od float64) Summary {
	sum := Summary{Policy: name, Runs: len(runs), Costs: make([]float64, len(runs)), Hours: make([]float64, len(runs))}
	var comp, costs []float64
	var sSum, sSq float64
	for i, r := range runs {
		sum.Costs[i], sum.Hours[i] = r.cost, r.hours
		if r.met {
			sum.PMeetDeadline++
		}
		sum.InterruptionsMean += float64(r.interruptions)
		sum.WastedMean += r.wasted
		if math.IsInf(r.hours, 1) {
			sum.Unfinished++
			continue
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
	sum.WastedMean /= n
	if nf := float64(len(comp)); nf > 0 {
		sum.CostMean /= nf
		sum.CompletionMean /= nf
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
		sum.SavingsMean, sum.SavingsCI95 = math.NaN(), math.NaN()
	}
	return sum
}

func runSource(cfg Config, rng *rand.Rand, nodes, i int) source {
	if rp, ok := cfg.Model.(*Replay); ok && len(cfg.Offsets) > 0 {
		return rp.sourceAt(rp.runsFor(nodes), cfg.Offsets[i%len(cfg.Offsets)])
	}
	return cfg.Model.source(rng, nodes)
}

func minSpotPrice(cfg Config) float64 {
	if rp, ok := cfg.Model.(*Replay); ok && rp.Trace.Prices != nil {
		return rp.runsFor(1).prices.min()
	}
	return cfg.Job.SpotPrice
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
	nodes := cfg.Job.Nodes
	if a, ok := p.(ASGMix); ok {
		if _, sp := a.Split(nodes); sp > 0 {
			nodes = sp
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	return simulate(&cfg.Job, p, runSource(cfg, rng, nodes, 0), true), nil
}
