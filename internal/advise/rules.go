package advise

import (
	"fmt"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// violates says which constraint a plan breaks, or "".
func violates(req *Request, p *Plan) string {
	why, _ := violation(req, p)
	return why
}

// violation says which constraints a plan breaks ("" if none) and by how
// much: the sum of its misses relative to each constraint (0.25: a quarter
// over the budget or past the time), so that near misses can be told from
// far ones.
func violation(req *Request, p *Plan) (string, float64) {
	var whys []string
	margin := 0.0
	if req.Budget.Valid && p.Total.Value.GreaterThan(req.Budget.Decimal) {
		over := p.Total.Value.Sub(req.Budget.Decimal)
		whys = append(whys, fmt.Sprintf("costs %s, over the budget by %s", money.Format(p.Total.Value, p.Currency), money.Format(over, p.Currency)))
		margin += over.InexactFloat64() / req.Budget.Decimal.InexactFloat64()
	}
	switch h := req.timeLimit(); {
	case req.Deadline > 0 && p.ExpectedHours > req.Deadline+1e-6:
		why := fmt.Sprintf("takes %.1f h, %.1f h past the %s deadline", p.ExpectedHours, p.ExpectedHours-req.Deadline, cost.FormatHours(req.Deadline))
		if p.Instances >= req.MaxNodes {
			why += fmt.Sprintf(" even on %d instances (--max-nodes)", p.Instances)
		}
		whys = append(whys, why)
		margin += (p.ExpectedHours - req.Deadline) / req.Deadline
	case req.Deadline > 0 && p.PMissDeadline > 0.05:
		whys = append(whys, fmt.Sprintf("misses the deadline in %.0f%% of simulated runs", 100*p.PMissDeadline))
		margin += p.PMissDeadline
	case h > 0 && !p.AsAsked && p.ExpectedHours > h+1e-6: // the ask's own shape is the baseline (a spot one that runs longer says so: explain.go)
		why := fmt.Sprintf("takes %.0f h, past %s; --deadline allows longer", p.ExpectedHours, req.timeLimitName())
		if p.Instances >= req.MaxNodes {
			why += fmt.Sprintf(" (already on %d instances, --max-nodes)", p.Instances)
		}
		whys = append(whys, why)
		margin += (p.ExpectedHours - h) / h
	}
	return strings.Join(whys, "; "), margin
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
			by := "linked by " + l
			if l == catalog.LinkUnknown {
				by = "on a link no source names"
			}
			exclude(p.Offering, fmt.Sprintf("%s GPUs %s for %s, while NVSwitch/NVLink nodes fit the constraints", fmtCount(p.Offering.GPUCount), by, req.Scenario.Name))
			continue
		}
		out = append(out, p)
	}
	return out
}

// networkRule: a communication-heavy plan on more than one instance needs a
// fast network between them and no marketplace hosts, unless allowed
// (networkRefusal). Sizing already refuses such shapes; this holds for every
// plan, mixes included.
func networkRule(req *Request, c *catalog.Catalog, plans []Plan, exclude func(*catalog.Offering, string)) []Plan {
	var out []Plan
	for _, p := range plans {
		if p.Instances > 1 {
			if why := networkRefusal(req, c.Provider(p.Offering.Provider), p.Offering); why != "" {
				exclude(p.Offering, fmt.Sprintf("%s: needs %d instances, and %s", planName(&p), p.Instances, why))
				continue
			}
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
