package cli

import (
	"fmt"
	"math"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/spot"
)

func fmtRunEnd(r spot.Result) string {
	if math.IsInf(r.Hours, 1) {
		return "did not finish"
	}
	s := fmt.Sprintf("done after %.2f h, %s", r.Hours, cost.Count(r.Interruptions, "interruption", "interruptions"))
	if !r.Met {
		s += ", deadline missed"
	}
	return s
}

func fmtMoneyF(v float64, c string) string {
	return money.Format(decimal.NewFromFloat(v), money.Currency(c))
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
