package advise

import (
	"fmt"
	"math"
	"sort"

	"github.com/gpuscout/gpuscout/internal/money"
)

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
