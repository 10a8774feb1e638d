package advise

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/models"
	"github.com/gpuscout/gpuscout/internal/money"
)

func fmtCount(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.3g", f)
}

func fmtGPUh(h float64, g *catalog.GPU) string {
	if h < 1 {
		return fmt.Sprintf("%.2g GPU-h on %s", h, g.Name)
	}
	return fmt.Sprintf("%.0f GPU-h on %s", h, g.Name)
}

// annotate adds capacity risks, ecosystem notes and scenario preferences.
func (a *Advisor) annotate(req *Request, p *Plan) {
	o := p.Offering
	prov := a.Catalog.Provider(o.Provider)
	if p.Instances > 1 {
		p.Risks = append(p.Risks, fmt.Sprintf("needs %d × %s at once in %s: check the quota before you plan on it", p.Instances, o.InstanceType, dashIfEmpty(o.Region)))
	}
	if p.Model == catalog.ModelCapacityBlock {
		p.Risks = append(p.Risks, capacityBlockRisks...)
	}
	if p.Model == cost.ModelSpot {
		if p.Instances*int(o.GPUCount) >= 32 {
			p.Risks = append(p.Risks, fmt.Sprintf("%d spot GPUs held at once for the whole job: a gang this large is interrupted more often than the band's per-instance rate suggests when capacity is short", p.Instances*int(o.GPUCount)))
		}
	}
	if req.Model != nil && req.Model.Method == "inference" && o.GPUCount > 1 && o.Interconnect != catalog.LinkNVSwitch && o.Interconnect != catalog.LinkNVLink {
		p.Risks = append(p.Risks, fmt.Sprintf("the model is served tensor-parallel over %s GPUs linked by %s: without NVLink the all-reduce of every layer slows decoding (in the explanation, bandwidth only; the latency of each all-reduce adds more): measure it before you commit", fmtCount(o.GPUCount), o.Interconnect))
	}
	if h := req.timeLimit(); p.AsAsked && h > 0 && p.ExpectedHours > h+1e-6 {
		p.Risks = append(p.Risks, fmt.Sprintf("the shape asked for, on %s: it takes %.1f h on average, %.1f h past %s (its launches and interruptions); a deadline (--deadline) would weigh that",
			p.Model, p.ExpectedHours, p.ExpectedHours-h, req.timeLimitName()))
	}
	if strings.HasPrefix(o.GPU.Name, "GB200") && p.Instances > 1 {
		p.Risks = append(p.Risks, fmt.Sprintf("GB200 comes in NVL72 racks whose 72 GPUs share one NVLink domain; these %d VMs are modelled as separate nodes on the network, so the plan's time is pessimistic where the provider places them in one rack", p.Instances))
	}
	if p.Stages > 1 {
		p.Risks = append(p.Risks, fmt.Sprintf("each replica spans %d instances as pipeline stages: one instance down stops the replica, and the serving framework must run across nodes (vLLM: --pipeline-parallel-size %d over a Ray cluster); each hop adds the network's latency to every token", p.Stages, p.Stages))
	}
	if prov != nil {
		p.Risks = append(p.Risks, prov.RisksFor(p.Model, p.Offering.InstanceType)...)
	}
	if prov != nil && prov.Marketplace {
		if req.WorkGPUHours > 0 {
			p.Risks = append(p.Risks, "marketplace host: hardware, network and uptime vary from host to host, no provider SLA covers them, and a host can leave the market mid-job; checkpoint often and test the host first")
		} else {
			p.Risks = append(p.Risks, "marketplace host: hardware, network and uptime vary from host to host, no provider SLA covers them, and a host can leave the market: a service on it needs a standby replica elsewhere; test the host first")
		}
		if p.Instances > 1 {
			p.Risks = append(p.Risks, fmt.Sprintf("%d marketplace hosts are not one cluster: the network between them is unknown", p.Instances))
		}
	}
	if line := estimateRisk(p); line != "" {
		p.Risks = append(p.Risks, line)
	}
	weights := ""
	if req.Model != nil && req.Model.Method == "inference" {
		weights = req.Model.Weights
	}
	if why := fp16Stand(req.Scenario, weights, o.GPU); why != "" {
		p.Risks = append(p.Risks, why)
	}
	if stack, risk := softwareStack(o.GPU); risk != "" {
		p.Risks = append(p.Risks, fmt.Sprintf("software stack %s, not CUDA: %s", stack, risk))
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

// firstAsked is the best as-asked plan among ranked plans, or nil.
func firstAsked(plans []Plan) *Plan {
	for i := range plans {
		if plans[i].AsAsked {
			return &plans[i]
		}
	}
	return nil
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "its region"
	}
	return s
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
			if any == nil || q.Total.Value.LessThan(any.Total.Value) {
				any = q
			}
			if q.Model == model && (best == nil || q.Total.Value.LessThan(best.Total.Value)) {
				best = q
			}
		}
		if best != nil {
			return best
		}
		return any
	}
	// Price per GPU-hour under the plan's own pricing model (the reference
	// is a plan of the same model): spot against spot, on-demand against on-demand.
	hourly := func(x *Plan) float64 {
		if x.PricePerHour.Valid {
			return x.PricePerHour.Decimal.InexactFloat64() / x.Offering.GPUCount
		}
		v, _ := a.FX.Convert(x.Offering.OnDemand.Value, x.Offering.OnDemand.Currency, a.Currency)
		return v.InexactFloat64() / x.Offering.GPUCount
	}
	for i := range plans {
		p := &plans[i]
		ref := refFor(p.Model)
		if ref == nil || p.Offering.GPU.Family == req.Ref.Family || !p.Offering.OnDemand.Known {
			continue
		}
		ratioCost := p.Total.Value.InexactFloat64() / ref.Total.Value.InexactFloat64()
		verdict, pct := "cheaper", 100*(1-ratioCost)
		if ratioCost > 1 {
			verdict, pct = "dearer", 100*(ratioCost-1)
		}
		p.Explanation = append(p.Explanation, fmt.Sprintf("%s is %.2f× as fast as %s per GPU for %s at %.2f× its %s price per GPU-hour: %.0f%% %s per job than %s %s (%s)",
			p.Offering.GPU.Name, p.Speed/ref.Speed, ref.Offering.GPU.Name, req.Scenario.Name, hourly(p)/hourly(ref), p.Model, pct, verdict, ref.Offering.InstanceType, ref.Model,
			money.Format(ref.Total.Value, ref.Currency)))
	}
}

// summarize writes the three decision steps of the article: scenario fit,
// cost sensitivity, elasticity.
func (a *Advisor) summarize(req *Request, res *Result, considered int) []string {
	sc := req.Scenario
	var out []string
	stack := "CUDA GPUs only (--accelerators any adds Neuron, ROCm, Gaudi)"
	if req.accelerators() == AcceleratorsAny {
		stack = "any software stack (CUDA, Neuron, ROCm, Gaudi; non-CUDA plans carry the porting risk)"
	}
	out = append(out, fmt.Sprintf("1. Scenario fit: %s needs ≥ %.0f GiB per GPU at %s%s, on %s; %d offerings considered, %d plans fit the constraints, %d families excluded (see excluded).",
		sc.Name, sc.MinGPUMemoryGiB, sc.Precision, map[bool]string{true: " with fast GPU links", false: ""}[sc.CommHeavy], stack, considered, len(res.Plans), len(res.Excluded)))
	if len(res.Plans) == 0 {
		out = append(out, "2. Cost sensitivity: nothing fits; "+res.Violation+".")
		return out
	}
	best := res.Plans[0]
	switch {
	case req.WorkGPUHours > 0 && req.HorizonMonths == 0:
		line := fmt.Sprintf("2. Cost sensitivity: the job runs %.0f h on %s: ", best.ExpectedHours, best.Offering.InstanceType)
		if best.ExpectedHours < 730 {
			line += "too short for any 1-year commitment, which would cost the whole term; on-demand or spot decide"
			if hasModel(res.Plans, catalog.ModelCapacityBlock) {
				line += ", or an AWS Capacity Block that reserves the GPUs for the job's days, paid up front"
			}
			line += "."
		} else {
			line += "long enough that commitments are priced against it."
		}
		if res.TimeBudgetHours > 0 {
			line += fmt.Sprintf(" No --deadline was given: plans are sized to finish within the default budget of %s, on up to %d instances; --deadline sets yours.",
				cost.FormatHours(res.TimeBudgetHours), req.MaxNodes)
		}
		if e := req.Ref.Estimate; e != nil && req.Bench[req.Ref] == nil {
			line += fmt.Sprintf(" Your %s has no published or measured throughput: %s's figures stand in (±%.0f%%), and every other plan's hours are scaled from it; gpuscout bench on one %s and --bench make them exact.",
				req.Ref.Name, e.From, 100*e.Uncertainty, req.Ref.Name)
		}
		if ask := firstAsked(res.Plans); ask != nil && ask != &res.Plans[0] {
			line += " Against the ask " + strings.TrimPrefix(askDifference(req, &res.Plans[0], ask), "vs the ask ") + "."
		} else if ask == nil && req.Ask != nil {
			line += fmt.Sprintf(" No plan on the shape asked for (%s ×%s) meets the constraints; the excluded list says why.", req.Ask.Name, fmtCount(req.Ask.Count))
		} else if ask != nil {
			line += " The best plan is the shape asked for."
		}
		out = append(out, line)
	default:
		load := fmt.Sprintf("%g h a month", req.HoursPerMonth)
		if req.Bursty {
			load = fmt.Sprintf("a base always on and a peak for %g h a month", req.PeakHours)
		}
		line := fmt.Sprintf("2. Cost sensitivity: at %s for %s, ", load, cost.FormatMonths(req.HorizonMonths))
		switch {
		case req.RefDefault && !req.Bursty && req.Model != nil && req.Model.Method == models.MethodInference:
			line = fmt.Sprintf("2. Cost sensitivity: the throughput the load needs is not given (taken as %g × %s): a plan is the fewest replicas that hold %s, sized by its memory, and --gpu NAME:COUNT states the capacity you need; at %s for %s, ",
				req.RefCount, req.Ref.Name, req.Model.Model.Name, load, cost.FormatMonths(req.HorizonMonths))
		case req.RefDefault && !req.Bursty && (req.Model == nil || req.Model.Tokens == 0):
			line = fmt.Sprintf("2. Cost sensitivity: the load is sized by default as %g × %s (%s); at %s for %s, ", req.RefCount, req.Ref.Name, DefaultSizeHint(req), load, cost.FormatMonths(req.HorizonMonths))
		case req.RefDefault && req.Bursty:
			line = fmt.Sprintf("2. Cost sensitivity: the base and peak are counted in %s, the default GPU (--gpu NAME sets it); at %s for %s, ", req.Ref.Name, load, cost.FormatMonths(req.HorizonMonths))
		}
		if best.Breakeven != nil {
			line += fmt.Sprintf("the best plan (%s %s) beats on-demand above %.0f h a month.", best.Model, best.Term, *best.Breakeven)
		} else {
			line += fmt.Sprintf("the best plan is %s.", best.Model)
		}
		out = append(out, line)
		if note := a.unpricedCommitments(res.Plans); note != "" {
			out = append(out, "   "+note)
		}
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

// hasModel reports whether a plan is bought under model.
func hasModel(plans []Plan, model string) bool {
	for i := range plans {
		if plans[i].Model == model {
			return true
		}
	}
	return false
}

// hasSchemePrice reports whether one of the commitments is a priced scheme
// (a term of months), not only a Capacity Block.
func hasSchemePrice(cs []*catalog.Commitment) bool {
	for _, c := range cs {
		if c.IsScheme() {
			return true
		}
	}
	return false
}

// unpricedCommitments says which providers of the plans sell commitments that
// have no sourced price here: a steady load's answer "on-demand is best" only
// holds among what is priced.
func (a *Advisor) unpricedCommitments(plans []Plan) string {
	var names []string
	seen := map[string]bool{}
	for i := range plans {
		o := plans[i].Offering
		pr := a.Catalog.Provider(o.Provider)
		if pr == nil || len(pr.Schemes) == 0 || seen[o.Provider] || hasSchemePrice(a.Catalog.CommitmentsFor(o)) {
			continue
		}
		seen[o.Provider] = true
		var schemes []string
		for _, sc := range pr.Schemes {
			schemes = append(schemes, sc.Name)
		}
		names = append(names, o.Provider+" ("+strings.Join(schemes, ", ")+")")
	}
	if len(names) == 0 {
		return ""
	}
	return "Not compared: commitments sold without a sourced price here: " + strings.Join(names, "; ") +
		". For a steady load they usually beat on-demand above their break-even; give your quotes with --prices FILE (commitments:)."
}

// estimateRisk says, for a plan whose GPU's speed is estimated from another
// GPU's figures, what that rests on and what the plan becomes if the GPU is
// as much slower as the estimate's uncertainty allows; "" otherwise.
func estimateRisk(p *Plan) string {
	from := p.EstimatedFrom
	if from == nil {
		return ""
	}
	g := p.Offering.GPU
	e := g.Estimate
	line := fmt.Sprintf("throughput estimated, ±%.0f%%: no published or measured %s throughput, so %s's figures stand in (%s; %s)",
		100*e.Uncertainty, g.Name, from.Name, e.Basis, e.Source)
	if p.ExpectedHours > 0 && !p.AsAsked { // the ask's hours are the user's own statement
		slow := p.ExpectedHours / (1 - e.Uncertainty)
		line += fmt.Sprintf("; %.0f%% slower, the job takes %.1f h instead of %.1f h and its usage costs grow alike", 100*e.Uncertainty, slow, p.ExpectedHours)
	}
	return line + "; measure it with gpuscout bench and pass --bench"
}
