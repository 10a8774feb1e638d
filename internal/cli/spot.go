package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/form"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/spot"
)

const spotLong = `Simulate a job on spot capacity and compare policies: what spot really saves
for your job and deadline, and at what risk.

Job: --work (hours of compute), --nodes (a gang: all needed at once),
--deadline, --checkpoint (interval, "auto" for Daly's optimum, "none", or
"continuous" for free checkpoints), --checkpoint-cost, --restart (the
changeover delay after an interruption or a switch), spot and on-demand prices
per node-hour (--offering, or --spot-price/--od-price; a trace's own prices
are used where it has them).

Uncertain length: --work 40h..56h (uniform) or --work-runs 41h,44h,52h (past
runs, each equally likely), with --plan-quantile Q (default 1): the policies
plan on that quantile of the length, and on the longest once a run outlasts
it; each run draws its true length (the same for every policy), so P(MEET)
shows the chance of missing the deadline when the job turns out longer.

Availability, one of:
  --band 10-15%     an AWS Spot Advisor band (per month) → hazard λ = −ln(1−p)/730 h at the
                    band's midpoint (the lower bound for >20%); the conversion is printed
  --hazard 0.001    interruptions per hour per instance; or --mtbf 300h
  --trace FILE      a Can't Be Late trace (metadata.gap_seconds, data = instances
                    available, prices optional), replayed from random start offsets;
                    --trace-mode fit replaces it by a two-state model fitted to it;
                    --offsets 0h,12.5h,... or --offsets @FILE (one per line) replays
                    from those start times instead, one run each into each trace, and
                    lists every run in -o json (to pair with another simulator's runs)
  (--down 30m: mean unavailability after an interruption, for --band/--hazard/--mtbf)
With --offering and no availability flag, the offering's Spot Advisor band is used.

Policies (--policy NAME,... or all): on-demand; spot (waits while spot is
unavailable); fallback (on-demand while spot is unavailable, back to spot when
it returns, Karpenter-style); asg-mix (an Auto Scaling mix: --od-base nodes on
on-demand plus --od-percent of the rest; spot nodes are replaced after an
interruption, the gang waits meanwhile; no deadline logic); greedy (spot when
available, else wait, with a safety net that moves to on-demand in time for the
deadline); uniform-progress (Can't Be Late, NSDI '24: on-demand when behind
the progress line t·work/deadline while spot is unavailable, spot whenever it
is available except that, once on on-demand, it stays there until two
changeovers ahead of the line); uniform-progress-lite (gpuscout's earlier,
looser variant: it leaves on-demand as soon as spot returns and idles once
ahead; it saves a little more on average but switches far more often and costs
more than on-demand alone in more runs: see the ABOVE OD column). "all" is
every one of these; add optimal (--policy all,optimal) for the hindsight
optimum: per run, the cheapest schedule that meets the deadline knowing the
run's whole availability in advance (dynamic programming on the trace's ticks,
0.1 h steps for a random model), and every policy's REGRET over it, the cost
above the optimum's on the same run (mean and p95): is the policy the problem,
or the market?

Several zones (--regions POLICY,...): give one --trace per zone (files or a
folder; the zone and region come from the file name, us-east-1a_v100_1.json →
us-east-1a in us-east-1), paired by time from their starts (the same tick
needed; different lengths are cut to the common span, and a note says so). The
job may run in any zone; a move to another zone pays the --restart delay and
the transfer of its state: --move-gb GB at --move-price per GB, or for AWS
zones the catalog's transfer prices (cross-zone, billed both ways;
cross-region). Policies: failover (on preemption, the cheapest zone with spot
up; idle while none is), round-robin (the next zone in order with spot up),
cheapest-first (also moves while running when a cheaper zone has spot up and
the saving over the remaining work exceeds the move's cost), failover-deadline
(failover with uniform-progress's deadline rules: on-demand in the zone where
the rest costs least), all, and optimal (the hindsight optimum across the
zones). --offering prices each zone with the instance in its own region.
--policy adds single-zone policies, which run in the first zone. SAVINGS are
against on-demand in the cheapest zone; MOVES and MOVE COST are per run.

Every launch pays the --restart delay without progress, the first one too, as
in Can't Be Late, so on-demand alone costs (work + restart) × on-demand price.
ABOVE OD is the share of runs that cost more than that; SWITCHES the changes
between idle, spot and on-demand per run (interruptions are not counted).

The article's scenario, "15% interruption, Spot + On-Demand with Auto Scaling:
−62% cost, 98% completion", on an 8×A100 p4d node in us-east-1 (Spot Advisor
band 10-15%), a 72 h job due in 100 h:

  gpuscout spot --offering aws/p4d.24xlarge/us-east-1 --work 72h --deadline 100h --band 10-15% --policy all

Savings can never exceed the spot discount: 70% in the cheapest zone of the
catalog, 36% in the dearest, so −62% needs nearly every hour on spot in a cheap
zone. A monthly 10-15% band is a rare interruption (λ ≈ 1.8e-4/h at the
midpoint, about one in 5,500 h), so every policy gets close to the discount and
all complete; a 15% band does not explain a 2% failure rate. Completion below
100% appears when spot is scarce for long stretches — replay real traces
(--trace ../shared/data/spot-traces) — and the policy has no deadline logic
(spot, asg-mix: Auto Scaling replaces lost spot with spot and never substitutes
on-demand). There, deadline-aware policies (greedy, uniform-progress) still
complete 100% but save far less. Treat "−62%, 98%" as a scenario, not a
measurement.`

type spotFlags struct {
	catalogFlags
	// Durations, parsed by the shared flag type; .text keeps what the user wrote for messages.
	work, deadline, ckptCost, restart, down, mtbf     *hoursValue
	checkpoint                                        string // a duration, auto, none or continuous
	band, traceMode, offering, policy, chart, offsets string
	regions                                           string  // --regions: the multi-zone policies
	moveGB, movePrice                                 float64 // --move-gb, --move-price
	traces                                            []string
	workLen                                           *workValue // --work as a duration or a range
	workRuns                                          []float64  // --work-runs
	hazard, spotPrice, odPrice, odPercent, planQ      float64
	nodes, runs, odBase                               int
	maxEvents                                         int64
	seed                                              uint64
	explain, runsSet                                  bool
}

// newSpotFlags returns the flags with their defaults.
func newSpotFlags() spotFlags {
	f := spotFlags{
		work: newHours(new(float64), false, cost.MaxDurationHours), deadline: newHours(new(float64), false, cost.MaxHorizonMonths*catalog.HoursPerMonth),
		ckptCost: newHours(new(float64), true, cost.MaxDurationHours), restart: newHours(new(float64), true, cost.MaxDurationHours),
		down: newHours(new(float64), true, cost.MaxDurationHours), mtbf: newHours(new(float64), false, cost.MaxDurationHours),
		checkpoint: "auto", traceMode: "replay", policy: "all", nodes: 1, runs: spot.DefaultRuns, seed: 1, maxEvents: spot.DefaultMaxEvents,
	}
	f.workLen = &workValue{h: f.work}
	f.planQ = 1
	_ = f.ckptCost.Set("5m")
	_ = f.restart.Set("10m")
	return f
}

// spotJob turns the job flags into a spot.Job: parsing and the checks that
// relate flags to each other; the job's own ranges are spot.Job.Validate's.
// It is pure: changed says which flags the user set.
func spotJob(f *spotFlags, changed func(string) bool) (spot.Job, error) {
	var job spot.Job
	switch {
	case changed("work") && changed("work-runs"):
		return job, usagef("--work %s and --work-runs: give one, the work or the past runs' lengths", f.work.Text)
	case !changed("work") && !changed("work-runs"):
		return job, usagef("--work is required: the hours of compute the job needs, e.g. --work 72h, or a range --work 40h..56h, or past runs --work-runs 41h,44h,52h")
	case changed("plan-quantile") && !f.workLen.ranged && !changed("work-runs"):
		return job, usagef("--plan-quantile %g needs an uncertain length: --work MIN..MAX or --work-runs", f.planQ)
	}
	job.Work, job.Nodes = *f.work.P, f.nodes
	if f.workLen.ranged || changed("work-runs") {
		job.Length, job.PlanQuantile = &spot.Length{Lo: f.workLen.lo, Hi: f.workLen.hi, Runs: f.workRuns}, f.planQ
		job.Work = job.Length.Quantile(f.planQ) // what the policies plan on
		f.work.Text = fmt.Sprintf("%s (its %g quantile, %s)", f.workLen.h.Text, f.planQ, humanHours(job.Work))
		if changed("work-runs") {
			f.work.Text = fmt.Sprintf("the %g quantile of --work-runs, %s", f.planQ, cost.FormatHours(job.Work))
		}
	}
	// The gang's launches, the first included, as advise and cost price them.
	j := cost.SpotJob(job.Work, 0, job.Nodes, cost.SpotAssumptions{RestartHours: *f.restart.P}, 1)
	job.Restart, job.Startup, job.CheckpointCost = j.Restart, j.Startup, *f.ckptCost.P
	if changed("deadline") {
		job.Deadline = *f.deadline.P
		if job.Deadline < job.Work {
			return job, usagef("--deadline %s is shorter than --work %s: even on-demand cannot meet it", f.deadline.Text, f.work.Text)
		}
		if job.Deadline < job.Work+job.Startup {
			return job, usagef("--deadline %s is shorter than --work %s plus one --restart %s (the first launch's start-up, %s for --nodes %d): even on-demand cannot meet it", f.deadline.Text, f.work.Text, f.restart.Text, humanHours(job.Startup), job.Nodes)
		}
	}
	return job, nil
}

func newSpotCmd(e *env) *cobra.Command {
	f := newSpotFlags()
	cmd := &cobra.Command{
		Use:   "spot",
		Short: "Simulate spot interruptions, checkpointing and deadline-aware policies",
		Long:  spotLong,
		Example: `  gpuscout spot --offering aws/p4d.24xlarge/us-east-1 --work 72h --deadline 100h --band 10-15%
  gpuscout spot --work 48h --deadline 52h --trace trace.json --spot-price 0.918 --od-price 3.06 --policy all --runs 300
  gpuscout spot --work 48h --deadline 52h --trace trace.json --spot-price 0.918 --od-price 3.06 --policy all,optimal
  gpuscout spot --work 40h..56h --plan-quantile 0.9 --deadline 60h --trace trace.json --spot-price 0.918 --od-price 3.06 --policy uniform-progress
  gpuscout spot --work 48h --deadline 52h --mtbf 3h --spot-price 0.918 --od-price 3.06 --checkpoint auto --checkpoint-cost 5m --restart 10m --explain --policy uniform-progress
  gpuscout spot --work 48h --deadline 52h --trace us-east-1a_v100_1.json,us-east-1c_v100_1.json --regions failover,failover-deadline,optimal --spot-price 0.918 --od-price 3.06 --move-gb 50
  gpuscout spot ... -o json ; gpuscout spot ... --chart spot.svg`,
		Args: noArgs,
	}
	getFormat := outputFlag(cmd)
	wide := wideFlag(cmd)
	f.catalogFlags.register(cmd)
	fl := cmd.Flags()
	fl.Var(f.workLen, "work", "hours of compute the job needs, e.g. 72h or 3d, or an uncertain length as a uniform range, 40h..56h (required unless --work-runs)")
	fl.Var(&durationsValue{hs: &f.workRuns, max: cost.MaxDurationHours, maxN: spot.MaxLengthRuns}, "work-runs", "an uncertain length as past runs' lengths, e.g. 41h,44h,52h (each run draws one)")
	fl.Var(form.Float(&f.planQ, 0, 1, true, ""), "plan-quantile", "with an uncertain length: the policies plan on this quantile of it, above 0 and at most 1 (default 1: the longest)")
	fl.Var(f.deadline, "deadline", "time from the start by which the job must finish, at most 10y (as advise)")
	fl.Var(form.Int(&f.nodes, 1, 100000), "nodes", "nodes the job needs at once (gang), 1 to 100000")
	fl.Var(form.Band(&f.band), "band", "AWS Spot Advisor interruption band per month: <5%, 5-10%, 10-15%, 15-20%, >20%")
	fl.Var(form.Float(&f.hazard, 0, 1000, true, ""), "hazard", "interruptions per hour per instance (above 0, at most 1000)")
	fl.Var(f.mtbf, "mtbf", "mean time between interruptions per instance, e.g. 300h")
	fl.Var(f.down, "down", "mean time spot stays unavailable after an interruption (with --band/--hazard/--mtbf); 0 allowed")
	fl.StringSliceVar(&f.traces, "trace", nil, "availability trace(s) (Can't Be Late JSON) to replay: files or folders, comma-separated or repeated")
	fl.StringVar(&f.traceMode, "trace-mode", "replay", "replay the trace, or fit a two-state model to it")
	fl.StringVar(&f.offsets, "offsets", "", "replay from these start times, one run each, into each trace: 0h,12.5h,... or @FILE (one per line); JSON then lists every run")
	fl.StringVar(&f.offering, "offering", "", "prices (and Spot Advisor band) from an offering: provider/instance[/region]")
	fl.Var(form.Float(&f.spotPrice, 0, maxHourlyPrice, true, ""), "spot-price", "spot price per node-hour (in --currency)")
	fl.Var(form.Float(&f.odPrice, 0, maxHourlyPrice, true, ""), "od-price", "on-demand price per node-hour (in --currency)")
	fl.StringVar(&f.checkpoint, "checkpoint", "auto", "checkpoint interval: a duration, auto (Daly's optimum), none, or continuous")
	fl.Var(f.ckptCost, "checkpoint-cost", "time to write one checkpoint (default 5m; 0 allowed)")
	fl.Var(f.restart, "restart", "changeover delay: from an interruption or switch to progress again, per instance (default 10m; 0 allowed); a gang of --nodes N waits for the last, N's harmonic number times it (advise and cost use the same)")
	fl.StringVar(&f.policy, "policy", "all", "policies: "+strings.Join(spot.PolicyNames(), ", ")+", or all; optimal adds the hindsight optimum and each policy's regret over it")
	fl.Var(form.Int(&f.runs, 1, 10_000_000), "runs", fmt.Sprintf("simulated runs per policy, 1 to 10000000 (default %d; a trace: %d start offsets per trace unless set)", spot.DefaultRuns, spot.DefaultOffsetRuns))
	fl.Var(&seedValue{n: &f.seed}, "seed", "random seed, 0 to 2^64-1 (the same seed gives the same results)")
	fl.Var(form.Int(&f.odBase, 0, 100000), "od-base", "asg-mix: on-demand base capacity (nodes)")
	fl.Var(form.Float(&f.odPercent, 0, 100, false, ""), "od-percent", "asg-mix: on-demand percentage above the base, 0 to 100")
	fl.StringVar(&f.regions, "regions", "", "several zones: one --trace per zone, and the multi-zone policies: "+strings.Join(spot.ZonePolicyNames(), ", ")+", all, or optimal (the optimum across zones)")
	fl.Var(form.Float(&f.moveGB, 0, maxMoveGB, false, ""), "move-gb", fmt.Sprintf("with --regions: GB of job state each move between zones copies, 0 to %g (default 0: moves pay only their restart delay)", float64(maxMoveGB)))
	fl.Var(form.Float(&f.movePrice, 0, maxMovePrice, false, ""), "move-price", fmt.Sprintf("with --move-gb: price per GB moved (in --currency), 0 to %d; default: the catalog's transfer prices for AWS zones", maxMovePrice))
	fl.BoolVar(&f.explain, "explain", false, "print the timeline of one run of each policy")
	fl.Var(&countValue{n: &f.maxEvents, min: 1000, max: 10_000_000_000}, "max-events", "stop with an error beyond this many simulation events (checkpoints, availability changes; the hindsight optimum's programme as the events that take as long), all runs together: 1000 to 10000000000")
	fl.Var(&outPathValue{p: &f.chart, exts: []string{".svg"}}, "chart", "write a strip chart of the run costs per policy, with P(meet the deadline), as SVG to this file (.svg)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		f.runsSet = cmd.Flags().Changed("runs")
		in, err := f.prepare(cmd.Flags().Changed)
		if err != nil {
			return err
		}
		var progress func(spot.Progress)
		if progressTTY(e.stderr) {
			bar := progressBar(e.stderr, time.Now())
			progress = func(p spot.Progress) {
				bar(p.Runs, p.Total, fmt.Sprintf("simulating: %.3g events in %v; runs", float64(p.Events), p.Elapsed.Round(time.Second)))
			}
		}
		sums, err := spot.SimulateMany(in.cfgs, in.pols, progress)
		if err != nil {
			return f.budgetHint(err, in)
		}
		if f.chart != "" {
			if err := writeSpotChart(f.chart, sums, in); err != nil {
				return err
			}
		}
		out := spotOutput(sums, in)
		if f.explain && format != "json" {
			t := spotTable(out, in)
			for _, p := range in.pols {
				r, err := spot.Explain(in.cfg, p)
				if err != nil {
					return f.budgetHint(err, in)
				}
				t.Notes = append(t.Notes, "", fmt.Sprintf("Timeline of one run, %s (cost %s, %s):", p.Name(), fmtMoneyF(r.Cost, in.currency), fmtRunEnd(r)))
				for i, ev := range r.Events {
					if i == 80 {
						t.Notes = append(t.Notes, fmt.Sprintf("    ... %d more events", len(r.Events)-80))
						break
					}
					detail := ev.Detail
					if ev.What == "move" {
						detail = strings.Replace(detail, " transfer", " "+in.currency+" transfer", 1)
					}
					t.Notes = append(t.Notes, fmt.Sprintf("    %8.2f h  %-12s %s", ev.T, ev.What, detail))
				}
			}
			return e.writeFitted(format, t, out, *wide)
		}
		return e.writeFitted(format, spotTable(out, in), out, *wide)
	}
	cmd.AddCommand(newSpotSynthCmd(e))
	return cmd
}

func fmtRunEnd(r spot.Result) string {
	if math.IsInf(r.Hours, 1) {
		return "did not finish"
	}
	s := fmt.Sprintf("done after %.2f h, %d interruption(s)", r.Hours, r.Interruptions)
	if !r.Met {
		s += ", deadline missed"
	}
	return s
}

func fmtMoneyF(v float64, c string) string {
	return money.Format(decimal.NewFromFloat(v), money.Currency(c))
}

type spotInputs struct {
	cfg          spot.Config   // the job and the first model
	cfgs         []spot.Config // one per trace (or just cfg)
	pols         []spot.Policy
	currency     string
	model        string
	ckptMode     string
	traceNotes   []string // what a reader of the results must know about the traces (shorter than the job)
	bandNote     string
	hazard       float64 // per instance per hour (0 for traces)
	multi        []spot.Model
	multiNote    string
	priceSources []string
	traceNames   []string    // one per config, for replays
	offsets      []float64   // --offsets, or nil
	zones        *zoneInputs // --regions: several zones, or nil
}

// parseHoursOrZero is parseHours where zero, with or without a unit ("0",
// "0m", "0s"), is allowed.
func parseHoursOrZero(flag, s string) (float64, error) {
	h, err := cost.ParseNonNegativeDuration(s)
	if err != nil {
		return 0, usagef("--%s: %v", flag, err)
	}
	return h, nil
}

func parseHours(flag, s string) (float64, error) {
	h, err := cost.ParseDuration(s)
	if err != nil {
		return 0, usagef("--%s: %v", flag, err)
	}
	return h, nil
}

// maxHourlyPrice bounds a price per node-hour given on the command line
// (money.MaxHourly: 100,000 an hour in any currency).
var maxHourlyPrice = money.MaxHourly.InexactFloat64()

func (f *spotFlags) prepare(changed func(string) bool) (*spotInputs, error) {
	in := &spotInputs{}
	l, err := f.load()
	if err != nil {
		return nil, err
	}
	in.currency = string(l.currency)
	if in.cfg.Job, err = spotJob(f, changed); err != nil {
		return nil, err
	}
	job := &in.cfg.Job
	// Prices and the offering's band, decided by the catalog as for offers, cost and advise.
	var band *catalog.BandChoice
	if f.offering != "" {
		o, err := findOffering(l, f.offering)
		if err != nil {
			return nil, err
		}
		p, err := spot.PriceOffering(l.cat, l.fx, l.currency, o)
		if err != nil {
			return nil, asUsage(err)
		}
		band = &p.Band
		job.ODPrice, job.SpotPrice = p.OnDemand, p.Spot // one instance is one node
		for _, src := range []string{p.ODSource, p.SpotSource} {
			if src != "" {
				in.priceSources = append(in.priceSources, src)
			}
		}
	}
	if changed("spot-price") {
		job.SpotPrice = f.spotPrice
		in.priceSources = append(in.priceSources, "spot from --spot-price")
	}
	if changed("spot-price") && changed("od-price") && f.spotPrice > f.odPrice {
		return nil, usagef("--spot-price %g is above --od-price %g: spot never costs more than on-demand (AWS and Azure cap it there; the others sell it at a discount); check the two prices", f.spotPrice, f.odPrice)
	}
	if changed("od-price") {
		job.ODPrice = f.odPrice
		in.priceSources = append(in.priceSources, "on-demand from --od-price")
	}
	// Availability model.
	n := 0
	for _, set := range []bool{changed("band"), changed("hazard"), changed("mtbf"), len(f.traces) > 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return nil, usagef("give one availability model: --band, --hazard, --mtbf or --trace")
	}
	switch {
	case changed("regions") && len(f.traces) == 0:
		return nil, usagef("--regions %s needs the traces of two or more zones in --trace, one file per zone (e.g. --trace us-east-1a_v100_1.json,us-east-1c_v100_1.json)", f.regions)
	case !changed("regions") && (changed("move-gb") || changed("move-price")):
		return nil, usagef("--move-gb and --move-price need --regions: moves happen only between several zones")
	}
	down := *f.down.P
	switch {
	case len(f.traces) > 0:
		paths, err := expandTraces(f.traces)
		if err != nil {
			return nil, err
		}
		var models []spot.Model
		var names []string
		for _, path := range paths {
			tr, err := spot.LoadTrace(path)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, usagef("--trace %s: no such file", path)
				}
				return nil, asUsage(err)
			}
			names = append(names, path)
			if m := tr.MaxUp(); job.Nodes > m {
				return nil, usagef("--nodes %d: the trace %s never has more than %d instance(s) up at once: a gang of %d could never run on spot; want --nodes at most %d", job.Nodes, path, m, job.Nodes, m)
			}
			if h := max(job.Deadline, job.Work); h > tr.Hours() {
				in.traceNotes = append(in.traceNotes, fmt.Sprintf("%s covers %.1f h, less than the job's %.1f h: a run wraps around to the trace's start and meets its own history again", path, tr.Hours(), h))
			}
			switch f.traceMode {
			case "replay":
				models = append(models, spot.NewReplay(tr))
				if tr.Prices != nil && !changed("spot-price") && len(paths) == 1 {
					var sum float64
					for _, p := range tr.Prices {
						sum += p
					}
					job.SpotPrice = sum / float64(len(tr.Prices))
					in.priceSources = append(in.priceSources, "spot from the trace's own prices (USD), tick by tick")
				}
			case "fit":
				up, dn := tr.RunsFor(job.Nodes).Fit()
				if up == 0 {
					return nil, usagef("--trace %s: spot is never available for %d node(s); nothing to fit", path, job.Nodes)
				}
				models = append(models, spot.TwoState{MeanUp: up, MeanDown: dn, Origin: "fitted to " + path})
			default:
				return nil, usagef("--trace-mode %q: want replay or fit", f.traceMode)
			}
		}
		in.cfg.Model = models[0]
		in.traceNames = names
		if f.offsets != "" {
			if f.traceMode != "replay" {
				return nil, usagef("--offsets needs --trace-mode replay: a fitted model has no start times")
			}
			if f.runsSet {
				return nil, usagef("--offsets and --runs: give one; with --offsets each start time is one run")
			}
			offs, where, err := parseOffsets(f.offsets)
			if err != nil {
				return nil, err
			}
			for i, m := range models {
				if err := checkOffsets(offs, where, names[i], m.(*spot.Replay).Trace.Hours()); err != nil {
					return nil, err
				}
			}
			in.offsets = offs
			in.cfg.Offsets = offs
			in.cfg.Runs = len(offs)
		}
		if len(models) > 1 {
			in.multi = models
			in.multiNote = fmt.Sprintf("%d traces (%s ... %s), each from its own start offsets, pooled", len(models), names[0], names[len(names)-1])
		}
		if changed("regions") {
			if err := f.prepareZones(in, l, paths, models, changed); err != nil {
				return nil, err
			}
		}
		if !f.runsSet && in.offsets == nil {
			in.cfg.Runs = spot.DefaultOffsetRuns // the paper's 300 start offsets per trace
		}
	case f.offsets != "":
		return nil, usagef("--offsets needs --trace: start times are times into a trace")
	case changed("hazard"):
		in.hazard = f.hazard
		in.cfg.Model = spot.Hazard{PerHour: f.hazard, Down: down, Origin: "--hazard"}
	case changed("mtbf"):
		m := *f.mtbf.P
		if err != nil {
			return nil, err
		}
		in.hazard = 1 / m
		in.cfg.Model = spot.Hazard{PerHour: 1 / m, Down: down, Origin: "--mtbf " + f.mtbf.Text}
	default:
		label, origin := f.band, "--band "+f.band
		if label == "" && band != nil {
			label, origin = band.Label, band.Origin
		}
		if label == "" {
			return nil, usagef("give an availability model: --band 10-15%%, --hazard, --mtbf or --trace (or an --offering with Spot Advisor data)")
		}
		model, note, err := spot.BandModel(label, origin, down)
		if err != nil {
			return nil, usagef("--band: %v", err)
		}
		in.hazard, in.bandNote, in.cfg.Model = model.PerHour, note, model
	}
	if job.ODPrice == 0 || (job.SpotPrice == 0 && !strings.Contains(strings.Join(in.priceSources, " "), "trace")) {
		return nil, usagef("prices are missing: give --offering (with a sourced on-demand and spot price) or --spot-price and --od-price")
	}
	// Checkpointing.
	mtbf := in.cfg.Model.MTBF(job.Nodes)
	if in.zones != nil {
		mtbf = zonesMTBF(in.cfg.Zones, job.Nodes)
	}
	switch f.checkpoint {
	case "auto":
		job.Checkpoint, in.ckptMode = autoCheckpoint(job, mtbf, f.ckptCost.Text)
		if in.zones != nil {
			in.ckptMode = strings.Replace(in.ckptMode, "job MTBF", "job MTBF pooled across the zones", 1)
		}
	case "none":
		job.Checkpoint, in.ckptMode = math.Inf(1), "none: an interruption loses all work"
	case "continuous":
		job.Checkpoint, in.ckptMode = 0, "continuous: an interruption loses no work"
	default:
		if job.Checkpoint, err = cost.ParseNonNegativeDuration(f.checkpoint); err != nil {
			return nil, usagef("--checkpoint %q: want a duration, auto, none or continuous", f.checkpoint)
		}
		if job.Checkpoint == 0 {
			// Zero is continuous checkpointing, which is free: consistent only
			// with a free checkpoint (an interval at or below a checkpoint's
			// cost is refused, and 1m was while 0s passed).
			if *f.ckptCost.P > 0 {
				return nil, usagef("--checkpoint %s: an interval of zero writes checkpoints continuously, for free, but each costs --checkpoint-cost %s; write --checkpoint continuous for that model, or an interval above the cost", f.checkpoint, f.ckptCost.Text)
			}
			in.ckptMode = "continuous: an interruption loses no work"
			break
		}
		in.ckptMode = fmt.Sprintf("every %.3f h of work", job.Checkpoint)
	}
	if in.cfg.Runs == 0 {
		in.cfg.Runs = f.runs
	}
	in.cfg.Seed = f.seed
	if f.maxEvents < 1000 || f.maxEvents > 10_000_000_000 {
		return nil, usagef("--max-events %d: want 1000 to 10000000000", f.maxEvents)
	}
	in.cfg.MaxEvents = f.maxEvents
	if c := job.Checkpoint; c > 0 && !math.IsInf(c, 1) && c <= job.CheckpointCost {
		return nil, usagef("--checkpoint %s (%.4g h) is at or below --checkpoint-cost %s (%.4g h): the job would spend at least half its time writing checkpoints; want an interval above the cost, or --checkpoint auto for Daly's optimum",
			f.checkpoint, c, f.ckptCost.Text, job.CheckpointCost)
	}
	asg := spot.ASGMix{OnDemandBase: f.odBase, OnDemandPercent: f.odPercent}
	if in.zones != nil {
		if in.pols, err = f.zonePolicies(changed, asg); err != nil {
			return nil, err
		}
	} else if in.pols, err = spot.Policies(strings.Split(f.policy, ","), asg); err != nil {
		return nil, usagef("--policy: %v", err)
	}
	for _, p := range in.pols {
		if _, opt := p.(spot.Optimal); !opt && spot.ZoneAware(p) && in.multi != nil {
			return nil, usagef("--policy %s moves between zones: give the zones' traces with --regions %s, or leave it out to pool the traces as independent runs", p.Name(), p.Name())
		}
	}
	if err := job.Validate(); err != nil {
		return nil, asUsage(err)
	}
	in.model = in.cfg.Model.Describe(job.Nodes)
	if len(in.traceNotes) > 0 {
		in.model += "; " + strings.Join(in.traceNotes, "; ")
	}
	if in.multi != nil {
		in.model = "replay of " + in.multiNote
	}
	if in.zones != nil {
		in.model = in.zones.pairing
	}
	in.cfgs = []spot.Config{in.cfg}
	lo, hi := in.cfg.Job.Checkpoint, in.cfg.Job.Checkpoint
	for i, m := range in.multi {
		if i == 0 {
			continue
		}
		c := in.cfg
		c.Model = m
		if f.checkpoint == "auto" {
			c.Job.Checkpoint, _ = autoCheckpoint(&c.Job, m.MTBF(job.Nodes), f.ckptCost.Text)
			lo, hi = math.Min(lo, c.Job.Checkpoint), math.Max(hi, c.Job.Checkpoint)
		}
		in.cfgs = append(in.cfgs, c)
	}
	if len(in.multi) > 1 && f.checkpoint == "auto" {
		in.ckptMode = fmt.Sprintf("auto per trace: Daly's optimum for each trace's MTBF (capped at half the deadline slack), %.3f-%.3f h", lo, hi)
	}
	return in, nil
}

// budgetHint words a simulation over its event budget as what to change.
func (f *spotFlags) budgetHint(err error, in *spotInputs) error {
	var be *spot.BudgetError
	if !errors.As(err, &be) {
		return asUsage(err)
	}
	raise := fmt.Sprintf("raise --max-events (now %d) and wait longer", f.maxEvents)
	if events, seconds, ok := be.Need(); ok && events <= 1e10 {
		p := math.Pow(10, math.Floor(math.Log10(events))-1) // two significant digits, rounded up
		raise = fmt.Sprintf("raise --max-events (now %d) to %d and wait %s", f.maxEvents, int64(math.Ceil(events/p)*p), spot.About(seconds))
	} else if ok {
		raise = fmt.Sprintf("shorten the job: it needs about %.2g events (%s), beyond the most --max-events allows, 10000000000", events, spot.About(seconds))
	}
	return usagef("%v; to fit, lower --runs (now %d per policy and trace) or --policy, lengthen --checkpoint (now %s), replay a trace with coarser ticks, or %s",
		err, in.cfg.Runs, in.ckptMode, raise)
}

// autoCheckpoint is spot.AutoCheckpoint's interval with the words that say
// how it came, for the job's MTBF.
func autoCheckpoint(job *spot.Job, mtbf float64, costFlag string) (float64, string) {
	ch := spot.AutoCheckpoint(job, mtbf)
	if math.IsInf(ch.Interval, 1) {
		return ch.Interval, "none (no interruptions expected)"
	}
	note := fmt.Sprintf("auto: Daly's optimum for checkpoint cost %s and job MTBF %.2f h = %.3f h (Young: %.3f h)", costFlag, mtbf, ch.Daly, spot.Young(ch.Cost, mtbf))
	if ch.CappedBySlack {
		note += fmt.Sprintf(", capped at half the deadline slack: %.3f h", ch.Interval)
	}
	if ch.RaisedToCost {
		note += fmt.Sprintf(", raised to twice the checkpoint cost: %.3f h", ch.Interval)
	}
	return ch.Interval, note
}

// expandTraces turns files and folders into the list of trace files, sorted.
func expandTraces(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, usagef("--trace %s: no such file or folder", a)
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				found = append(found, p)
			}
			return nil
		})
		if len(found) == 0 {
			return nil, usagef("--trace %s: no .json traces in the folder", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// findOffering resolves --offering to one offering: in its region, or in
// the cheapest region when none is given. Its spot price is the catalog's
// quote for that region (SpotQuoteFor), as everywhere else.
func findOffering(l *loadedCatalog, spec string) (*catalog.Offering, error) {
	o, err := l.cat.FindOffering(spec, l.fx, l.currency)
	if err != nil {
		return nil, usagef("--offering %v", err)
	}
	return o, nil
}

type spotPolicyJSON struct {
	Name                string   `json:"name"`
	CostMean            *float64 `json:"cost_mean"`
	CostP50             *float64 `json:"cost_p50"`
	CostP95             *float64 `json:"cost_p95"`
	SavingsVsOnDemand   *float64 `json:"savings_vs_ondemand"`
	SavingsCI95         *float64 `json:"savings_ci95"`
	PAboveOnDemand      *float64 `json:"p_above_ondemand"`
	SwitchesMean        *float64 `json:"switches_mean"`
	PMeetDeadline       *float64 `json:"p_meet_deadline"`
	CompletionHoursMean *float64 `json:"completion_hours_mean"`
	CompletionHoursP95  *float64 `json:"completion_hours_p95"`
	InterruptionsMean   *float64 `json:"interruptions_mean"`
	WastedHoursMean     *float64 `json:"wasted_hours_mean"`
	Unfinished          int      `json:"unfinished_runs"`
	// RegretMean and RegretP95, with the optimal policy simulated too: the
	// run's cost over the hindsight optimum's on the same run, as a share of it.
	RegretMean *float64 `json:"regret_mean,omitempty"`
	RegretP95  *float64 `json:"regret_p95,omitempty"`
	// MovesMean and MoveCostMean, with --regions, for the policies that
	// choose zones: moves between zones per run and the money of their
	// transfer per run (means over all runs).
	MovesMean    *float64 `json:"moves_mean,omitempty"`
	MoveCostMean *float64 `json:"move_cost_mean,omitempty"`
	// FirstZoneOnly, with --regions: the policy does not choose zones and ran in the first one.
	FirstZoneOnly bool   `json:"first_zone_only,omitempty"`
	Currency      string `json:"currency"`
	Note          string `json:"note,omitempty"`
	// PerRun, with --offsets, is every run in order (trace by trace, then
	// start time by start time), to pair with another simulator's runs.
	PerRun []spotRunJSON `json:"runs,omitempty"`
}

// spotRunJSON is one run of a policy from a given start time into a trace.
type spotRunJSON struct {
	Trace       string   `json:"trace"`
	OffsetHours float64  `json:"offset_hours"`
	Cost        *float64 `json:"cost"`  // null: never finished
	Hours       *float64 `json:"hours"` // null: never finished
	Switches    int      `json:"switches"`
}

type spotJSON struct {
	Policies []spotPolicyJSON `json:"policies"`
	Inputs   map[string]any   `json:"inputs"`
}

func fp(v float64, digits int) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	p := math.Pow(10, float64(digits))
	r := math.Round(v*p) / p
	return &r
}

func spotOutput(sums []spot.Summary, in *spotInputs) spotJSON {
	j := in.cfg.Job
	ck := j.Checkpoint
	var ckp any = ck
	if math.IsInf(ck, 1) {
		ckp = nil
	}
	out := spotJSON{Inputs: map[string]any{
		"work_hours": j.Work, "deadline_hours": j.Deadline, "nodes": j.Nodes, "model": in.model,
		"hazard_per_hour": in.hazard, "job_mtbf_hours": fp(in.cfg.Model.MTBF(j.Nodes), 3), "band_conversion": in.bandNote,
		"checkpoint_interval_hours": ckp, "checkpoint": in.ckptMode, "checkpoint_cost_hours": j.CheckpointCost, "restart_hours": j.Restart, "startup_hours": j.Startup,
		"spot_price": j.SpotPrice, "od_price": j.ODPrice, "currency": in.currency, "ondemand_cost": fp(j.ODCost(), 4),
		"spot_discount": fp(1-j.SpotPrice/j.ODPrice, 4), "runs": in.cfg.Runs, "seed": in.cfg.Seed, "offsets_hours": in.offsets, "price_sources": in.priceSources,
	}}
	if n := lengthNote(&j); n != "" {
		out.Inputs["work_length"] = n
	}
	if in.zones != nil {
		addZoneInputs(out.Inputs, in)
	}
	for i, s := range sums {
		p := spotPolicyJSON{Name: s.Policy, Currency: in.currency, Note: s.Note, Unfinished: s.Unfinished}
		if in.zones != nil {
			zonePolicyJSON(&p, &s, in.pols[i])
		}
		if s.Note == "" {
			p.CostMean, p.CostP50, p.CostP95 = fp(s.CostMean, 4), fp(s.CostP50, 4), fp(s.CostP95, 4)
			p.SavingsVsOnDemand, p.SavingsCI95 = fp(s.SavingsMean, 4), fp(s.SavingsCI95, 4)
			p.PAboveOnDemand, p.SwitchesMean = fp(s.POverOnDemand, 4), fp(s.SwitchesMean, 3)
			p.PMeetDeadline = fp(s.PMeetDeadline, 4)
			p.CompletionHoursMean, p.CompletionHoursP95 = fp(s.CompletionMean, 3), fp(s.CompletionP95, 3)
			p.InterruptionsMean, p.WastedHoursMean = fp(s.InterruptionsMean, 3), fp(s.WastedMean, 3)
			if s.HasRegret {
				p.RegretMean, p.RegretP95 = fp(s.RegretMean, 4), fp(s.RegretP95, 4)
			}
			if n := len(in.offsets); n > 0 {
				for k := range s.Costs {
					r := spotRunJSON{Trace: in.traceNames[k/n], OffsetHours: in.offsets[k%n], Hours: fp(s.Hours[k], 6), Switches: s.Switches[k]}
					if r.Hours != nil {
						r.Cost = fp(s.Costs[k], 6)
					}
					p.PerRun = append(p.PerRun, r)
				}
			}
		}
		out.Policies = append(out.Policies, p)
	}
	return out
}

func optF(p *float64, format string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(format, *p)
}

func spotTable(out spotJSON, in *spotInputs) *render.Table {
	cur := in.currency
	// On a narrow terminal the spread columns go first; the cost, savings,
	// P(meet) and time stay, and WASTED h (which carries a policy's note) never goes.
	t := &render.Table{Columns: []render.Column{{Header: "POLICY"}, {Header: "COST MEAN " + cur, Right: true, Short: "COST " + cur},
		{Header: "P50", Right: true, Drop: 8}, {Header: "P95", Right: true}, {Header: "SAVINGS", Right: true}, {Header: "±95%", Right: true, Drop: 9},
		{Header: "ABOVE OD", Right: true, Drop: 3}, {Header: "P(MEET)", Right: true}, {Header: "HOURS MEAN", Right: true, Short: "HOURS"},
		{Header: "P95", Right: true, Drop: 5}, {Header: "INTERRUPTIONS", Right: true, Short: "INTR", Drop: 4},
		{Header: "SWITCHES", Right: true, Short: "SW", Drop: 7}, {Header: "WASTED h", Right: true, Short: "WASTED", Drop: 6}}, Currency: cur}
	regret := false
	for _, p := range out.Policies {
		regret = regret || p.RegretMean != nil
	}
	if regret {
		t.Columns = append(t.Columns, render.Column{Header: "REGRET", Right: true}, render.Column{Header: "P95", Right: true, Drop: 2})
	}
	if in.zones != nil {
		t.Columns = append(t.Columns, render.Column{Header: "MOVES", Right: true}, render.Column{Header: "MOVE COST " + cur, Right: true, Short: "MOVE " + cur, Drop: 1})
	}
	for _, p := range out.Policies {
		if p.Note != "" {
			t.Columns[12].Drop = 0 // the note sits in the last column: keep it
			row := []string{p.Name, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", p.Note}
			if regret {
				row = append(row, "-", "-")
			}
			if in.zones != nil {
				row = append(row, "-", "-")
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		pct := func(x *float64) string { return optF(mulp(x, 100), "%.1f%%") }
		meet := pct(p.PMeetDeadline)
		if in.cfg.Job.Deadline == 0 {
			meet = "-"
		}
		row := []string{p.Name, optF(p.CostMean, "%.2f"), optF(p.CostP50, "%.2f"), optF(p.CostP95, "%.2f"), pct(p.SavingsVsOnDemand),
			pct(p.SavingsCI95), pct(p.PAboveOnDemand), meet, optF(p.CompletionHoursMean, "%.2f"), optF(p.CompletionHoursP95, "%.2f"),
			optF(p.InterruptionsMean, "%.2f"), optF(p.SwitchesMean, "%.1f"), optF(p.WastedHoursMean, "%.2f")}
		if p.Unfinished > 0 {
			row[8] = fmt.Sprintf("%s (%d unfinished)", row[8], p.Unfinished)
		}
		if regret {
			row = append(row, pct(p.RegretMean), pct(p.RegretP95))
		}
		if in.zones != nil {
			row = append(row, optF(p.MovesMean, "%.2f"), optF(p.MoveCostMean, "%.2f"))
		}
		t.Rows = append(t.Rows, row)
	}
	if regret {
		t.Notes = append(t.Notes, "REGRET: each run's cost over the hindsight optimum's on the same run (mean, p95), over the runs that met the deadline (\"-\": none did). The optimum knows the run's whole availability in advance: dynamic programming on the trace's ticks (a random model: 0.1 h steps), with decisions at tick boundaries, delays and work rounded up to whole ticks, and checkpoints free (a lower bound for periodic checkpoints).")
	}
	j := in.cfg.Job
	dl := "no deadline"
	if j.Deadline > 0 {
		dl = fmt.Sprintf("deadline %.2f h", j.Deadline)
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Job: %.2f h of work on %d node(s), %s; on-demand alone costs %s (with the first launch's %.3f h start-up). Spot %.4f, on-demand %.4f %s per node-hour: savings can never exceed the spot discount, %.1f%%.",
			j.Work, j.Nodes, dl, fmtMoneyF(j.ODCost(), cur), j.Startup, j.SpotPrice, j.ODPrice, cur, 100*(1-j.SpotPrice/j.ODPrice)),
		"Availability: "+in.model+".")
	if n := lengthNote(&j); n != "" {
		t.Notes = append(t.Notes, "Uncertain length: "+n+".")
	}
	if in.bandNote != "" {
		t.Notes = append(t.Notes, "Band conversion: "+in.bandNote+".")
	}
	restart := fmt.Sprintf("%.3f h", j.Restart)
	t.Notes = append(t.Notes, fmt.Sprintf("Checkpoints: %s; writing one takes %.3f h; each restart or switch takes %s. %d runs per policy, seed %d.",
		in.ckptMode, j.CheckpointCost, restart, in.cfg.Runs, in.cfg.Seed))
	if len(in.priceSources) > 0 {
		t.Notes = append(t.Notes, "Prices: "+strings.Join(in.priceSources, "; ")+".")
	}
	if in.zones != nil {
		t.Notes = append(t.Notes, zoneNotes(out, in)...)
	}
	return t
}

// lengthNote describes an uncertain job length ("" when the work is exact).
func lengthNote(j *spot.Job) string {
	l := j.Length
	if l == nil {
		return ""
	}
	what := fmt.Sprintf("uniform between %.4g h and %.4g h", l.Lo, l.Hi)
	if len(l.Runs) > 0 {
		what = fmt.Sprintf("one of %d past runs, %.4g h to %.4g h", len(l.Runs), l.Quantile(1e-9), l.Max())
	}
	return fmt.Sprintf("%s; the policies plan on its %g quantile, %.4g h, and on the longest, %.4g h, once a run outlasts that; each run draws its true length, so P(MEET) counts the runs that turned out too long, and savings are against each run's own on-demand cost",
		what, j.PlanQuantile, j.Work, l.Max())
}

func mulp(p *float64, k float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p * k
	return &v
}

// writeSpotChart writes the --chart strip chart: one row per policy.
func writeSpotChart(path string, sums []spot.Summary, in *spotInputs) error {
	chart := spotChart(sums, in)
	if len(chart.Rows) == 0 {
		return fmt.Errorf("--chart: no policy has a finished run to plot")
	}
	return writeChart(path, chart)
}

// spotChart is the data of the spot chart: one row per distinct result
// (policies with identical runs merged: "spot = asg-mix"), each with its
// finished runs' costs and, with a deadline, the share of runs that met it.
func spotChart(sums []spot.Summary, in *spotInputs) *render.StripChart {
	j := in.cfg.Job
	title := "What does one run cost under each spot policy?"
	if j.Deadline > 0 {
		title = fmt.Sprintf("Which spot policy meets the %s h deadline, and what does a run cost?", render.FormatTick(j.Deadline))
	}
	od := j.ODCost()
	if in.zones != nil {
		od = cheapestODCost(in) // several zones: on-demand in the cheapest
	}
	chart := &render.StripChart{Title: title, XLabel: "cost per run (" + in.currency + ")",
		Ref: &render.XMark{X: od, Label: "on-demand " + fmtMoneyF(od, in.currency)}}
	chart.Rows = render.SpotStripRows(sums, j.Deadline > 0)
	caption := fmt.Sprintf("Simulated by gpuscout: %.4g h of work on %d node(s), %d runs per policy, seed %d; availability: %s.", j.Work, j.Nodes, in.cfg.Runs, in.cfg.Seed, in.model)
	if len(in.priceSources) > 0 {
		caption += " Prices: " + strings.Join(in.priceSources, "; ") + "."
	}
	chart.Caption = caption
	return chart
}

func newSpotSynthCmd(e *env) *cobra.Command {
	var up, down, length, gap string
	nodes := 1
	var price float64
	seed := uint64(1)
	cmd := &cobra.Command{
		Use:   "synth",
		Short: "Write a synthetic availability trace (Can't Be Late format) from a two-state model",
		Long: `Write a synthetic availability trace in the Can't Be Late JSON format: spot
is up for exponential times with mean --up and down for exponential times with
mean --down, sampled every --gap. The real traces carry no licence, so the
project's test traces are made with this command (see internal/spot/testdata).`,
		Example: "  gpuscout spot synth --up 3h --down 1h --length 30d --gap 300s --seed 1 > trace.json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			u, err := parseHours("up", up)
			if err != nil {
				return err
			}
			d, err := parseHours("down", down)
			if err != nil {
				return err
			}
			l, err := parseHours("length", length)
			if err != nil {
				return err
			}
			g, err := parseHours("gap", gap)
			if err != nil {
				return err
			}
			if price < 0 || l/g > 5e6 {
				return usagef("--price must be >= 0, and the trace at most 5,000,000 ticks (--length / --gap)")
			}
			return spot.Synthesize(u, d, g*3600, l, nodes, price, seed).WriteJSON(e.stdout)
		},
	}
	cmd.Flags().StringVar(&up, "up", "3h", "mean time spot stays available")
	cmd.Flags().StringVar(&down, "down", "1h", "mean time spot stays unavailable")
	cmd.Flags().StringVar(&length, "length", "30d", "length of the trace")
	cmd.Flags().StringVar(&gap, "gap", "300s", "time between ticks")
	cmd.Flags().Var(form.Int(&nodes, 1, 100000), "nodes", "instances available while up (data value), 1 to 100000 (default 1)")
	cmd.Flags().Float64Var(&price, "price", 0, "spot price per hour to write on every tick (0: no prices)")
	cmd.Flags().Var(&seedValue{n: &seed}, "seed", "random seed, 0 to 2^64-1 (default 1)")
	return cmd
}

// maxOffsets bounds --offsets: one run per start time, per trace and policy.
const maxOffsets = 100_000

// parseOffsets reads --offsets: start times into each trace as a
// comma-separated list ("0h,12.5h,3d") or, with a leading @, a file holding
// one start time per line (blank lines and lines starting with # are
// skipped). Errors name the entry or the file's line.
func parseOffsets(spec string) ([]float64, []string, error) {
	var out []float64
	var where []string
	add := func(loc, s string) error {
		h, err := parseHoursOrZero("offsets", s)
		if err != nil {
			return usagef("--offsets %s: %q is not a start time; want a duration such as 0h, 12.5h or 3d", loc, s)
		}
		if len(out) == maxOffsets {
			return usagef("--offsets %s: more than %d start times; want at most %d", loc, maxOffsets, maxOffsets)
		}
		out = append(out, h)
		where = append(where, loc)
		return nil
	}
	if path, ok := strings.CutPrefix(spec, "@"); ok {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, usagef("--offsets @%s: %v", path, err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if err := add(fmt.Sprintf("@%s line %d", path, n), line); err != nil {
				return nil, nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, nil, usagef("--offsets @%s: %v", path, err)
		}
		if len(out) == 0 {
			return nil, nil, usagef("--offsets @%s: no start times in the file; want one per line, e.g. 12.5h", path)
		}
		return out, where, nil
	}
	for i, s := range strings.Split(spec, ",") {
		if err := add(fmt.Sprintf("entry %d", i+1), strings.TrimSpace(s)); err != nil {
			return nil, nil, err
		}
	}
	return out, where, nil
}

// checkOffsets tells which start time lies beyond the end of a trace.
func checkOffsets(offsets []float64, where []string, trace string, hours float64) error {
	for i, o := range offsets {
		if !(o < hours) || math.IsInf(o, 0) {
			return usagef("--offsets %s: %.4g h is beyond the end of %s (%.4g h); want a start time from 0 to below the trace's length", where[i], o, trace, hours)
		}
	}
	return nil
}
