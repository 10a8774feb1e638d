package advise

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Ask is the shape and time the user named: --gpu NAME:COUNT --for D. Its
// plans (that GPU, that count, on every provider) are the baseline every
// other plan is compared with, and --for is the time the user has unless
// --deadline says otherwise.
type Ask struct {
	Name  string         // the GPU as the user wrote it
	GPUs  []*catalog.GPU // what the name means: every variant of a generic or family name
	Count float64        // GPUs per instance
	Hours float64        // --for, in hours
	For   string         // --for as given, e.g. "7d"
}

// NewAsk resolves the named GPU: a family (A100) or generic name
// (A100-80GB) gives every variant; a variant also matches the generic entry
// of its family and memory, which may be it.
func NewAsk(cat *catalog.Catalog, name string, count, hours float64, given string) (*Ask, error) {
	gs, err := cat.LookupGPU(name)
	if err != nil {
		return nil, err
	}
	a := &Ask{Name: name, Count: count, Hours: hours, For: given}
	seen := map[*catalog.GPU]bool{}
	add := func(g *catalog.GPU) {
		if !seen[g] {
			seen[g] = true
			a.GPUs = append(a.GPUs, g)
		}
	}
	for _, g := range gs {
		add(g)
		for _, x := range cat.GPUs {
			if x.Generic && x.Family == g.Family && x.MemoryClassGB.Known && g.MemoryClassGB.Known && x.MemoryClassGB.Value == g.MemoryClassGB.Value {
				add(x)
			}
		}
	}
	return a, nil
}

// FullNodeGPUs is the least GPUs of an instance that an ask larger than
// one instance is built of: multi-node training runs on whole 8-GPU nodes.
const FullNodeGPUs = 8

// instances is how many instances of o make the shape asked: 1 where o
// has the GPUs asked; Count / GPUs where the ask is larger than o and o is
// a full node (FullNodeGPUs or more) that divides it (--gpu A100:16 is two
// p4d.24xlarge); 0 where o is not the shape.
func (a *Ask) instances(o *catalog.Offering) int {
	if a == nil || !slices.Contains(a.GPUs, o.GPU) {
		return 0
	}
	switch {
	case o.GPUCount == a.Count:
		return 1
	case a.Count > o.GPUCount && o.GPUCount >= FullNodeGPUs && math.Mod(a.Count, o.GPUCount) == 0:
		return int(a.Count / o.GPUCount)
	}
	return 0
}

// matches says whether an offering is (a node of) the shape asked for.
func (a *Ask) matches(o *catalog.Offering) bool { return a.instances(o) > 0 }

// nodes is the instances of full nodes the ask needs at least.
func (a *Ask) nodes() int {
	if a == nil {
		return 0
	}
	return int(math.Ceil(a.Count/FullNodeGPUs - 1e-9))
}

// timeLimit is the time the user has for a job when no --deadline is
// given: --for. 0 when there is none (or --deadline rules).
func (r *Request) timeLimit() float64 {
	switch {
	case r.Deadline > 0 || !r.IsJob():
		return 0
	case r.Ask != nil && r.Ask.Hours > 0:
		return r.Ask.Hours
	}
	return DefaultTimeBudgetHours
}

// wallLimit is the time a job's plans are sized to finish in: the
// deadline, else timeLimit; 0 for loads.
func (r *Request) wallLimit() float64 {
	if r.Deadline > 0 {
		return r.Deadline
	}
	return r.timeLimit()
}

// limitName names wallLimit for messages: "the 720 h deadline", else
// timeLimitName.
func (r *Request) limitName() string {
	if r.Deadline > 0 {
		return fmt.Sprintf("the %s deadline", cost.FormatHours(r.Deadline))
	}
	return r.timeLimitName()
}

// timeLimitName names timeLimit for messages: "the 168 h you have (--for
// 7d)" or "the default budget of 720 h (no --deadline given)".
func (r *Request) timeLimitName() string {
	h := r.timeLimit()
	if r.Ask != nil && r.Ask.Hours > 0 {
		return fmt.Sprintf("the %s you have (--for %s)", cost.FormatHours(h), r.Ask.For)
	}
	return fmt.Sprintf("the default budget of %s (no --deadline given)", cost.FormatHours(h))
}

// perGPUHour is a plan's price per GPU-hour under its pricing model; NaN if unknown.
func perGPUHour(p *Plan) float64 {
	if !p.PricePerHour.Valid || p.Offering.GPUCount <= 0 {
		return math.NaN()
	}
	return p.PricePerHour.Decimal.InexactFloat64() / p.Offering.GPUCount
}

// compareWithAsk states each plan's difference from the best as-asked plan
// (the first in rank order): hours faster or slower, money cheaper or
// dearer, and why: the per-GPU throughput ratio and the price per GPU-hour.
// It reports whether there was an as-asked plan to compare with.
func (a *Advisor) compareWithAsk(req *Request, plans []Plan) bool {
	var base *Plan
	for i := range plans {
		if plans[i].AsAsked {
			base = &plans[i]
			break
		}
	}
	if base == nil {
		return false
	}
	for i := range plans {
		p := &plans[i]
		if p == base {
			p.Explanation = append(p.Explanation, fmt.Sprintf("the best plan on the shape asked for (%s ×%s for %s): the baseline the other plans are compared with",
				req.Ask.Name, fmtCount(req.Ask.Count), req.Ask.For))
			continue
		}
		p.Explanation = append(p.Explanation, askDifference(req, p, base))
	}
	return true
}

// askDifference is one line: how p differs from the baseline plan, and why.
func askDifference(req *Request, p, base *Plan) string {
	dh := p.ExpectedHours - base.ExpectedHours
	when := "as fast"
	switch {
	case dh < -0.05:
		when = fmt.Sprintf("%.1f h faster", -dh)
	case dh > 0.05:
		when = fmt.Sprintf("%.1f h slower", dh)
	}
	diff := p.Total.Value.Sub(base.Total.Value)
	cost := "the same cost"
	switch {
	case diff.IsNegative():
		cost = money.Format(diff.Neg(), p.Currency) + " cheaper"
	case diff.IsPositive():
		cost = money.Format(diff, p.Currency) + " dearer"
	}
	line := fmt.Sprintf("vs the ask (#%d %s %s %s, %.1f h, %s): %s and %s; per GPU %.2f× the speed of %s",
		base.Rank, base.Offering.Provider, base.Offering.InstanceType, planName(base), base.ExpectedHours, money.Format(base.Total.Value, base.Currency),
		when, cost, p.Speed/base.Speed, base.Offering.GPU.Name)
	ph, bh := perGPUHour(p), perGPUHour(base)
	if !math.IsNaN(ph) && !math.IsNaN(bh) && bh > 0 {
		line += fmt.Sprintf(" at %.2f× the price per GPU-hour (%.2f vs %.2f %s)", ph/bh, ph, bh, p.Currency)
	}
	if p.Instances*int(p.Offering.GPUCount) != base.Instances*int(base.Offering.GPUCount) {
		line += fmt.Sprintf(", on %s GPUs instead of %s", fmtCount(float64(p.Instances)*p.Offering.GPUCount), fmtCount(float64(base.Instances)*base.Offering.GPUCount))
	}
	return line
}
