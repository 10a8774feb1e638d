package advise

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// rank orders plans by the objective and numbers them.
func rank(objective string, plans []Plan) {
	minCost, minHours := math.Inf(1), math.Inf(1)
	for _, p := range plans {
		minCost = math.Min(minCost, p.Total.Value.InexactFloat64())
		if p.ExpectedHours > 0 {
			minHours = math.Min(minHours, p.ExpectedHours)
		}
	}
	score := func(p *Plan) float64 {
		c := p.Total.Value.InexactFloat64()
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

// closest returns, when no plan meets the constraints, which constraint
// fails and by how much, and the plans nearest to meeting them, each with
// what it violates.
func closest(req *Request, plans []Plan) (string, []Plan) {
	cp := append([]Plan(nil), plans...)
	limit := req.Deadline
	limitName := "the " + cost.FormatHours(req.Deadline) + " deadline"
	if limit == 0 && req.timeLimit() > 0 {
		limit, limitName = req.timeLimit(), req.timeLimitName()
	}
	meetsTime := func(p *Plan) bool { return limit == 0 || p.AsAsked || p.ExpectedHours <= limit+1e-6 }
	var parts []string
	if req.Budget.Valid {
		var cheapest *Plan
		for i := range cp {
			if meetsTime(&cp[i]) && (cheapest == nil || cp[i].Total.Value.LessThan(cheapest.Total.Value)) {
				cheapest = &cp[i]
			}
		}
		if cheapest != nil && cheapest.Total.Value.GreaterThan(req.Budget.Decimal) {
			what := "the cheapest plan"
			if limit > 0 {
				what += " that meets " + limitName
			}
			parts = append(parts, fmt.Sprintf("budget: %s needs %d × %s (%s) and %s, over the budget of %s by %s", what, cheapest.Instances, cheapest.Offering.InstanceType,
				cheapest.Offering.Provider, money.Format(cheapest.Total.Value, cheapest.Currency), money.Format(req.Budget.Decimal, cheapest.Currency),
				money.Format(cheapest.Total.Value.Sub(req.Budget.Decimal), cheapest.Currency)))
		}
	}
	if limit > 0 {
		var fastest *Plan
		for i := range cp {
			if cp[i].ExpectedHours > 0 && (fastest == nil || cp[i].ExpectedHours < fastest.ExpectedHours) {
				fastest = &cp[i]
			}
		}
		if fastest != nil && fastest.ExpectedHours > limit+1e-6 {
			part := fmt.Sprintf("time: the fastest plan, %d × %s (%s), takes %.1f h, %.1f h past %s", fastest.Instances, fastest.Offering.InstanceType,
				fastest.Offering.Provider, fastest.ExpectedHours, fastest.ExpectedHours-limit, limitName)
			if fastest.Instances >= req.MaxNodes {
				// Perfect scaling is the best case: communication only adds.
				need := int(math.Ceil(float64(fastest.Instances)*fastest.ExpectedHours/limit - 1e-9))
				part += fmt.Sprintf(" on --max-nodes %d; even scaling perfectly it would need at least %d instances (--max-nodes %d), or a later deadline", req.MaxNodes, need, need)
			}
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		switch {
		case req.Budget.Valid && limit > 0:
			parts = append(parts, "budget and time: the plans within "+limitName+" cost more than the budget, and those within the budget take longer")
		case req.Deadline > 0:
			parts = append(parts, "deadline: every plan misses it in more than 5% of simulated runs")
		default:
			parts = append(parts, "no plan meets the constraints")
		}
	}
	// Closest first: by how far each misses, relative to the constraint it breaks.
	margin := func(p *Plan) float64 { _, m := violation(req, p); return m }
	sort.SliceStable(cp, func(i, j int) bool {
		mi, mj := margin(&cp[i]), margin(&cp[j])
		if mi != mj {
			return mi < mj
		}
		return cp[i].Total.Value.LessThan(cp[j].Total.Value)
	})
	if len(cp) > 5 {
		cp = cp[:5]
	}
	for i := range cp {
		cp[i].Rank = i + 1
		if v := violates(req, &cp[i]); v != "" {
			cp[i].Explanation = append([]string{"violates: " + v}, cp[i].Explanation...)
		}
	}
	return strings.Join(parts, "; "), cp
}
