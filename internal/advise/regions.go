package advise

import (
	"slices"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
)

// plansElsewhere prices the ways to pay (commitment terms, Capacity
// Blocks) that another region sells cheaper than each candidate's own,
// its type's cheapest on-demand region: the regions cost.WaysElsewhere
// names within the request's filters, each for those ways only. keepCheapestWays
// then keeps each way's cheaper plan, so every way to pay is planned in
// the region where it costs least, as `gpuscout cost` quotes it.
// (Spot plans have their own region choice; bursty mixes keep the base's
// region.)
func (a *Advisor) plansElsewhere(req *Request, eng *cost.Engine, q catalog.Query, cands []candidate) ([]Plan, error) {
	type typeKey struct{ provider, instanceType string }
	// Only the types some other region sells a commitment or block of are
	// queried again, in every region.
	sold := map[typeKey][]string{}
	for i := range a.Catalog.Commitments {
		x := &a.Catalog.Commitments[i]
		k := typeKey{x.Provider, x.InstanceType}
		if !slices.Contains(sold[k], x.Region) {
			sold[k] = append(sold[k], x.Region)
		}
	}
	q.InstanceTypes = nil
	for i := range cands {
		o := cands[i].o
		rs := sold[typeKey{o.Provider, o.InstanceType}]
		if slices.ContainsFunc(rs, func(r string) bool { return r != o.Region }) && !slices.Contains(q.InstanceTypes, o.InstanceType) {
			q.InstanceTypes = append(q.InstanceTypes, o.InstanceType)
		}
	}
	if len(q.InstanceTypes) == 0 {
		return nil, nil
	}
	q.AllRegions = true
	rows, err := a.Catalog.Query(q)
	if err != nil {
		return nil, err
	}
	byType := map[typeKey][]*catalog.Offering{}
	for _, r := range catalog.PerRegion(rows) {
		k := typeKey{r.Offering.Provider, r.Offering.InstanceType}
		byType[k] = append(byType[k], r.Offering)
	}
	var out []Plan
	for i := range cands {
		c := &cands[i]
		elsewhere := cost.WaysElsewhere(a.Catalog, a.FX, &c.usage, c.o, byType[typeKey{c.o.Provider, c.o.InstanceType}])
		for _, o := range byType[typeKey{c.o.Provider, c.o.InstanceType}] { // the catalog's order of regions
			ways, ok := elsewhere[o]
			if !ok {
				continue
			}
			v := *c
			v.o = o
			ps, err := a.plansFor(req, eng, &v)
			if err != nil {
				return nil, err
			}
			for _, p := range ps {
				if p.option != nil && slices.Contains(ways, cost.WayOf(p.option)) {
					out = append(out, p)
				}
			}
		}
	}
	return out, nil
}

// keepCheapestWays keeps, of the plans of one instance type that pay the
// same way (commitment or Capacity Block) in different regions, the one
// with the lowest total (the first on a tie), in the plans' order.
func keepCheapestWays(plans []Plan) []Plan {
	type wayKey struct {
		provider, instanceType string
		way                    cost.Way
	}
	best := map[wayKey]int{}
	keep := make([]bool, len(plans))
	for i := range plans {
		p := &plans[i]
		keep[i] = true
		if p.option == nil || p.Model == cost.ModelOnDemand || p.Model == cost.ModelSpot || p.Mix != "" {
			continue
		}
		k := wayKey{p.Offering.Provider, p.Offering.InstanceType, cost.WayOf(p.option)}
		j, seen := best[k]
		switch {
		case !seen:
			best[k] = i
		case p.Total.Value.LessThan(plans[j].Total.Value):
			keep[j], best[k] = false, i
		default:
			keep[i] = false
		}
	}
	out := plans[:0:0]
	for i := range plans {
		if keep[i] {
			out = append(out, plans[i])
		}
	}
	return out
}
