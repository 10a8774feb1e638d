package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/form"
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
