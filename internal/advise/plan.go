package advise

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// Objectives rank plans.
const (
	ObjectiveCost     = "cost"
	ObjectiveTime     = "time"
	ObjectiveBalanced = "balanced"
)

// Request is what the user asked.
type Request struct {
	Scenario *Scenario
	Ref      *catalog.GPU // the GPU the work is measured on
	RefCount float64      // GPUs in --gpu NAME:COUNT (a steady load's size; 1 if none)

	// Size: a job (WorkGPUHours of work on Ref), or a steady load, or a bursty one.
	WorkGPUHours  float64
	HoursPerMonth float64 // steady: hours a month of RefCount GPUs' capacity
	Bursty        bool
	Base, Peak    float64 // bursty: GPUs (on Ref) always on, and at peak
	PeakHours     float64 // bursty: hours a month at peak

	HorizonMonths float64
	Deadline      float64             // hours; 0: none
	Budget        decimal.NullDecimal // in Currency
	Objective     string

	Select   catalog.Query // providers, regions, China, currency, FX
	Usage    cost.Usage    // discount rate, egress, storage, credits, licence, spot assumptions
	NoSpot   bool
	Bench    map[*catalog.GPU]*BenchReport
	MaxNodes int
}

// Plan is one way to run the work.
type Plan struct {
	Rank          int
	Offering      *catalog.Offering
	Instances     int
	Model         string // pricing model; "mix" for bursty base + burst
	Term, Payment string
	Mix           string // bursty: "base: ... + burst: ..."
	Total         decimal.Decimal
	Currency      money.Currency
	ExpectedHours float64 // wall-clock hours to finish the job (0 for steady loads)
	PMissDeadline float64
	UpfrontCash   decimal.Decimal
	Speed         float64 // per GPU, relative to the reference
	NodeSpeed     float64 // whole instance, in reference-GPU equivalents
	Breakdown     map[string]decimal.Decimal
	Explanation   []string
	Breakeven     *float64
	Risks         []string // capacity risks
	Ecosystem     []string // images and monitoring the provider offers
	option        *cost.Option
}

// Excluded is an offering family left out, and why.
type Excluded struct {
	What   string
	Reason string
}

// Result is advise's answer.
type Result struct {
	Plans     []Plan
	Excluded  []Excluded
	Closest   []Plan   // when nothing meets the constraints: the nearest plans
	Violation string   // which constraint nothing meets
	Summary   []string // the three decision steps
	Inputs    map[string]any
}

// Advisor plans work on a catalog.
type Advisor struct {
	Catalog   *catalog.Catalog
	FX        *money.FX
	Currency  money.Currency
	Scenarios *Scenarios
	SpotRuns  int
}

type candidate struct {
	o         *catalog.Offering
	speed     float64
	speedNote string
	eff       float64
	nodeSpeed float64 // ref-GPU equivalents per instance
	instances int
	hours     float64 // wall hours of the job (jobs)
	usage     cost.Usage
	extras    decimal.Decimal // egress and storage over the plan, as the cost engine prices them
}

// Advise ranks plans for the request.
func (a *Advisor) Advise(req *Request) (*Result, error) {
	sc := req.Scenario
	res := &Result{Inputs: map[string]any{}}
	sm := &speedModel{sc: sc, ref: req.Ref, bench: req.Bench}
	if req.MaxNodes == 0 {
		req.MaxNodes = 64
	}
	q := req.Select
	q.FX, q.Currency = a.FX, a.Currency
	rows, err := a.Catalog.Query(q)
	if err != nil {
		return nil, err
	}
	excl := map[string]string{}
	exclude := func(o *catalog.Offering, reason string) {
		k := fmt.Sprintf("%s ×%s (%s)", o.GPU.Name, fmtCount(o.GPUCount), o.Provider)
		if _, ok := excl[k]; !ok {
			excl[k] = reason
		}
	}
	var cands []candidate
	for _, r := range rows {
		o := r.Offering
		switch {
		case o.GPUMemoryGiB < sc.MinGPUMemoryGiB:
			exclude(o, fmt.Sprintf("%.0f GiB per GPU is below the %.0f GiB %s needs", o.GPUMemoryGiB, sc.MinGPUMemoryGiB, sc.Name))
			continue
		case o.GPUCount < 1 && sc.CommHeavy:
			exclude(o, "a slice of a GPU cannot train")
			continue
		case !o.OnDemand.Known && !o.Spot.Known:
			exclude(o, "no sourced price; supply one with --prices FILE")
			continue
		}
		s, how, err := sm.speed(o.GPU)
		if err != nil {
			exclude(o, err.Error())
			continue
		}
		eff := a.Scenarios.efficiency(sc, o.GPUCount, o.Interconnect)
		c := candidate{o: o, speed: s, speedNote: how, eff: eff, nodeSpeed: o.GPUCount * s * eff}
		if err := a.size(req, &c); err != nil {
			exclude(o, err.Error())
			continue
		}
		cands = append(cands, c)
	}
	eng := &cost.Engine{Catalog: a.Catalog, FX: a.FX, Currency: a.Currency, SkipSpot: true}
	var plans []Plan
	for i := range cands {
		ps, err := a.plansFor(req, eng, &cands[i])
		if err != nil {
			return nil, err
		}
		plans = append(plans, ps...)
	}
	if !req.NoSpot && sc.Spot && !req.Bursty {
		sp, err := a.spotPlans(req, cands, plans)
		if err != nil {
			return nil, err
		}
		plans = append(plans, sp...)
	}
	// Constraints first: budget and deadline.
	var fit []Plan
	for _, p := range plans {
		if why := violates(req, &p); why != "" {
			exclude(p.Offering, fmt.Sprintf("%s: %s", planName(&p), why))
			continue
		}
		fit = append(fit, p)
	}
	fit = commRule(req, fit, exclude)
	fit = nodeSizeRule(req, fit, exclude)
	for i := range fit {
		a.annotate(req, &fit[i])
	}
	rank(req.Objective, fit)
	a.compareWithReference(req, fit)
	res.Plans = fit
	if len(fit) == 0 && len(plans) > 0 {
		res.Violation, res.Closest = closest(req, plans)
	}
	keys := make([]string, 0, len(excl))
	for k := range excl {
		keys = append(keys, k)
	}
	// Reasons about the work first; offerings without a sourced price last.
	unpriced := func(k string) bool { return strings.HasPrefix(excl[k], "no sourced price") }
	sort.Slice(keys, func(i, j int) bool {
		if unpriced(keys[i]) != unpriced(keys[j]) {
			return !unpriced(keys[i])
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		res.Excluded = append(res.Excluded, Excluded{What: k, Reason: excl[k]})
	}
	res.Summary = a.summarize(req, res, len(rows))
	return res, nil
}

// size works out how many instances a candidate needs and how long the job takes.
func (a *Advisor) size(req *Request, c *candidate) error {
	sc := req.Scenario
	u := req.Usage
	switch {
	case req.WorkGPUHours > 0:
		nodeHours := req.WorkGPUHours / c.nodeSpeed
		k := 1
		if req.Deadline > 0 {
			for k <= req.MaxNodes && nodeHours/(float64(k)*a.Scenarios.nodeEfficiency(sc, k)) > req.Deadline {
				k++
			}
			if k > req.MaxNodes {
				return fmt.Errorf("cannot finish by the deadline even on %d instances", req.MaxNodes)
			}
		}
		c.instances = k
		c.hours = nodeHours / (float64(k) * a.Scenarios.nodeEfficiency(sc, k))
		u.DurationHours = c.hours
		u.HoursPerMonth = 0
		u.HorizonMonths = 0
	case req.Bursty:
		c.instances = int(math.Ceil(req.Base/c.nodeSpeed - 1e-9))
		u.HoursPerMonth = cost.HoursPerMonth
		u.HorizonMonths = req.HorizonMonths
	default:
		c.instances = int(math.Ceil(req.RefCount/c.nodeSpeed - 1e-9))
		u.HoursPerMonth = req.HoursPerMonth
		u.HorizonMonths = req.HorizonMonths
	}
	if c.instances < 1 {
		c.instances = 1
	}
	if c.instances > req.MaxNodes {
		return fmt.Errorf("needs %d instances, more than %d", c.instances, req.MaxNodes)
	}
	u.Instances = c.instances
	u.Egress = scaleEgress(req.Usage.Egress, 1) // shared by the whole plan, not per instance
	u, err := u.Resolved()
	if err != nil {
		return err
	}
	c.usage = u
	return nil
}

func scaleEgress(e map[string]float64, f float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range e {
		out[k] = v * f
	}
	return out
}

// plansFor prices a candidate under every non-spot model (and bursty mixes).
func (a *Advisor) plansFor(req *Request, eng *cost.Engine, c *candidate) ([]Plan, error) {
	u := c.usage
	// Egress is given for the whole workload: spread it over the instances.
	u.Egress = scaleEgress(req.Usage.Egress, 1/float64(c.instances))
	opts, err := eng.Price(&u, c.o)
	if err != nil {
		return nil, err
	}
	for i := range opts {
		if opts[i].Model == cost.ModelOnDemand && opts[i].Known {
			c.extras = opts[i].Schedule.TotalOf(cost.FlowEgress).Add(opts[i].Schedule.TotalOf(cost.FlowStorage))
		}
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
	p := Plan{Offering: c.o, Instances: c.instances, Model: o.Model, Term: o.Term, Payment: strings.TrimSpace(o.Payment + " " + o.Class),
		Total: o.Total, Currency: a.Currency, ExpectedHours: c.hours, UpfrontCash: o.Upfront, Speed: c.speed, NodeSpeed: c.nodeSpeed,
		Breakdown: breakdown(o.Schedule), Breakeven: o.Breakeven, option: o}
	p.Explanation = append(p.Explanation, c.speedNote)
	if c.o.GPUCount > 1 {
		p.Explanation = append(p.Explanation, fmt.Sprintf("%s GPUs on %s at %.0f%% scaling efficiency: %.2f reference-GPU equivalents per instance",
			fmtCount(c.o.GPUCount), c.o.Interconnect, 100*c.eff, c.nodeSpeed))
	}
	if c.hours > 0 {
		p.Explanation = append(p.Explanation, fmt.Sprintf("%s of work on %s → %d instance(s) × %.1f h", fmtGPUh(req.WorkGPUHours, req.Ref), c.o.InstanceType, c.instances, c.hours))
	} else if c.instances > 1 {
		p.Explanation = append(p.Explanation, fmt.Sprintf("%d instance(s) give the capacity of %g × %s", c.instances, req.RefCount, req.Ref.Name))
	}
	p.Explanation = append(p.Explanation, o.Explanation...)
	p.Explanation = append(p.Explanation, prefixAll("not priced: ", o.Excludes)...)
	return p
}

func prefixAll(pre string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = pre + x
	}
	return out
}

func breakdown(s cost.Schedule) map[string]decimal.Decimal {
	m := map[string]decimal.Decimal{}
	for _, k := range cost.FlowKinds {
		if v := s.TotalOf(k); !v.IsZero() {
			m[k] = v
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
			p.Total = b.Total.Add(x.Total)
			p.UpfrontCash = b.Upfront.Add(x.Upfront)
			for k, v := range breakdown(x.Schedule) {
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
			Breakdown: map[string]decimal.Decimal{cost.FlowUsage: decimal.NewFromFloat(s.CostMean)}}
		if !extras.IsZero() {
			p.Breakdown[cost.FlowEgress] = extras
		}
		if req.Deadline == 0 {
			p.PMissDeadline = 0
		}
		p.Explanation = append(p.Explanation, c.speedNote,
			fmt.Sprintf("spot %s/h, on-demand %s/h per instance (%s); interruptions %s a month (%s); simulated %d runs of %s with policy %s: mean %s, p95 %s, %.0f%% below on-demand (±%.1f%%), %.2f interruptions, finishes in %.1f h on average (p95 %.1f h), misses the deadline in %.1f%% of runs",
				fmtF(x.spot), fmtF(x.od), a.Currency, label, origin, runs, cost.FormatHours(work), pol.Name(), money.Format(decimal.NewFromFloat(s.CostMean), a.Currency),
				money.Format(decimal.NewFromFloat(s.CostP95), a.Currency), 100*s.SavingsMean, 100*s.SavingsCI95, s.InterruptionsMean, s.CompletionMean, s.CompletionP95, 100*p.PMissDeadline))
		out = append(out, p)
	}
	return out, nil
}

func fmtF(v float64) string { return decimal.NewFromFloat(v).Round(4).String() }

func fmtCount(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.3g", f)
}

func fmtGPUh(h float64, g *catalog.GPU) string {
	return fmt.Sprintf("%.0f GPU-h on %s", h, g.Name)
}

// violates says which constraint a plan breaks, or "".
func violates(req *Request, p *Plan) string {
	if req.Budget.Valid && p.Total.GreaterThan(req.Budget.Decimal) {
		return fmt.Sprintf("over budget by %s", money.Format(p.Total.Sub(req.Budget.Decimal), p.Currency))
	}
	if req.Deadline > 0 && p.ExpectedHours > req.Deadline+1e-6 {
		return fmt.Sprintf("takes %.1f h, %.1f h past the deadline", p.ExpectedHours, p.ExpectedHours-req.Deadline)
	}
	if req.Deadline > 0 && p.PMissDeadline > 0.05 {
		return fmt.Sprintf("misses the deadline in %.0f%% of simulated runs", 100*p.PMissDeadline)
	}
	return ""
}

// commRule: a communication-heavy job on ≥ 4 GPUs per node never lands on a
// PCIe-only (or unknown-link) node when an NVSwitch/NVLink node fits the constraints.
func commRule(req *Request, plans []Plan, exclude func(*catalog.Offering, string)) []Plan {
	if !req.Scenario.CommHeavy {
		return plans
	}
	fast := false
	for _, p := range plans {
		if p.Offering.GPUCount >= 4 && (p.Offering.Interconnect == catalog.LinkNVSwitch || p.Offering.Interconnect == catalog.LinkNVLink) {
			fast = true
		}
	}
	if !fast {
		return plans
	}
	var out []Plan
	for _, p := range plans {
		l := p.Offering.Interconnect
		if p.Offering.GPUCount >= 4 && (l == catalog.LinkPCIe || l == catalog.LinkUnknown) {
			exclude(p.Offering, fmt.Sprintf("%s GPUs linked by %s for %s, while NVSwitch/NVLink nodes fit the constraints", fmtCount(p.Offering.GPUCount), l, req.Scenario.Name))
			continue
		}
		out = append(out, p)
	}
	return out
}

// nodeSizeRule: a scenario that prefers at least N GPUs per node (LLM
// pre-training shards the model) drops smaller nodes when larger ones fit.
func nodeSizeRule(req *Request, plans []Plan, exclude func(*catalog.Offering, string)) []Plan {
	n := float64(req.Scenario.PreferGPUsAtLeast)
	if n == 0 {
		return plans
	}
	big := false
	for _, p := range plans {
		big = big || p.Offering.GPUCount >= n
	}
	if !big {
		return plans
	}
	var out []Plan
	for _, p := range plans {
		if p.Offering.GPUCount < n {
			exclude(p.Offering, fmt.Sprintf("%s prefers at least %g GPUs per node, and such nodes fit the constraints", req.Scenario.Name, n))
			continue
		}
		out = append(out, p)
	}
	return out
}

// annotate adds capacity risks, ecosystem notes and scenario preferences.
func (a *Advisor) annotate(req *Request, p *Plan) {
	o := p.Offering
	prov := a.Catalog.Provider(o.Provider)
	if p.Instances > 1 {
		p.Risks = append(p.Risks, fmt.Sprintf("needs %d × %s at once in %s: check the quota before you plan on it", p.Instances, o.InstanceType, dashIfEmpty(o.Region)))
	}
	if p.Model == cost.ModelSpot {
		p.Risks = append(p.Risks, "spot capacity can be reclaimed at any time; the interruption rate used is in the explanation")
	}
	if p.Model == catalog.ModelCommitment && o.Provider == "gcp" {
		p.Risks = append(p.Risks, "a committed-use discount does not reserve capacity; pair it with a reservation to hold the GPUs")
	}
	if prov != nil && prov.PriceNote != "" && o.Provider == "vast" {
		p.Risks = append(p.Risks, prov.PriceNote)
	}
	if prov != nil && prov.Ecosystem != nil {
		if prov.Ecosystem.Images != "" {
			p.Ecosystem = append(p.Ecosystem, "images: "+prov.Ecosystem.Images)
		}
		if prov.Ecosystem.Monitoring != "" {
			p.Ecosystem = append(p.Ecosystem, "monitoring: "+prov.Ecosystem.Monitoring)
		}
	}
	for _, acc := range req.Scenario.PreferAccelerators {
		if strings.EqualFold(acc, o.GPU.Family) || strings.EqualFold(acc, o.GPU.Name) {
			p.Explanation = append(p.Explanation, fmt.Sprintf("%s is a preferred accelerator for %s (low cost per inference); models must be compiled with the AWS Neuron SDK", o.GPU.Name, req.Scenario.Name))
		}
	}
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "its region"
	}
	return s
}

func planName(p *Plan) string {
	s := p.Model
	if p.Term != "" {
		s += " " + p.Term
	}
	return s
}

// rank orders plans by the objective and numbers them.
func rank(objective string, plans []Plan) {
	minCost, minHours := math.Inf(1), math.Inf(1)
	for _, p := range plans {
		minCost = math.Min(minCost, p.Total.InexactFloat64())
		if p.ExpectedHours > 0 {
			minHours = math.Min(minHours, p.ExpectedHours)
		}
	}
	score := func(p *Plan) float64 {
		c := p.Total.InexactFloat64()
		switch objective {
		case ObjectiveTime:
			if p.ExpectedHours > 0 {
				return p.ExpectedHours*1e12 + c // hours first, then cost
			}
			return c
		case ObjectiveBalanced:
			s := c / math.Max(minCost, 1e-9)
			if p.ExpectedHours > 0 {
				s += p.ExpectedHours / minHours
			}
			return s
		}
		return c
	}
	sort.SliceStable(plans, func(i, j int) bool { return score(&plans[i]) < score(&plans[j]) })
	for i := range plans {
		plans[i].Rank = i + 1
	}
}

// compareWithReference adds the decisive comparison to plans on other GPUs
// against the cheapest plan on the reference GPU's family (of the same pricing
// model where there is one): faster per GPU yet cheaper per job, or not.
func (a *Advisor) compareWithReference(req *Request, plans []Plan) {
	if req.WorkGPUHours == 0 {
		return
	}
	refFor := func(model string) *Plan {
		var best, any *Plan
		for i := range plans {
			q := &plans[i]
			if q.Offering.GPU.Family != req.Ref.Family || !q.Offering.OnDemand.Known {
				continue
			}
			if any == nil || q.Total.LessThan(any.Total) {
				any = q
			}
			if q.Model == model && (best == nil || q.Total.LessThan(best.Total)) {
				best = q
			}
		}
		if best != nil {
			return best
		}
		return any
	}
	hourly := func(x *Plan) float64 {
		v, _ := a.FX.Convert(x.Offering.OnDemand.Amount, x.Offering.OnDemand.Currency, a.Currency)
		return v.InexactFloat64() / x.Offering.GPUCount
	}
	for i := range plans {
		p := &plans[i]
		ref := refFor(p.Model)
		if ref == nil || p.Offering.GPU.Family == req.Ref.Family || !p.Offering.OnDemand.Known {
			continue
		}
		ratioCost := p.Total.InexactFloat64() / ref.Total.InexactFloat64()
		verdict, pct := "cheaper", 100*(1-ratioCost)
		if ratioCost > 1 {
			verdict, pct = "dearer", 100*(ratioCost-1)
		}
		p.Explanation = append(p.Explanation, fmt.Sprintf("%s is %.2f× as fast as %s per GPU for %s, so %.0f%% %s per job than %s %s (%s) despite %.2f× the on-demand price per GPU-hour",
			p.Offering.GPU.Name, p.Speed/ref.Speed, ref.Offering.GPU.Name, req.Scenario.Name, pct, verdict, ref.Offering.InstanceType, ref.Model,
			money.Format(ref.Total, ref.Currency), hourly(p)/hourly(ref)))
	}
}

// closest returns the plans nearest to the constraints when none meets them.
func closest(req *Request, plans []Plan) (string, []Plan) {
	cp := append([]Plan(nil), plans...)
	var why string
	switch {
	case req.Budget.Valid && req.Deadline > 0:
		why = "no plan meets both the budget and the deadline"
	case req.Budget.Valid:
		why = "no plan fits the budget"
	default:
		why = "no plan meets the deadline"
	}
	rank(ObjectiveCost, cp)
	if req.Deadline > 0 && !req.Budget.Valid {
		rank(ObjectiveTime, cp)
	}
	if len(cp) > 5 {
		cp = cp[:5]
	}
	for i := range cp {
		if v := violates(req, &cp[i]); v != "" {
			cp[i].Explanation = append([]string{"violates: " + v}, cp[i].Explanation...)
		}
	}
	best := cp[0]
	if req.Budget.Valid && best.Total.GreaterThan(req.Budget.Decimal) {
		why += fmt.Sprintf("; the cheapest plan costs %s, %s over the budget", money.Format(best.Total, best.Currency), money.Format(best.Total.Sub(req.Budget.Decimal), best.Currency))
	}
	if req.Deadline > 0 {
		fastest := math.Inf(1)
		for _, p := range plans {
			if p.ExpectedHours > 0 {
				fastest = math.Min(fastest, p.ExpectedHours)
			}
		}
		if fastest > req.Deadline {
			why += fmt.Sprintf("; the fastest plan takes %.1f h, %.1f h past the deadline", fastest, fastest-req.Deadline)
		}
	}
	return why, cp
}

// summarize writes the three decision steps of the article: scenario fit,
// cost sensitivity, elasticity.
func (a *Advisor) summarize(req *Request, res *Result, considered int) []string {
	sc := req.Scenario
	var out []string
	out = append(out, fmt.Sprintf("1. Scenario fit: %s needs ≥ %.0f GiB per GPU at %s%s; %d offerings considered, %d plans fit the constraints, %d families excluded (see excluded).",
		sc.Name, sc.MinGPUMemoryGiB, sc.Precision, map[bool]string{true: " with fast GPU links", false: ""}[sc.CommHeavy], considered, len(res.Plans), len(res.Excluded)))
	if len(res.Plans) == 0 {
		out = append(out, "2. Cost sensitivity: nothing fits; "+res.Violation+".")
		return out
	}
	best := res.Plans[0]
	switch {
	case req.WorkGPUHours > 0 && req.HorizonMonths == 0:
		line := fmt.Sprintf("2. Cost sensitivity: the job runs %.0f h on %s: ", best.ExpectedHours, best.Offering.InstanceType)
		if best.ExpectedHours < 730 {
			line += "too short for any 1-year commitment, which would cost the whole term; on-demand or spot decide."
		} else {
			line += "long enough that commitments are priced against it."
		}
		out = append(out, line)
	default:
		load := fmt.Sprintf("%g h a month", req.HoursPerMonth)
		if req.Bursty {
			load = fmt.Sprintf("a base always on and a peak for %g h a month", req.PeakHours)
		}
		line := fmt.Sprintf("2. Cost sensitivity: at %s for %s, ", load, cost.FormatMonths(req.HorizonMonths))
		if best.Breakeven != nil {
			line += fmt.Sprintf("the best plan (%s %s) beats on-demand above %.0f h a month.", best.Model, best.Term, *best.Breakeven)
		} else {
			line += fmt.Sprintf("the best plan is %s.", best.Model)
		}
		out = append(out, line)
	}
	switch {
	case req.Bursty:
		out = append(out, fmt.Sprintf("3. Elasticity: bursty load (base %g, peak %g GPUs for %g h a month): commit to the base, burst on on-demand%s.", req.Base, req.Peak, req.PeakHours, map[bool]string{true: " or spot", false: ""}[sc.Spot && !req.NoSpot]))
	case req.WorkGPUHours > 0:
		if sc.Spot && !req.NoSpot {
			out = append(out, "3. Elasticity: a one-off job is elastic: spot with checkpoints (and on-demand fallback under a deadline) is priced by simulation.")
		} else {
			out = append(out, "3. Elasticity: spot is off for this scenario or by request.")
		}
	default:
		out = append(out, "3. Elasticity: steady load: commitments (reserved, CUD, 包年包月) pay above their break-even; licences (Azure Hybrid Benefit) where Windows.")
	}
	return out
}
