package advise

import (
	"fmt"
	"math"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// spotPlans simulate spot only for offerings whose lower bound (every hour at
// the spot price) could beat the best plan found so far. With a deadline the
// simulated policy is Uniform Progress (never misses a deadline on-demand
// meets); without one, spot-only with checkpoint/restart.
func (a *Advisor) spotPlans(req *Request, cands []candidate, plans []Plan) ([]Plan, error) {
	best := math.Inf(1)
	for _, p := range plans {
		if violates(req, &p) == "" {
			best = math.Min(best, p.Total.InexactFloat64())
		}
	}
	type sc struct {
		c     *candidate
		spot  float64
		od    float64
		lower float64
	}
	var list []sc
	for i := range cands {
		c := &cands[i]
		if !c.o.Spot.Known || !c.o.OnDemand.Known {
			continue
		}
		sp, err1 := a.FX.Convert(c.o.Spot.Amount, c.o.Spot.Currency, a.Currency)
		od, err2 := a.FX.Convert(c.o.OnDemand.Amount, c.o.OnDemand.Currency, a.Currency)
		if err1 != nil || err2 != nil {
			continue
		}
		hours := c.hours
		if hours == 0 {
			hours = c.usage.TotalHours()
		}
		lower := sp.InexactFloat64() * hours * float64(c.instances)
		list = append(list, sc{c, sp.InexactFloat64(), od.InexactFloat64(), lower})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].lower < list[j].lower })
	runs := a.SpotRuns
	if runs == 0 {
		runs = 300
	}
	var out []Plan
	for n, x := range list {
		if x.lower >= best || n >= 12 {
			break // cannot win (or enough simulated): skip the rest
		}
		c := x.c
		band := a.Catalog.SpotBandFor(c.o)
		label, origin := req.Usage.Spot.Band, "given"
		if label == "" && band != nil {
			label, origin = band.Label, "AWS Spot Advisor "+band.AsOf
		}
		if label == "" {
			label, origin = cost.DefaultBand, "assumed; the Advisor's global average is <10%"
		}
		lambda, _, _, err := spot.BandHazard(label)
		if err != nil {
			return nil, err
		}
		work := c.hours
		if work == 0 {
			work = c.usage.TotalHours()
		}
		job := spot.Job{Work: work, Deadline: req.Deadline, Nodes: c.instances, Checkpoint: req.Usage.Spot.CheckpointHours,
			Restart: req.Usage.Spot.RestartHours, SpotPrice: x.spot, ODPrice: x.od}
		if job.Deadline > 0 && job.Deadline < job.Work {
			continue
		}
		var pol spot.Policy = spot.SpotOnly{}
		if req.Deadline > 0 {
			pol = spot.UniformProgress{}
		}
		sums, err := spot.Simulate(spot.Config{Job: job, Model: spot.Hazard{PerHour: lambda}, Runs: runs, Seed: 1}, []spot.Policy{pol})
		if err != nil {
			return nil, err
		}
		s := sums[0]
		// Shared parts (egress, storage) as the cost engine priced them for on-demand.
		extras := c.extras
		total := decimal.NewFromFloat(s.CostMean).Add(extras)
		p := Plan{Offering: c.o, Instances: c.instances, Model: cost.ModelSpot, Payment: pol.Name(), Total: total, Currency: a.Currency,
			ExpectedHours: s.CompletionMean, PMissDeadline: 1 - s.PMeetDeadline, Speed: c.speed, NodeSpeed: c.nodeSpeed,
			Breakdown:    map[string]decimal.Decimal{cost.FlowUsage: decimal.NewFromFloat(s.CostMean)},
			PricePerHour: a.hourly(c.o.Spot), OnDemandPerHour: a.hourly(c.o.OnDemand), Deadline: req.Deadline}
		if !extras.IsZero() {
			p.Breakdown[cost.FlowEgress] = extras
		}
		if req.Deadline == 0 {
			p.PMissDeadline = 0
		}
		p.Explanation = append(p.Explanation, c.speedNote,
			fmt.Sprintf("spot %s/h, on-demand %s/h per instance (%s); interruptions %s a month (%s); simulated %d runs of %s with policy %s: mean %s, p95 %s, %.0f%% below on-demand (±%.1f%%), %.2f interruptions, finishes in %.1f h on average (p95 %.1f h), misses the deadline in %.1f%% of runs",
				fmtF(x.spot), fmtF(x.od), a.Currency, label, origin, runs, cost.FormatHours(work), pol.Name(), cost.FormatMoney(decimal.NewFromFloat(s.CostMean), a.Currency),
				cost.FormatMoney(decimal.NewFromFloat(s.CostP95), a.Currency), 100*s.SavingsMean, 100*s.SavingsCI95, s.InterruptionsMean, s.CompletionMean, s.CompletionP95, 100*p.PMissDeadline))
		out = append(out, p)
	}
	return out, nil
}

func fmtF(v float64) string { return decimal.NewFromFloat(v).Round(4).String() }
