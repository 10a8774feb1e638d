package advise

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Spot candidates: every offering whose lower bound (every hour at the spot
// price) could still place among the spotRankDepth best plans is simulated,
// up to maxSpotCandidates (a bound on the work, never reached by the
// README's examples).
const (
	spotRankDepth     = 10
	maxSpotCandidates = 40
)

// spotPlans price spot through the cost engine's spot model, only for
// offerings whose lower bound (every hour at the spot price) could place
// among the spotRankDepth cheapest plans found so far. The engine's model is
// deadline-aware: with a deadline it simulates Uniform Progress (on-demand
// fallback when behind the deadline's progress line); without one,
// spot-only with checkpoint/restart. The hindsight optimum is not computed
// here: floorForBest adds it to the best-ranked spot plan.
func (a *Advisor) spotPlans(req *Request, eng *cost.Engine, cands []candidate, plans []Plan) ([]Plan, error) {
	var totals []float64 // of the plans that meet the constraints, kept sorted
	for _, p := range plans {
		if violates(req, &p) == "" {
			totals = append(totals, p.Total.Value.InexactFloat64())
		}
	}
	sort.Float64s(totals)
	threshold := func() float64 { // the total a plan must beat to place
		if len(totals) < spotRankDepth {
			return math.Inf(1)
		}
		return totals[spotRankDepth-1]
	}
	type bound struct {
		c     *candidate
		lower float64
	}
	var list []bound
	for i := range cands {
		c := &cands[i]
		if req.Deadline > 0 && c.hours+cost.GangRestartHours(c.usage.Spot.RestartHours, c.instances) > req.Deadline {
			continue // even without interruptions it misses the deadline (sized at --max-nodes): the work and the gang's first launch
		}
		sp := a.hourly(a.Catalog.SpotQuoteFor(c.o).Price)
		if !sp.Valid || !c.o.OnDemand.Known {
			continue
		}
		hours := c.hours
		if hours == 0 {
			hours = c.usage.TotalHours()
		}
		list = append(list, bound{c, sp.Decimal.InexactFloat64() * hours * float64(c.instances)})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].lower < list[j].lower })
	var out []Plan
	for n, x := range list {
		if x.lower >= threshold() || n >= maxSpotCandidates {
			break // cannot place (or enough simulated): skip the rest
		}
		c := x.c
		u := c.usage
		u.Egress = scaleEgress(req.Usage.Egress, 1/float64(c.instances))
		opts, err := eng.Price(&u, c.o)
		if err != nil {
			return nil, err
		}
		var o *cost.Option
		for i := range opts {
			if opts[i].Model == cost.ModelSpot && opts[i].Known && opts[i].Feasible {
				o = &opts[i]
			}
		}
		if o == nil || o.SpotEstimate == nil {
			continue
		}
		est := o.SpotEstimate // the engine's simulation: one spot path
		p := a.plan(req, c, o)
		p.Payment = est.Policy
		p.PricePerHour = o.ListHourly
		p.PMissDeadline = est.PMissDeadline
		if c.hours > 0 {
			p.ExpectedHours = est.CompletionMean
		}
		usage := o.Schedule.TotalOf(cost.FlowUsage)
		p95 := p.PricePerHour.Decimal.Mul(decimal.NewFromFloat(c.usage.TotalHours() * est.CostP95Factor * float64(c.instances)))
		line := fmt.Sprintf("%d simulated runs with policy %s: usage mean %s, p95 %s", est.Runs, est.Policy,
			money.Format(usage, a.Currency), money.Format(p95, a.Currency))
		if est.OnDemandKnown {
			line += fmt.Sprintf(", %.0f%% below on-demand (±%.1f%%)", 100*est.SavingsMean, 100*est.SavingsCI95)
		}
		line += fmt.Sprintf(", %.2f interruptions", est.InterruptionsMean)
		if c.hours > 0 {
			line += fmt.Sprintf(", finishes in %.1f h on average (p95 %.1f h)", est.CompletionMean, est.CompletionP95)
		}
		if req.Deadline > 0 {
			line += fmt.Sprintf(", misses the deadline in %.1f%% of runs", 100*est.PMissDeadline)
		}
		p.Explanation = append(p.Explanation, line)
		p.Zone = o.PriceZone
		p.Risks = append(p.Risks, gangRisk(&p, c, est))
		if req.SpotRegions > 1 {
			lines, err := a.failoverLines(req, &p, c, est)
			if err != nil {
				return nil, err
			}
			p.Explanation = append(p.Explanation, lines...)
		}
		if req.Deadline == 0 {
			p.Explanation = append(p.Explanation, noFloorWithoutDeadline)
		}
		p.spot = &spotState{c: c, usage: usage}
		out = append(out, p)
		if violates(req, &p) == "" {
			totals = append(totals, p.Total.Value.InexactFloat64())
			sort.Float64s(totals)
		}
	}
	return out, nil
}

// noFloorWithoutDeadline is why a spot plan without --deadline has no floor.
const noFloorWithoutDeadline = "no hindsight optimum: it needs a deadline (--deadline) to weigh waiting for spot against on-demand"

// spotState is what floorForBest needs of a spot plan: its candidate and
// its simulated usage cost.
type spotState struct {
	c     *candidate
	usage decimal.Decimal
}

// floorForBest computes the hindsight optimum (the floor of what spot can
// save) for the best-ranked spot plan of the ranked plans, on the same
// simulated runs (the same seed), and says on the others where it is: the
// optimum costs far more than the policy's simulation, so it is computed for
// what the answer leads with.
func (a *Advisor) floorForBest(req *Request, eng *cost.Engine, plans []Plan) error {
	if req.Deadline == 0 {
		return nil
	}
	top := -1
	for i := range plans {
		if plans[i].spot != nil {
			top = i
			break
		}
	}
	if top < 0 {
		return nil
	}
	p := &plans[top]
	c := p.spot.c
	u := c.usage
	u.Egress = scaleEgress(req.Usage.Egress, 1/float64(c.instances))
	opts, err := eng.Price(&u, c.o)
	if err != nil {
		return err
	}
	for i := range opts {
		if o := &opts[i]; o.Model == cost.ModelSpot && o.SpotEstimate != nil {
			p.Explanation = append(p.Explanation, a.floorLine(p, c, o.SpotEstimate, p.spot.usage))
			break
		}
	}
	for i := range plans {
		if q := &plans[i]; q.spot != nil && i != top {
			q.Explanation = append(q.Explanation, fmt.Sprintf("hindsight optimum: computed for the best spot plan, #%d, only", p.Rank))
		}
	}
	return nil
}

// failoverLines set a spot plan's regions and say where it may run, what a
// move costs and how often it moves (or why it stays in one region).
func (a *Advisor) failoverLines(req *Request, p *Plan, c *candidate, est *cost.SpotEstimate) ([]string, error) {
	f, info, err := a.failover(req, c.o)
	if err != nil {
		return nil, err
	}
	if f == nil || len(est.Regions) < 2 {
		return info.notes, nil
	}
	p.SpotRegions = est.Regions
	out := []string{fmt.Sprintf("spot in %s, failing over to %s (--spot-regions %d: the cheapest other regions where %s has a spot and an on-demand price in %s)",
		est.Regions[0], strings.Join(est.Regions[1:], ", "), req.SpotRegions, c.o.InstanceType, a.Currency)}
	out = append(out, fmt.Sprintf("a move is a restart (%s) elsewhere plus the transfer of %s; cross-region transfer %s",
		cost.FormatHours(req.Usage.Spot.RestartHours), info.state, strings.Join(info.moves, "; ")))
	moves := p.PricePerHour.Decimal.Mul(decimal.NewFromFloat(est.MoveCostHours))
	out = append(out, fmt.Sprintf("%.2f moves a run on average, %s a run on moves (in the usage above)", est.MovesMean, money.Format(moves, a.Currency)))
	return append(out, info.notes...), nil
}

// floorLine sets a spot plan's floor, the hindsight optimum on the same
// simulated availability, and says what it is (or why there is none).
func (a *Advisor) floorLine(p *Plan, c *candidate, est *cost.SpotEstimate, usage decimal.Decimal) string {
	f := est.Floor
	if f == nil {
		return est.FloorNote
	}
	floor := p.PricePerHour.Decimal.Mul(decimal.NewFromFloat(c.usage.TotalHours() * f.Factor * float64(c.instances))).RoundFloor(2)
	p.SpotFloor = decimal.NullDecimal{Decimal: floor, Valid: true}
	runs := fmt.Sprintf("the same %d runs", f.Runs)
	if f.Runs < est.Runs {
		runs = fmt.Sprintf("the first %d of the same %d runs", f.Runs, est.Runs)
	}
	across := ""
	if len(est.Regions) > 1 {
		across = fmt.Sprintf(" across the %d regions", len(est.Regions))
	}
	line := fmt.Sprintf("hindsight optimum%s (the cheapest schedule that meets the deadline knowing the future, on a %.2g h grid) on %s: %s mean",
		across, f.Step, runs, money.Format(floor, a.Currency))
	if est.OnDemandKnown {
		line += fmt.Sprintf(" (%.0f%% below on-demand)", 100*f.SavingsMean)
	}
	if f.HasRegret {
		r := math.Round(f.Regret*10000)/10000 + 0 // + 0: no "-0"
		p.SpotRegret = &r
		switch {
		case math.Abs(f.Regret) < 0.0005:
			line += fmt.Sprintf("; %s matches it on those runs (within 0.05%%)", est.Policy)
		case f.Regret > 0:
			line += fmt.Sprintf("; %s pays %.1f%% more on those runs", est.Policy, 100*f.Regret)
		default: // the grid rounds delays up to whole steps: an approximation from above
			line += fmt.Sprintf("; %s pays %.1f%% less on those runs: the optimum's grid rounds delays up to whole steps", est.Policy, -100*f.Regret)
		}
	}
	return line
}

// gangRisk puts a spot plan's interruption risk in numbers: the chance
// that the run is interrupted at all, and what one interruption costs the
// gang (half a checkpoint interval of lost work, and the relaunch of every
// instance, waiting for the last: cost.GangRestartHours).
func gangRisk(p *Plan, c *candidate, est *cost.SpotEstimate) string {
	n := c.instances
	hours := c.hours
	if hours == 0 {
		hours = c.usage.TotalHours()
	}
	pAny := 1 - math.Exp(-est.HazardPerHour*hours)
	relaunch := cost.GangRestartHours(c.usage.Spot.RestartHours, n)
	lost := c.usage.Spot.CheckpointHours/2 + relaunch
	per := p.PricePerHour.Decimal.Mul(decimal.NewFromFloat(lost * float64(n)))
	who := "the instance"
	if n > 1 {
		who = fmt.Sprintf("all %d instances (any one interrupted stops the gang)", n)
	}
	line := fmt.Sprintf("spot: P(at least one interruption in %.0f h) = 1 − e^(−%.3g/h × %.0f h) = %.1f%%; each costs about %s of %s: half the %s checkpoint interval plus a relaunch of %s, %s at the spot price",
		hours, est.HazardPerHour, hours, 100*pAny, cost.FormatHours(lost), who, cost.FormatHours(c.usage.Spot.CheckpointHours), cost.RestartText(c.usage.Spot.RestartHours, n), money.Format(per, p.Currency))
	if est.Band != "" && strings.HasPrefix(est.Band, ">") {
		line += fmt.Sprintf("; the band %s has no upper bound, so λ is its lower bound: the real rate may be higher", est.Band)
	}
	return line
}
