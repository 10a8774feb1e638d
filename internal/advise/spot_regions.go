package advise

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/models"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Bounds of a spot plan's failover (--spot-regions, --checkpoint-gb),
// documented in README (advise).
const (
	MaxSpotRegions  = 10     // regions a spot plan may fail over among
	MaxCheckpointGB = 100000 // GB of job state moved per failover (100 TB)
	// checkpointBytesPerParam is what a training checkpoint holds per
	// trained parameter: mixed-precision Adam's state (models.AdamBytesPerParam,
	// 16 B: ZeRO §3.1) less the 2 B of bf16 gradients, which are not saved:
	// bf16 weights + fp32 master weights, momentum and variance.
	checkpointBytesPerParam = models.AdamBytesPerParam - 2
)

// jobState is the job's state a failover moves, in GB, and where the
// figure comes from: --checkpoint-gb, else the --model being trained (or
// served), else the scenario's reference model; 0 where none gives one.
func jobState(req *Request) (gb float64, how string) {
	switch {
	case req.CheckpointGB > 0:
		return req.CheckpointGB, fmt.Sprintf("%g GB of job state (--checkpoint-gb)", req.CheckpointGB)
	case req.Model != nil && req.Model.Model != nil:
		md := req.Model.Model
		switch req.Model.Method {
		case models.MethodFull:
			b := checkpointBytesPerParam * md.Parameters
			return b / bytesPerGB, fmt.Sprintf("%s of job state: %s params of %s × %d B (bf16 weights + fp32 master weights, momentum and variance: Adam's 16 B a parameter, ZeRO §3.1, less the gradients)",
				fmtGB(b), models.FormatParams(md.Parameters), md.Name, checkpointBytesPerParam)
		case models.MethodLoRA, models.MethodQLoRA:
			a, ok := md.LoRAParameters(req.Model.LoRARank)
			if !ok {
				return 0, fmt.Sprintf("%s's adapter size is not known (its attention shapes are not in the table)", md.Name)
			}
			b := checkpointBytesPerParam * a
			return b / bytesPerGB, fmt.Sprintf("%s of job state: %s rank-%d adapter params × %d B (weights and Adam state, ZeRO §3.1, less the gradients); the frozen base weights are fetched where the job lands, not moved",
				fmtGB(b), models.FormatParams(a), req.Model.LoRARank, checkpointBytesPerParam)
		case models.MethodInference:
			wb := models.WeightBytes[req.Model.Weights]
			b := wb * md.Parameters
			return b / bytesPerGB, fmt.Sprintf("%s of job state: %s's weights at %s (%g B a parameter)", fmtGB(b), md.Name, req.Model.Weights, wb)
		}
	case req.Scenario != nil && req.Scenario.ReferenceParameters > 0:
		n := req.Scenario.ReferenceParameters
		b := checkpointBytesPerParam * n
		return b / bytesPerGB, fmt.Sprintf("%s of job state: %s's reference model in scenarios.yaml, %s params × %d B (bf16 weights + fp32 master weights, momentum and variance: Adam's 16 B a parameter, ZeRO §3.1, less the gradients)",
			fmtGB(b), req.Scenario.Name, models.FormatParams(n), checkpointBytesPerParam)
	}
	return 0, ""
}

// failoverInfo is what a plan's explanation says about its failover: the
// job state's size and source, each region's move price, and the regions
// left out and why (or why the plan stays in one region).
type failoverInfo struct {
	state string
	moves []string
	notes []string
}

// failover gathers the regions a spot plan on o may fail over among: o's
// region first, then the cheapest others (up to req.SpotRegions in all) of
// o's provider where o's instance type has a spot and an on-demand price in
// the advisor's currency, within the user's region filters. Each region's
// interruption band is the catalog's choice (SpotBandChoice); a move costs
// the job's state at the catalog's cross-region egress price of the region
// it leaves. A region whose egress or prices are unknown is left out, with a
// note; nil when fewer than two regions remain.
func (a *Advisor) failover(req *Request, o *catalog.Offering) (*cost.SpotFailover, *failoverInfo, error) {
	gb, how := jobState(req)
	info := &failoverInfo{state: how}
	only := func(format string, args ...any) (*cost.SpotFailover, *failoverInfo, error) {
		info.notes = append(info.notes, fmt.Sprintf("spot in %s only: ", o.Region)+fmt.Sprintf(format, args...))
		return nil, info, nil
	}
	if gb <= 0 {
		why := "no size for the job's state"
		if how != "" {
			why = how
		}
		return only("failing over needs the size of the job's state moved between regions (%s); give --checkpoint-gb", why)
	}
	q := req.Select
	q.Providers, q.InstanceTypes, q.GPUs, q.GPUCount = []string{o.Provider}, []string{o.InstanceType}, nil, 0
	q.Spot, q.AllRegions, q.Limit, q.MaxPrice = true, true, 0, decimal.NullDecimal{}
	q.FX, q.Currency = a.FX, a.Currency
	rows, err := a.Catalog.Query(q)
	if err != nil {
		return nil, nil, err
	}
	// Each region's cheapest spot zone (as SpotQuoteFor) and its on-demand price.
	type region struct {
		name    string
		o       *catalog.Offering
		sp, od  decimal.NullDecimal
		leftWhy string
		move    cost.Move
	}
	byName := map[string]*region{}
	var names []string
	for _, r := range rows {
		ro := r.Offering
		if ro.GPU != o.GPU || !r.Spot.Valid {
			continue
		}
		g := byName[ro.Region]
		if g == nil {
			g = &region{name: ro.Region, o: ro}
			byName[ro.Region] = g
			names = append(names, ro.Region)
		}
		if !g.sp.Valid || r.Spot.Decimal.LessThan(g.sp.Decimal) {
			g.sp, g.o = r.Spot, ro
		}
		if r.Price.Valid && (!g.od.Valid || r.Price.Decimal.LessThan(g.od.Decimal)) {
			g.od = r.Price
		}
	}
	home := byName[o.Region]
	if home == nil {
		return only("its spot price is not known in %s", a.Currency)
	}
	var usable, left []*region
	for _, n := range names {
		g := byName[n]
		switch {
		case !g.od.Valid:
			g.leftWhy = fmt.Sprintf("%s left out: no on-demand price for %s there to fall back on", n, o.InstanceType)
		default:
			mv, err := cost.MoveCost(a.Catalog, a.FX, o.Provider, n, true, gb, a.Currency)
			if err != nil {
				g.leftWhy = fmt.Sprintf("%s left out: moving the job out of it has no sourced price (%v)", n, err)
			}
			g.move = mv
		}
		if g.leftWhy != "" {
			if g == home {
				return only("%s", strings.TrimPrefix(g.leftWhy, n+" left out: "))
			}
			left = append(left, g)
			continue
		}
		if g != home {
			usable = append(usable, g)
		}
	}
	sort.SliceStable(usable, func(i, j int) bool {
		if c := usable[i].sp.Decimal.Cmp(usable[j].sp.Decimal); c != 0 {
			return c < 0
		}
		return usable[i].name < usable[j].name
	})
	if len(usable) > req.SpotRegions-1 {
		usable = usable[:req.SpotRegions-1]
	}
	// Say which regions were left out that would otherwise have been chosen:
	// cheaper than the dearest one chosen, or any while fewer were found.
	for _, g := range left {
		if len(usable) < req.SpotRegions-1 || g.sp.Decimal.LessThan(usable[len(usable)-1].sp.Decimal) {
			info.notes = append(info.notes, g.leftWhy)
		}
	}
	if len(usable) == 0 {
		return only("%s has no usable spot price in another region%s", o.InstanceType, filtered(req))
	}
	chosen := append([]*region{home}, usable...)
	f := &cost.SpotFailover{Currency: a.Currency}
	for _, g := range chosen {
		f.Regions = append(f.Regions, cost.SpotRegion{Name: g.name, Spot: g.sp.Decimal, OnDemand: g.od.Decimal, Band: a.Catalog.SpotBandChoice(g.o, req.Usage.Spot.Band)})
	}
	for _, from := range chosen {
		row := make([]decimal.Decimal, len(chosen))
		for j, to := range chosen {
			if to != from {
				row[j] = from.move.Amount
			}
		}
		f.MoveCost = append(f.MoveCost, row)
		info.moves = append(info.moves, fmt.Sprintf("out of %s %s × %s/GB = %s (%s, %s)", from.name, fmtGB(gb*bytesPerGB),
			money.Format(from.move.Amount.Div(decimal.NewFromFloat(gb)), a.Currency), money.Format(from.move.Amount, a.Currency), from.move.Table.Group, from.move.Table.PathSource(from.move.Path)))
	}
	return f, info, nil
}

// filtered says that the user's region filters narrowed the search.
func filtered(req *Request) string {
	if len(req.Select.Regions) > 0 || req.Select.China != nil {
		return " within --region/--china"
	}
	return ""
}

// failoverModel is the engine's spot model for plans that may fail over
// among regions: it gathers each offering's regions and lets the cost
// package's simulator price the failover.
type failoverModel struct {
	a   *Advisor
	req *Request
	sim *cost.SimModel
}

// Estimate implements cost.SpotModel.
func (m *failoverModel) Estimate(o *catalog.Offering, in cost.SpotInput, u *cost.Usage) (cost.SpotEstimate, error) {
	f, _, err := m.a.failover(m.req, o)
	if err != nil {
		return cost.SpotEstimate{}, err
	}
	in.Failover = f
	return m.sim.Estimate(o, in, u)
}
