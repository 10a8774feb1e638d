package advise

import (
	"fmt"
	"sort"
	"strings"

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
	sm := &speedModel{sc: sc, ref: req.Ref, bench: req.Bench}
	cm := newCommModel(requestWorkload(req), a.Scenarios.Comm, sm, req.RefCount)
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
	mfit := newMemoryFit(req)
	for _, r := range rows {
		o := r.Offering
		switch {
		case o.GPUMemoryClassGB() == 0 && sc.MinGPUMemoryGiB > 0:
			exclude(o, fmt.Sprintf("memory per GPU is not sourced; %s needs %.0f GB", sc.Name, sc.MinGPUMemoryGiB))
			continue
		case o.GPUMemoryClassGB() < sc.MinGPUMemoryGiB: // the card's nominal class: an H100 listed at 79.6 GiB is an 80 GB card
			exclude(o, fmt.Sprintf("%.0f GB per GPU is below the %.0f GB %s needs", o.GPUMemoryClassGB(), sc.MinGPUMemoryGiB, sc.Name))
			continue
		case o.GPUCount < 1 && sc.CommHeavy:
			exclude(o, "a slice of a GPU cannot train")
			continue
		case !o.OnDemand.Known && !o.Spot.Known:
			exclude(o, "no sourced price; supply one with --prices FILE")
			continue
		}
		minNodes, why := mfit.nodes(o, req.MaxNodes)
		if why != "" {
			exclude(o, why)
			continue
		}
		s, how, err := sm.speed(o.GPU)
		if err != nil {
			exclude(o, err.Error())
			continue
		}
		sh := cm.shapeOf(o, s)
		eff, r := cm.efficiency(sh)
		c := candidate{o: o, speed: s, speedNote: how, eff: eff, nodeSpeed: o.GPUCount * s * eff, comm: cm, shape: sh, minNodes: minNodes, commNote: cm.note(r, sh)}
		if err := a.size(req, &c); err != nil {
			exclude(o, err.Error())
			continue
		}
		cands = append(cands, c)
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
	if !req.NoSpot && sc.Spot && !req.Bursty {
		spotEng := *eng
		spotEng.SkipSpot = false
		sp, err := a.spotPlans(req, &spotEng, cands, plans)
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
	fit = networkRule(req, a.Catalog, fit, exclude)
	fit = nodeSizeRule(req, fit, exclude)
	for i := range fit {
		a.annotate(req, &fit[i])
		mfit.explain(req, &fit[i])
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
