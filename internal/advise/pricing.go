package advise

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
)

// plansFor prices a candidate under every non-spot model (and bursty mixes).
func (a *Advisor) plansFor(req *Request, eng *cost.Engine, c *candidate) ([]Plan, error) {
	u := c.usage
	// Egress is given for the whole workload: spread it over the instances.
	u.Egress = scaleEgress(req.Usage.Egress, 1/float64(c.instances))
	opts, err := eng.Price(&u, c.o)
	if err != nil {
		return nil, err
	}
	if req.Bursty {
		return a.burstyPlans(req, eng, c, opts)
	}
	var out []Plan
	for i := range opts {
		o := &opts[i]
		if !o.Known || !o.Feasible || o.Model == cost.ModelSpot {
			continue
		}
		p := a.plan(req, c, o)
		out = append(out, p)
	}
	return out, nil
}

func (a *Advisor) plan(req *Request, c *candidate, o *cost.Option) Plan {
	p := Plan{Offering: c.o, Instances: c.instances, Model: o.Model, Term: o.Term, Payment: strings.TrimSpace(o.Payment + " " + o.Class), BlockDays: o.BlockDays,
		Total: o.Total, Currency: a.Currency, ExpectedHours: c.hours, UpfrontCash: o.Upfront, Speed: c.speed, NodeSpeed: c.nodeSpeed,
		Breakdown: breakdown(o), Breakeven: o.Breakeven, option: o, Deadline: req.Deadline,
		OnDemandPerHour: a.hourly(c.o.OnDemand), AsAsked: req.Ask.matches(c.o) && c.instances >= req.Ask.instances(c.o),
		CashFlows: slices.Clone(o.Schedule), HorizonMonths: c.usage.HorizonMonths, NotPriced: slices.Clone(o.Excludes), EstimatedFrom: c.estimatedFrom, Stages: c.stages()}
	if req.Deadline > 0 && c.hours > req.Deadline+1e-6 {
		p.PMissDeadline = 1 // not a simulation's share: it cannot finish in time
	}
	switch {
	case o.Model == cost.ModelOnDemand && (req.Usage.License == "" || req.Usage.License == "linux"):
		p.PricePerHour = p.OnDemandPerHour
	default:
		p.PricePerHour = o.EffectiveHourly
	}
	p.Explanation = append(p.Explanation, c.speedNote)
	if m := c.o.GPUMemoryClassGB(); m > 0 && req.Model == nil { // with --model, the model's memory line says more
		p.Explanation = append(p.Explanation, fmt.Sprintf("memory: %.0f GB per GPU, %.0f GB on the instance; %s needs at least %.0f GB per GPU", m, m*c.o.GPUCount, req.Scenario.Name, req.Scenario.MinGPUMemoryGiB))
	}
	if g := a.Catalog.Conservative(c.o.GPU); g != c.o.GPU {
		p.Explanation = append(p.Explanation, fmt.Sprintf("%s's form factor is not stated: figures it lacks are its variants' lowest (memory bandwidth %s GB/s: %s)",
			c.o.GPU.Name, g.MemoryBandwidth, g.MemoryBandwidth.Source))
	}
	if c.o.GPUCount > 1 || (c.instances > 1 && req.Scenario.CommHeavy) {
		of := ""
		if req.Scenario.CommHeavy && c.comm != nil && c.comm.refEff < 0.9995 {
			of = " of your shape's" // comm.go: efficiency relative to the user's own shape, where that loses some
		}
		link := c.o.Interconnect
		if link == "" || link == catalog.LinkUnknown {
			link = "a link no source names"
		}
		p.Explanation = append(p.Explanation, fmt.Sprintf("%s GPUs on %s at %.0f%%%s scaling efficiency: %.2f reference-GPU equivalents per instance",
			fmtCount(c.o.GPUCount), link, 100*c.eff, of, c.nodeSpeed))
	}
	if c.serving != nil {
		if l := c.serving.line(); l != "" {
			p.Explanation = append(p.Explanation, l)
		}
	}
	if c.commNote != "" {
		p.Explanation = append(p.Explanation, c.commNote)
	}
	if c.hours > 0 {
		p.Explanation = append(p.Explanation, fmt.Sprintf("%s of work on %s → %s × %.1f h", fmtGPUh(req.WorkGPUHours, req.Ref), c.o.InstanceType, cost.Count(c.instances, "instance", "instances"), c.hours))
	} else if c.instances > 1 {
		p.Explanation = append(p.Explanation, fmt.Sprintf("%s give the capacity of %g × %s", cost.Count(c.instances, "instance", "instances"), req.RefCount, req.Ref.Name))
	}
	if c.billNote != "" {
		p.Explanation = append(p.Explanation, c.billNote)
	}
	p.Explanation = append(p.Explanation, o.Explanation...)
	p.Explanation = append(p.Explanation, prefixAll("not priced: ", o.Excludes)...)
	return p
}

// hourly converts a catalog price into the advisor's currency; invalid where
// the price or its exchange rate is unknown.
func (a *Advisor) hourly(pr catalog.Price) decimal.NullDecimal {
	if !pr.Known {
		return decimal.NullDecimal{}
	}
	v, err := a.FX.Convert(pr.Value, pr.Currency, a.Currency)
	if err != nil {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: v, Valid: true}
}

func prefixAll(pre string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = pre + x
	}
	return out
}

// SpotOverhead is the part of a spot plan's usage paid for what the
// interruptions cost: work lost since the last checkpoint and redone,
// restarts, and on-demand fallback hours above the spot price.
const SpotOverhead = "spot overhead"

// BreakdownKinds lists a plan's breakdown parts in display order: the
// engine's cash-flow kinds with the spot overhead after usage.
var BreakdownKinds = []string{cost.FlowUpfront, cost.FlowCommitment, cost.FlowUsage, SpotOverhead, cost.FlowEgress,
	cost.FlowStorage, cost.FlowPromotion, cost.FlowCredit}

// breakdown is an option's total by part. A spot option's usage is split:
// the simulated cost per hour of work is HoursFactor hours at the spot
// price, so usage/HoursFactor pays for the work itself and the rest is
// the spot overhead.
func breakdown(o *cost.Option) map[string]decimal.Decimal {
	m := map[string]decimal.Decimal{}
	for _, k := range cost.FlowKinds {
		if v := o.Schedule.TotalOf(k); !v.IsZero() {
			m[k] = v
		}
	}
	if e := o.SpotEstimate; e != nil && e.HoursFactor > 1 && !m[cost.FlowUsage].IsZero() {
		usage := m[cost.FlowUsage]
		work := usage.Div(decimal.NewFromFloat(e.HoursFactor)).Round(2)
		if over := usage.Sub(work); over.IsPositive() {
			m[cost.FlowUsage], m[SpotOverhead] = work, over
		}
	}
	return m
}

// burstyPlans combine a base option (on-demand or a commitment, 730 h a month)
// with a burst option (on-demand or spot) for the peak hours.
func (a *Advisor) burstyPlans(req *Request, eng *cost.Engine, c *candidate, baseOpts []cost.Option) ([]Plan, error) {
	burstInst := int(math.Ceil((req.Peak-req.Base)/c.nodeSpeed - 1e-9))
	if burstInst < 0 {
		burstInst = 0
	}
	bu := c.usage
	bu.Instances = burstInst
	bu.HoursPerMonth = req.PeakHours
	bu.Credits, bu.Promotions, bu.Egress, bu.Storage = nil, nil, nil, nil // counted once, with the base
	var bursts []cost.Option
	if burstInst > 0 {
		e2 := *eng
		e2.SkipSpot = req.NoSpot || !req.Scenario.Spot
		var err error
		if bursts, err = e2.Price(&bu, c.o); err != nil {
			return nil, err
		}
	}
	var out []Plan
	for i := range baseOpts {
		b := &baseOpts[i]
		if !b.Known || !b.Feasible || b.Model == cost.ModelSpot {
			continue
		}
		if burstInst == 0 {
			p := a.plan(req, c, b)
			p.Mix = fmt.Sprintf("base %d × %s", c.instances, describeOpt(b))
			out = append(out, p)
			continue
		}
		for j := range bursts {
			x := &bursts[j]
			if !x.Known || !x.Feasible || (x.Model != cost.ModelOnDemand && x.Model != cost.ModelSpot) {
				continue
			}
			p := a.plan(req, c, b)
			p.Model = "mix"
			p.Mix = fmt.Sprintf("base %d × %s + burst %d × %s for %g h/month", c.instances, describeOpt(b), burstInst, describeOpt(x), req.PeakHours)
			var err error
			if p.Total, err = b.Total.Add(x.Total); err != nil {
				return nil, err
			}
			if p.UpfrontCash, err = b.Upfront.Add(x.Upfront); err != nil {
				return nil, err
			}
			p.CashFlows = append(p.CashFlows, x.Schedule...)
			for k, v := range breakdown(x) {
				p.Breakdown[k] = p.Breakdown[k].Add(v)
			}
			p.Explanation = append(p.Explanation, "burst: "+strings.Join(x.Explanation, "; "))
			out = append(out, p)
		}
	}
	return out, nil
}

func describeOpt(o *cost.Option) string {
	s := o.Model
	if o.Term != "" {
		s += " " + o.Term + " " + o.Payment
	}
	return s
}
