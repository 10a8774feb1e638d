package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// Spot page bounds: a page simulates at most maxSpotRuns runs per policy
// (the CLI's default is 1000), a job of at most maxSpotHours.
const (
	defaultSpotRuns = 200
	maxSpotRuns     = 1000
	maxSpotHours    = 10000
	spotMaxEvents   = 20_000_000
)

// Defaults of the spot page: the article's scenario.
const (
	defaultSpotOffering = "aws/p4d.24xlarge/us-east-1"
	defaultSpotWork     = "72"
	defaultSpotDeadline = "100"
	spotCheckpointCost  = 5.0 / 60  // hours, the CLI's default --checkpoint-cost 5m
	spotRestart         = 10.0 / 60 // hours, the CLI's default --restart 10m
)

// hoursParam reads a number of hours in (lo, hi].
func hoursParam(name, v string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "h"), 64)
	if err != nil || !(f > lo) || f > hi {
		return 0, badRequest("%s %q: want hours above %g and at most %g", name, v, lo, hi)
	}
	return f, nil
}

// spotPage simulates the spot policies on an offering, as `gpuscout spot
// --offering ... --work ... --deadline ...` does (the offering's Spot
// Advisor band, its on-demand and spot prices from the catalog, Daly's
// checkpoint interval), with bounded runs, and draws the CLI's strip chart.
func (d *dash) spotPage(r *http.Request) (*page, error) {
	get := func(name, def string) (string, error) {
		v, err := param(r, name)
		if v == "" {
			v = def
		}
		return v, err
	}
	offering, err := get("offering", defaultSpotOffering)
	if err != nil {
		return nil, err
	}
	workS, err := get("work", defaultSpotWork)
	if err != nil {
		return nil, err
	}
	deadlineS, err := get("deadline", defaultSpotDeadline)
	if err != nil {
		return nil, err
	}
	runsS, err := get("runs", strconv.Itoa(defaultSpotRuns))
	if err != nil {
		return nil, err
	}
	f := &form{Action: "/spot", Fields: []field{
		{Name: "offering", Label: "Offering (provider/instance/region)", Value: offering, Kind: "text"},
		{Name: "work", Label: "Work (hours)", Value: workS, Kind: "text"},
		{Name: "deadline", Label: "Deadline (hours)", Value: deadlineS, Kind: "text"},
		{Name: "runs", Label: "Runs per policy", Value: runsS, Kind: "text"},
	}}
	p := &page{Title: "Spot risk", Form: f, Intro: []string{
		"Simulated runs of a job on spot capacity under each policy, as 'gpuscout spot --offering' runs them: the offering's interruption band, its on-demand and spot prices from the catalog, checkpoints at Daly's interval (5 min to write one, 10 min to restart).",
	}}
	fail := func(err error) (*page, error) { return nil, err }
	work, err := hoursParam("work", workS, 0, maxSpotHours)
	if err != nil {
		return fail(err)
	}
	deadline, err := hoursParam("deadline", deadlineS, 0, maxSpotHours)
	if err != nil {
		return fail(err)
	}
	if deadline < work {
		return fail(badRequest("deadline %q: want at least the work (%g h); on-demand alone needs that long", deadlineS, work))
	}
	runs, err := strconv.Atoi(runsS)
	if err != nil || runs < 10 || runs > maxSpotRuns {
		return fail(badRequest("runs %q: want a whole number from 10 to %d", runsS, maxSpotRuns))
	}
	o, err := d.Catalog.FindOffering(offering, money.DefaultFX(), money.USD)
	if err != nil {
		return fail(badRequest("offering %v", err))
	}
	prices, err := spot.PriceOffering(d.Catalog, money.DefaultFX(), money.USD, o)
	if err != nil {
		return nil, err
	}
	if prices.ODSource == "" || prices.SpotSource == "" {
		return fail(badRequest("offering %q: the catalog has no sourced %s price for it; choose one with both prices (the catalog page's spot filter lists them)", offering, map[bool]string{true: "spot", false: "on-demand"}[prices.ODSource != ""]))
	}
	band := prices.Band
	model, _, err := spot.BandModel(band.Label, band.Origin, 0)
	if err != nil {
		return nil, err
	}
	// The job as `gpuscout spot` makes it: every launch of the gang, the
	// first included, takes the restart time (cost.SpotJob).
	job := cost.SpotJob(work, deadline, 1, cost.SpotAssumptions{RestartHours: spotRestart}, prices.OnDemand)
	job.SpotPrice, job.CheckpointCost = prices.Spot, spotCheckpointCost
	mtbf := model.MTBF(1)
	job.Checkpoint = spot.AutoCheckpoint(&job, mtbf).Interval // the spot command's rule
	if err := job.Validate(); err != nil {
		return fail(badRequest("%v", err))
	}
	pols, err := spot.Policies([]string{"all"}, spot.ASGMix{})
	if err != nil {
		return nil, err
	}
	sums, err := spot.Simulate(spot.Config{Job: job, Model: model, Runs: runs, Seed: 1, MaxEvents: spotMaxEvents}, pols)
	if err != nil {
		return fail(badRequest("the simulation stopped: %v; fewer runs or less work", err))
	}
	chart := &render.StripChart{Title: fmt.Sprintf("Which spot policy meets the %s h deadline, and what does a run cost?", render.FormatTick(deadline)),
		XLabel: "cost per run (USD)", Ref: &render.XMark{X: job.ODCost(), Label: fmt.Sprintf("on-demand %.2f USD", job.ODCost())}}
	chart.Rows = render.SpotStripRows(sums, true)
	assumed := ""
	if band.Assumed {
		assumed = " (assumed: not a figure for this offering)"
	}
	chart.Caption = fmt.Sprintf("Simulated by gpuscout, %d runs per policy, seed 1. %s: on-demand %s USD/h (%s, %s); spot %s USD/h (%s, %s, %s); interruptions %s a month from %s%s.",
		runs, o.Key(), strconv.FormatFloat(prices.OnDemand, 'f', 2, 64), o.OnDemand.Source, o.OnDemand.AsOf, strconv.FormatFloat(prices.Spot, 'f', 2, 64), prices.Quote.Offering.Key(), prices.Quote.Price.Source, prices.Quote.Price.AsOf, band.Label, band.Origin, assumed)
	svg, err := svgOf(chart)
	if err != nil {
		return nil, err
	}
	p.Blocks = append(p.Blocks, block{SVG: svg, Alt: "cost per run of each spot policy, with the share of runs that meet the deadline"})
	t := &render.Table{Currency: "USD", Columns: []render.Column{{Header: "POLICY"}, {Header: "MEAN USD", Right: true}, {Header: "P95 USD", Right: true},
		{Header: "P(MEET DEADLINE)", Right: true}, {Header: "MEAN HOURS", Right: true}, {Header: "INTERRUPTIONS", Right: true}, {Header: "NEVER FINISHED", Right: true}}}
	for _, s := range sums {
		if s.Note != "" {
			t.Rows = append(t.Rows, []string{s.Policy, render.NotApplied, render.NotApplied, render.NotApplied, render.NotApplied, render.NotApplied, render.NotApplied})
			t.Notes = append(t.Notes, s.Policy+": "+s.Note)
			continue
		}
		t.Rows = append(t.Rows, []string{s.Policy, fmt.Sprintf("%.2f", s.CostMean), fmt.Sprintf("%.2f", s.CostP95), fmt.Sprintf("%.1f%%", 100*s.PMeetDeadline),
			fmt.Sprintf("%.1f", s.CompletionMean), fmt.Sprintf("%.2f", s.InterruptionsMean), strconv.Itoa(s.Unfinished)})
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Checkpoint every %.3f h of work (Daly's optimum for the job's MTBF %.1f h, capped at half the deadline's slack).", job.Checkpoint, mtbf))
	t.Notes = append(t.Notes, fmt.Sprintf("The same figures on the command line: gpuscout spot --offering %s --work %sh --deadline %sh --runs %d (the command's default is %d runs).",
		o.Provider+"/"+o.InstanceType+"/"+o.Region, strconv.FormatFloat(work, 'g', -1, 64), strconv.FormatFloat(deadline, 'g', -1, 64), runs, spot.DefaultRuns))
	p.Blocks = append(p.Blocks, block{Heading: "Policies", Table: tableHTML(t, nil)})
	return p, nil
}
