package cost

import (
	"fmt"
	"math"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// SpotFailover is where a spot job may run besides its offering's region:
// the regions in order (the offering's own first, then the others the job
// may move to), and what one move of the job's state costs. Prices are in
// Currency; the caller (advise) gathers them from the catalog.
type SpotFailover struct {
	Regions  []SpotRegion
	Currency money.Currency
	// MoveCost[i][j] is the money of one move of the job's state from
	// region i to region j (the transfer; the delay is the restart).
	MoveCost [][]decimal.Decimal
}

// SpotRegion is one region of a failover: its spot and on-demand prices per
// instance-hour and its interruption band (catalog.SpotBandChoice).
type SpotRegion struct {
	Name           string
	Spot, OnDemand decimal.Decimal
	Band           catalog.BandChoice
}

// key is the failover's part of a simulation's cache key: everything the
// simulation and its explanation depend on, as prices relative to the
// first region's spot price.
func (f *SpotFailover) key() string {
	var b strings.Builder
	sp := f.Regions[0].Spot
	for i, r := range f.Regions {
		fmt.Fprintf(&b, "%s|%s|%s|%s|%s|", r.Name, r.Spot.Div(sp), r.OnDemand.Div(sp), r.Band.Label, r.Band.Origin)
		for _, m := range f.MoveCost[i] {
			fmt.Fprintf(&b, "%s,", m.Div(sp))
		}
		b.WriteString(";")
	}
	return b.String()
}

// zones turns the failover into the simulator's zones and move costs, in
// units of the first region's spot price per instance-hour (Job.SpotPrice
// 1), with each region's interruptions (a Poisson rate from its band, spot
// then short for an exponential time of mean outage hours: 0, back at once)
// and a line saying where each rate comes from.
func (f *SpotFailover) zones(outage float64) ([]spot.Zone, [][]float64, []string, error) {
	sp := f.Regions[0].Spot
	if !sp.IsPositive() {
		return nil, nil, nil, fmt.Errorf("failover: %s's spot price %s is not above zero", f.Regions[0].Name, sp)
	}
	if len(f.MoveCost) != len(f.Regions) {
		return nil, nil, nil, fmt.Errorf("failover: %d rows of move costs for %d regions", len(f.MoveCost), len(f.Regions))
	}
	unit := func(d decimal.Decimal) float64 { return d.Div(sp).InexactFloat64() }
	zones := make([]spot.Zone, len(f.Regions))
	moves := make([][]float64, len(f.Regions))
	var bands []string
	for i, r := range f.Regions {
		lambda, p, note, err := spot.BandHazard(r.Band.Label)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("failover region %s: %w", r.Name, err)
		}
		if !r.OnDemand.IsPositive() || !r.Spot.IsPositive() {
			return nil, nil, nil, fmt.Errorf("failover region %s: spot %s and on-demand %s must be above zero", r.Name, r.Spot, r.OnDemand)
		}
		zones[i] = spot.Zone{Name: r.Name, Region: r.Name, Model: spot.Hazard{PerHour: lambda, Down: outage}, SpotPrice: unit(r.Spot), ODPrice: unit(r.OnDemand)}
		moves[i] = make([]float64, len(f.Regions))
		for j, c := range f.MoveCost[i] {
			moves[i][j] = unit(c)
		}
		bands = append(bands, fmt.Sprintf("%s %s a month (%s) → λ = −ln(1−%.3g)/730 = %.3g/h per instance at the %s", r.Name, r.Band.Label, r.Band.Origin, p, lambda, note))
	}
	return zones, moves, bands, nil
}

// estimateFailover is Estimate for a job that may move among several
// regions: each region is a spot.Zone (Poisson interruptions from its band,
// its own prices), a move costs the restart plus the transfer. With a
// deadline the policy is failover-deadline (failover, and on-demand where
// the rest costs least when behind the deadline's progress line), else
// failover (spot-only, moving to the cheapest region with spot up).
// Prices are in units of the first region's spot price per instance-hour.
func (m *SimModel) estimateFailover(in SpotInput, u *Usage) (SpotEstimate, error) {
	f := in.Failover
	work := u.DurationHours
	deadline := 0.0
	if work == 0 {
		work = u.HoursPerMonth
	} else {
		deadline = m.Deadline
	}
	short := deadline > 0 && deadline < work+GangRestartHours(u.Spot.RestartHours, u.Instances)-1e-9
	if short { // cannot be met at all: simulated without it, every run a miss
		deadline = 0
	}
	zones, moves, bands, err := f.zones(u.Spot.OutageHours)
	if err != nil {
		return SpotEstimate{}, err
	}
	var pol spot.Policy = spot.Failover{}
	if deadline > 0 {
		pol = spot.FailoverDeadline{}
	}
	key := simKey{work: work, ckpt: u.Spot.CheckpointHours, restart: u.Spot.RestartHours, outage: u.Spot.OutageHours, deadline: deadline, nodes: u.Instances, failover: f.key(), short: short}
	m.mu.Lock()
	defer m.mu.Unlock()
	if est, ok := m.cache[key]; ok {
		return est, nil
	}
	runs := m.Runs
	if runs == 0 {
		runs = spot.DefaultRuns
	}
	job := SpotJob(work, deadline, u.Instances, u.Spot, zones[0].ODPrice)
	cfg := spot.Config{Job: job, Zones: zones, MoveCost: moves, Runs: runs, Seed: m.Seed + 1}
	sums, err := spot.Simulate(cfg, []spot.Policy{pol})
	if err != nil {
		return SpotEstimate{}, err
	}
	s := sums[0]
	nodeHours := work * float64(u.Instances)
	factor := math.Max(1, s.CostMean/nodeHours)
	names := make([]string, len(f.Regions))
	for i, r := range f.Regions {
		names[i] = r.Name
	}
	est := SpotEstimate{
		HoursFactor: factor, Policy: pol.Name(), Runs: runs, Band: f.Regions[0].Band.Label, BandOrigin: f.Regions[0].Band.Origin,
		CostP95Factor: s.CostP95 / nodeHours, CompletionMean: s.CompletionMean, CompletionP95: s.CompletionP95,
		InterruptionsMean: s.InterruptionsMean, SavingsMean: s.SavingsMean, SavingsCI95: s.SavingsCI95, OnDemandKnown: true,
		Regions: names, MovesMean: s.MovesMean, MoveCostHours: s.MoveCostMean,
	}
	if lambda, _, _, err := spot.BandHazard(f.Regions[0].Band.Label); err == nil {
		est.HazardPerHour = lambda * float64(u.Instances)
	}
	if deadline > 0 {
		est.PMissDeadline = 1 - s.PMeetDeadline
	}
	if short {
		est.PMissDeadline = 1
	}
	what := fmt.Sprintf("policy %s (after an interruption, spot in the cheapest region with spot up, moving the job's state there)", pol.Name())
	if deadline > 0 {
		what = fmt.Sprintf("policy %s (after an interruption, spot in the cheapest region with spot up, moving the job's state there; on-demand where the rest costs least when behind the deadline's progress line)", pol.Name())
	}
	est.Explanation = fmt.Sprintf("interruptions %s%s; simulated %d runs of %s with checkpoints every %s and launches (the first and after each interruption) of %s (a move is a restart elsewhere): %.2f interruptions and %.2f moves on average, %s: cost %.3f× the work at %s's spot price (spot and on-demand hours at each region's price, and the moves' transfer), finishes in %.1f h on average (p95 %.1f h)",
		strings.Join(bands, "; "), outageText(u.Spot.OutageHours), runs, FormatHours(work), FormatHours(u.Spot.CheckpointHours), RestartText(u.Spot.RestartHours, u.Instances), s.InterruptionsMean, s.MovesMean,
		what, factor, f.Regions[0].Name, s.CompletionMean, s.CompletionP95)
	if deadline > 0 {
		est.Explanation += fmt.Sprintf(", misses the %s deadline in %.1f%% of runs", FormatHours(deadline), 100*est.PMissDeadline)
	}
	if u.Spot.OutageHours == 0 {
		est.Explanation += "; the bands give how often spot is interrupted, not how long capacity stays short, so spot is taken to be back at once after each interruption: a move pays here only where another region is cheaper (give --spot-outage for the time capacity stays short, or replay traces with gpuscout spot --trace A,B --regions failover)"
	}
	if m.Floor {
		if err := m.floor(&est, cfg, pol, runs); err != nil {
			return SpotEstimate{}, err
		}
	}
	if m.cache == nil {
		m.cache = map[simKey]SpotEstimate{}
	}
	m.cache[key] = est
	return est, nil
}
