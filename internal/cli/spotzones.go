package cli

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// maxMoveGB bounds --move-gb: a petabyte of job state per move is a typo.
const maxMoveGB = 1e6

// maxMovePrice bounds --move-price per GB (the dearest sourced transfer
// price is some 0.2 USD per GB).
const maxMovePrice = 100

// zoneInputs is what the spot output says about several zones.
type zoneInputs struct {
	names, regions, files []string
	pairing               string // how the traces were paired, or how the zones were modelled
	moveGB                float64
	moveNote              string // what a move costs and the source of its price
	priced                bool   // the zones have their own prices (from the catalog)
	spot, od              []float64
}

// awsZone matches an AWS availability zone name, such as us-east-1a.
var awsZone = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]{2}(-gov)?-[a-z]+-\d[a-z]$`) })

// zonePolicies parses --regions (the multi-zone policies, "all" for every
// one, optimal for the optimum across zones) and adds --policy's policies
// where the user gave it: those run in the first zone.
func (f *spotFlags) zonePolicies(changed func(string) bool, asg spot.ASGMix) ([]spot.Policy, error) {
	var names []string
	for _, n := range strings.Split(f.regions, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		switch {
		case n == "all":
			names = append(names, spot.ZonePolicyNames()...)
			continue
		case n == "optimal" || n == "optimum":
		default:
			p, err := spot.Policies([]string{n}, asg)
			if err != nil || !spot.ZoneAware(p[0]) {
				return nil, usagef("--regions %q: %q is not a multi-zone policy; want one or more of %s, all (every one) or optimal (the hindsight optimum across the zones)",
					f.regions, n, strings.Join(spot.ZonePolicyNames(), ", "))
			}
		}
		names = append(names, n)
	}
	if changed("policy") {
		names = append(names, strings.Split(f.policy, ",")...)
	}
	pols, err := spot.Policies(names, asg)
	if err != nil {
		return nil, usagef("--policy: %v", err)
	}
	return pols, nil
}

// prepareZones turns the traces into zones, one per file: names and regions
// from the file names, traces paired by time, prices and the move costs.
func (f *spotFlags) prepareZones(in *spotInputs, l *loadedCatalog, paths []string, models []spot.Model, changed func(string) bool) error {
	if len(paths) < 2 {
		return usagef("--regions %s needs the traces of two or more zones in --trace, one file per zone (e.g. --trace us-east-1a_v100_1.json,us-east-1c_v100_1.json, or a folder of them); got %d trace", f.regions, len(paths))
	}
	if len(paths) > spot.MaxZones {
		return usagef("--regions: %d traces; want at most %d zones", len(paths), spot.MaxZones)
	}
	zi := &zoneInputs{files: paths, moveGB: f.moveGB}
	job := &in.cfg.Job
	if f.traceMode == "replay" {
		ts := make([]*spot.Trace, len(models))
		for i, m := range models {
			ts[i] = m.(*spot.Replay).Trace
		}
		paired, note, err := spot.PairTraces(ts)
		if err != nil {
			return usagef("--trace: %v", err)
		}
		for i := range models {
			models[i] = spot.NewReplay(paired[i])
		}
		zi.pairing = note
	} else {
		zi.pairing = fmt.Sprintf("%d zones, each a two-state model fitted to its own trace (independent histories)", len(paths))
	}
	seen := map[string]int{}
	files := map[string]bool{}
	for _, p := range paths {
		z, _ := spot.ZoneOfFile(p)
		seen[z]++
		abs, _ := filepath.Abs(p)
		if files[abs] {
			return usagef("--trace %s is given twice: a zone is one trace, and one trace twice would be two zones whose spot comes and goes together", p)
		}
		files[abs] = true
	}
	var zones []spot.Zone
	var tracePriced []bool
	for i, p := range paths {
		name, region := spot.ZoneOfFile(p)
		if seen[name] > 1 {
			name = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)) // two files of one zone: tell them apart
		}
		z := spot.Zone{Name: name, Region: region, Model: models[i]}
		rp, ok := models[i].(*spot.Replay)
		priced := ok && rp.Trace.Prices != nil
		if priced {
			var sum float64
			for _, x := range rp.Trace.Prices {
				sum += x
			}
			z.SpotPrice = sum / float64(len(rp.Trace.Prices)) // the simulator bills the tick's own price
		}
		zones = append(zones, z)
		tracePriced = append(tracePriced, priced)
		zi.names, zi.regions = append(zi.names, name), append(zi.regions, region)
	}
	if f.offering != "" && !(changed("spot-price") && changed("od-price")) {
		srcs, err := zoneCatalogPrices(l, f.offering, zones, tracePriced, changed("spot-price"), changed("od-price"))
		if err != nil {
			return err
		}
		ref, _ := catalog.ParseOfferingRef(f.offering)
		key := ref.Provider + "/" + ref.InstanceType + "/"
		in.priceSources = slices.DeleteFunc(in.priceSources, func(s string) bool {
			return strings.HasPrefix(s, "on-demand "+key) || strings.HasPrefix(s, "spot "+key)
		})
		in.priceSources = append(in.priceSources, srcs...)
		zi.priced = true
	}
	n := 0
	for i, z := range zones {
		switch {
		case tracePriced[i]:
			n++
		case z.SpotPrice == 0 && job.SpotPrice == 0:
			return usagef("--trace %s has no spot prices: give --spot-price (or --offering) for the zones without their own", paths[i])
		}
	}
	if n > 0 {
		in.priceSources = append(in.priceSources, fmt.Sprintf("spot in %d of the %d zones from their traces' own prices (USD), tick by tick", n, len(zones)))
	}
	mc, note, err := zoneMoveCosts(l, zones, f.moveGB, f.movePrice, changed("move-price"))
	if err != nil {
		return err
	}
	zi.moveNote = note
	in.cfg.Zones, in.cfg.MoveCost = zones, mc
	for _, z := range zones {
		zi.spot, zi.od = append(zi.spot, z.SpotPrice), append(zi.od, z.ODPrice)
	}
	in.cfg.Model = zones[0].Model
	in.zones = zi
	in.multi = nil
	in.traceNames = []string{strings.Join(zi.names, "+")}
	return nil
}

// list names the zones with their regions: "us-east-1a, us-east-1c (us-east-1), us-west-2a (us-west-2)".
func (z *zoneInputs) list() string {
	var parts []string
	for i, n := range z.names {
		if i+1 < len(z.names) && z.regions[i+1] == z.regions[i] {
			parts = append(parts, n)
			continue
		}
		if z.priced {
			parts = append(parts, fmt.Sprintf("%s (%s: spot %.4g, on-demand %.4g per node-hour)", n, z.regions[i], z.spot[i], z.od[i]))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", n, z.regions[i]))
	}
	return strings.Join(parts, ", ")
}

// addZoneInputs adds the zones, their pairing and the move costs to the JSON inputs.
func addZoneInputs(inputs map[string]any, in *spotInputs) {
	z := in.zones
	var zs []map[string]any
	for i, n := range z.names {
		zz := in.cfg.Zones[i]
		zs = append(zs, map[string]any{"name": n, "region": z.regions[i], "trace": z.files[i], "spot_price": zz.SpotPrice, "od_price": zz.ODPrice})
	}
	inputs["zones"] = zs
	inputs["zone_pairing"] = z.pairing
	inputs["move_gb"] = z.moveGB
	inputs["move_costs"] = z.moveNote
	inputs["ondemand_cost"] = fp(cheapestODCost(in), 4)
}

// cheapestODCost is the job on on-demand alone in its cheapest zone.
func cheapestODCost(in *spotInputs) float64 {
	j := in.cfg.Job
	best := j.ODCost()
	for _, z := range in.cfg.Zones {
		if z.ODPrice > 0 {
			jz := j
			jz.ODPrice = z.ODPrice
			best = min(best, jz.ODCost())
		}
	}
	return best
}

// zonePolicyJSON fills a policy's moves: for the policies that choose zones
// (the optimum's: those of one cheapest schedule); the others are marked as
// run in the first zone.
func zonePolicyJSON(p *spotPolicyJSON, s *spot.Summary, pol spot.Policy) {
	if !spot.ZoneAware(pol) {
		p.FirstZoneOnly = true
		return
	}
	if s.Note != "" {
		return
	}
	p.MovesMean, p.MoveCostMean = fp(s.MovesMean, 3), fp(s.MoveCostMean, 4)
}

// zoneNotes explain the zones, the moves and which policies ran where.
func zoneNotes(out spotJSON, in *spotInputs) []string {
	z := in.zones
	notes := []string{
		fmt.Sprintf("Zones: %s, one trace each.", z.list()),
		"Moves: " + z.moveNote + ". MOVES is the mean number of moves between zones per run and MOVE COST the mean money of their transfer per run; each move's restart delay is in the cost as any launch's. The optimum's are those of one of its cheapest schedules.",
	}
	var first []string
	for _, p := range out.Policies {
		if p.FirstZoneOnly {
			first = append(first, p.Name)
		}
	}
	if len(first) > 0 {
		what := "choose no zone: they ran"
		if len(first) == 1 {
			what = "chooses no zone: it ran"
		}
		notes = append(notes, fmt.Sprintf("%s %s in the first zone, %s, alone.", strings.Join(first, ", "), what, z.names[0]))
	}
	notes = append(notes, fmt.Sprintf("SAVINGS are against on-demand in the cheapest zone: %s.", fmtMoneyF(cheapestODCost(in), in.currency)))
	return notes
}

// zonesMTBF is the mean up-run of the zones pooled, for --checkpoint auto:
// the hours spot is up in all of them over their up-runs, Σuᵢ / Σ(uᵢ/mᵢ)
// with uᵢ a zone's share of time up and mᵢ its mean up-run (the traces are
// paired, so they span the same time). A zone never up adds nothing; none
// up at all: +Inf (no interruptions).
func zonesMTBF(zones []spot.Zone, nodes int) float64 {
	var up, runs float64
	for _, z := range zones {
		m := z.Model.MTBF(nodes)
		u := 1.0
		switch x := z.Model.(type) {
		case *spot.Replay:
			u = x.Trace.RunsFor(nodes).UpFraction()
		case spot.TwoState:
			u = x.MeanUp / (x.MeanUp + x.MeanDown)
		}
		if u == 0 || math.IsInf(m, 1) {
			continue
		}
		up += u
		runs += u / m
	}
	if runs == 0 {
		return math.Inf(1)
	}
	return up / runs
}
