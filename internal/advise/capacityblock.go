package advise

import (
	"fmt"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// explainCapacityBlocks adds the trade of each Capacity Block plan against
// the same instances bought on demand and on spot (from every priced plan,
// before the constraints dropped any): what the block saves or costs, and
// what it buys (capacity held for the dates, no interruption, paid up front).
func explainCapacityBlocks(fit, all []Plan) {
	for i := range fit {
		p := &fit[i]
		if p.Model != catalog.ModelCapacityBlock {
			continue
		}
		var parts []string
		for _, model := range []string{cost.ModelOnDemand, cost.ModelSpot} {
			q := samePlan(all, p, model)
			if q == nil {
				continue
			}
			diff := p.Total.Value.Sub(q.Total.Value)
			switch {
			case diff.IsNegative():
				parts = append(parts, fmt.Sprintf("%s less than %s (%s)", money.Format(diff.Neg(), p.Currency), model, money.Format(q.Total.Value, q.Currency)))
			case diff.IsPositive():
				parts = append(parts, fmt.Sprintf("%s more than %s (%s)", money.Format(diff, p.Currency), model, money.Format(q.Total.Value, q.Currency)))
			default:
				parts = append(parts, "the same as "+model)
			}
		}
		if len(parts) == 0 {
			continue
		}
		p.Explanation = append(p.Explanation, "Capacity Block trade on the same instances: "+strings.Join(parts, "; ")+
			"; the block holds the GPUs for its dates and is never interrupted, where on-demand capacity may not be there when you launch and spot can be reclaimed, but it is paid up front and unused days are lost")
	}
}

// samePlan is the plan of p's offering and instance count under model, or nil.
func samePlan(all []Plan, p *Plan, model string) *Plan {
	for i := range all {
		q := &all[i]
		if q.Model == model && q.Offering == p.Offering && q.Instances == p.Instances {
			return q
		}
	}
	return nil
}

// capacityBlockRisks are what a Capacity Block plan commits to (source
// aws-capacity-blocks-docs): fixed dates, instances ended with the block.
var capacityBlockRisks = []string{
	"a Capacity Block is bought for fixed dates, only if AWS has the capacity on sale for them; it ends at 11:30 UTC and its instances are terminated then: checkpoint before the end, or extend the block in time (extensions are not guaranteed either)",
}
