package advise

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Advisor plans work on a catalog.
type Advisor struct {
	Catalog   *catalog.Catalog
	FX        *money.FX
	Currency  money.Currency
	Scenarios *Scenarios
	SpotRuns  int // simulated runs per spot plan; 0: spot.DefaultRuns
	// Now is today, for the age of prices; nil: the system clock.
	Now func() time.Time
}

func (a *Advisor) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// Advise ranks plans for the request. It plans on a copy of the request
// with Defaults applied, and rejects what Validate rejects.
func (a *Advisor) Advise(in *Request) (*Result, error) {
	r := *in
	r.Defaults()
	if err := r.Validate(); err != nil {
		return nil, err
	}
	req := &r
	sc := req.Scenario
	res := &Result{Inputs: map[string]any{}}
	if req.Deadline == 0 && req.IsJob() && (req.Ask == nil || req.Ask.Hours == 0) {
		res.TimeBudgetHours = req.timeLimit()
	}
	sm := &speedModel{sc: sc, ref: req.Ref, bench: req.Bench, cat: a.Catalog}
	cm := newCommModel(requestWorkload(req), a.Scenarios.Comm, sm, req.RefCount)
	q := req.Select
	q.FX, q.Currency = a.FX, a.Currency
	rows, err := a.Catalog.Query(q)
	if err != nil {
		return nil, err
	}
	var excl exclusions
	mfit := newMemoryFit(req)
	// candidates sizes every row that fits the scenario; record says whether
	// its exclusions are reported (the spot pass sees the same families again).
	candidates := func(rows []catalog.Row, record bool) []candidate {
		var cands []candidate
		excl := &excl
		if !record {
			excl = &exclusions{}
		}
		exclude := func(o *catalog.Offering, reason string) { excl.add(o, reason, stageSize, 0) }
		for _, r := range rows {
			o := r.Offering
			asked := req.Ask.matches(o)
			switch {
			case !asked && stackExcludes(req, o.GPU) != "":
				excl.add(o, stackExcludes(req, o.GPU), stageFit, 0)
				continue
			case o.GPUMemoryClassGB() == 0 && sc.MinGPUMemoryGiB > 0:
				excl.add(o, fmt.Sprintf("memory per GPU is not sourced; %s needs %.0f GB", sc.Name, sc.MinGPUMemoryGiB), stageFit, 0)
				continue
			case o.GPUMemoryClassGB() < sc.MinGPUMemoryGiB: // the card's nominal class: an H100 listed at 79.6 GiB is an 80 GB card
				excl.add(o, fmt.Sprintf("%.0f GB per GPU is below the %.0f GB %s needs", o.GPUMemoryClassGB(), sc.MinGPUMemoryGiB, sc.Name), stageFit, 0)
				continue
			case o.GPUCount < 1 && sc.CommHeavy:
				excl.add(o, "a slice of a GPU cannot train", stageFit, 0)
				continue
			case sc.RequiresBF16 && o.GPU.BF16.Unsupported:
				excl.add(o, noBF16Exclusion(sc, o.GPU), stageFit, 0)
				continue
			case !o.OnDemand.Known && !o.Spot.Known:
				excl.add(o, "no sourced price; supply one with --prices FILE", stagePrice, 0)
				continue
			}
			minNodes, why := mfit.nodes(o, req.MaxNodes)
			if why != "" {
				// Held back only by a limit (--max-nodes, the pipeline's
				// length) rather than by the GPU: the closest of the
				// misfits, the most memory an instance first.
				key := 0.0
				if strings.Contains(why, "more than") {
					key = -o.GPUCount * o.GPUMemoryClassGB()
				}
				excl.add(o, why, stageFit, key)
				continue
			}
			g := a.Catalog.Conservative(o.GPU) // a generic entry's missing figures: its variants' lowest
			s, how, err := sm.speed(g)
			if err != nil {
				excl.add(o, err.Error(), stageSpeed, 0)
				continue
			}
			sh := cm.shapeOf(o, s)
			eff, r := cm.efficiency(sh)
			c := candidate{o: o, speed: s, speedNote: how, eff: eff, nodeSpeed: o.GPUCount * s * eff, comm: cm, shape: sh, minNodes: minNodes, commNote: cm.note(r, sh),
				estimatedFrom: sm.estimatedFrom(g)}
			if mfit.serving() {
				if why := servingRefusal(req, a.Catalog.Provider(o.Provider), o, minNodes); why != "" {
					excl.add(o, why, stageFit, 0)
					continue
				}
				_, bw, _, _, _ := sm.figures(g)
				sp := servingShape(mfit.mem, o, sh, bw, minNodes, cm.p)
				c.serving, c.eff = &sp, c.eff*sp.eff
				c.nodeSpeed *= sp.eff
			}
			if err := a.size(req, &c); err != nil {
				exclude(o, "cannot be sized for the work: "+err.Error())
				continue
			}
			cands = append(cands, c)
		}
		return cands
	}
	cands := candidates(rows, true)
	// Spot plans come from each type's region with the cheapest spot price
	// (within the user's filters), not from its cheapest on-demand region.
	spotCands := cands
	if !req.NoSpot && sc.Spot && !req.Bursty {
		qs := q
		qs.Spot = true
		spotRows, err := a.Catalog.Query(qs)
		if err != nil {
			return nil, err
		}
		spotCands = candidates(spotRows, false)
	}
	// One spot model for every plan: the engine's, deadline-aware, cached per job shape.
	spotModel := &cost.SimModel{Runs: a.SpotRuns, Deadline: req.Deadline}
	eng := &cost.Engine{Catalog: a.Catalog, FX: a.FX, Currency: a.Currency, Spot: spotModel, SkipSpot: true}
	var plans []Plan
	for i := range cands {
		ps, err := a.plansFor(req, eng, &cands[i])
		if err != nil {
			return nil, err
		}
		plans = append(plans, ps...)
	}
	if !req.Bursty {
		// Each commitment and Capacity Block in the region where it costs least.
		more, err := a.plansElsewhere(req, eng, q, cands)
		if err != nil {
			return nil, err
		}
		plans = keepCheapestWays(append(plans, more...))
	}
	if !req.NoSpot && sc.Spot && !req.Bursty {
		spotEng := *eng
		spotEng.SkipSpot = false
		if req.SpotRegions > 1 {
			spotEng.Spot = &failoverModel{a: a, req: req, sim: spotModel}
		}
		sp, err := a.spotPlans(req, &spotEng, spotCands, plans)
		if err != nil {
			return nil, err
		}
		plans = append(plans, sp...)
	}
	// Constraints first: budget and deadline.
	var fit, asked []Plan
	best := map[string]float64{} // the best total of each family's plans that meet the constraints
	for _, p := range plans {
		if why, margin := violation(req, &p); why != "" {
			excl.add(p.Offering, fmt.Sprintf("%s: %s", planName(&p), why), stageConstraint, margin)
			continue
		}
		k := familyKey(p.Offering)
		if v, ok := best[k]; !ok || p.Total.Value.InexactFloat64() < v {
			best[k] = p.Total.Value.InexactFloat64()
		}
		if p.AsAsked {
			asked = append(asked, p) // the user's own shape: shown whatever the scenario's rules prefer
			continue
		}
		fit = append(fit, p)
	}
	ruleDrop := func(o *catalog.Offering, reason string) { excl.add(o, reason, stageRule, best[familyKey(o)]) }
	fit = commRule(req, fit, ruleDrop)
	fit = networkRule(req, a.Catalog, fit, ruleDrop)
	fit = nodeSizeRule(req, fit, ruleDrop)
	fit = append(asked, fit...)
	now := a.now()
	for i := range fit {
		datePrices(a.Catalog, &fit[i], now)
		a.annotate(req, &fit[i])
		mfit.explain(req, &fit[i])
	}
	rank(req.Objective, fit)
	if !req.NoSpot && sc.Spot && !req.Bursty {
		// The hindsight optimum of the best spot plan, on the same runs.
		floorEng := *eng
		floorEng.SkipSpot = false
		floorSim := &cost.SimModel{Runs: a.SpotRuns, Deadline: req.Deadline, Floor: true}
		floorEng.Spot = floorSim
		if req.SpotRegions > 1 {
			floorEng.Spot = &failoverModel{a: a, req: req, sim: floorSim}
		}
		if err := a.floorForBest(req, &floorEng, fit); err != nil {
			return nil, err
		}
	}
	explainCapacityBlocks(fit, plans)
	if !a.compareWithAsk(req, fit) {
		a.compareWithReference(req, fit)
	}
	res.Plans = fit
	switch {
	case len(fit) == 0 && len(plans) > 0:
		res.Violation, res.Closest = closest(req, plans)
	case len(fit) == 0:
		res.Violation = excl.whyNoneFits(len(rows))
	}
	res.Excluded = excl.list() // closest first
	res.Summary = a.summarize(req, res, len(rows))
	return res, nil
}
