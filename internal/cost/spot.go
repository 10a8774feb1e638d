package cost

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// SpotEstimate is what a spot model says about running work on spot.
type SpotEstimate struct {
	// HoursFactor is the expected cost per hour of work, in hours at the spot
	// price (>= 1): billed spot hours, plus any on-demand fallback hours
	// weighted by the on-demand/spot price ratio. The spot option's total is
	// spot price × hours of work × HoursFactor × instances.
	HoursFactor   float64
	HazardPerHour float64 // interruptions per hour for the whole job
	Explanation   string

	Policy            string  // the simulated policy: spot (spot-only) or uniform-progress
	Runs              int     // simulated runs
	Band, BandOrigin  string  // the interruption band used, and where it comes from
	CostP95Factor     float64 // the 95th percentile of the cost, in the unit of HoursFactor
	CompletionMean    float64 // wall-clock hours to finish, mean
	CompletionP95     float64 // and 95th percentile
	PMissDeadline     float64 // share of runs that miss the deadline; 0 without one
	InterruptionsMean float64
	// SavingsMean and SavingsCI95 compare with on-demand only (1 − cost/on-demand
	// cost, and the half-width of its 95% confidence interval); valid only
	// when OnDemandKnown.
	SavingsMean, SavingsCI95 float64
	OnDemandKnown            bool
	// Floor is the hindsight optimum on the same simulated availability
	// (SimModel.Floor with a deadline); nil where it was not simulated, with
	// FloorNote saying why.
	Floor     *SpotFloor
	FloorNote string
	// Regions, MovesMean and MoveCostHours describe a job that may fail over
	// among regions (SpotInput.Failover): the regions in order (the
	// offering's first), the mean moves per run, and the mean money spent on
	// moves per run in hours at the first region's spot price (× that price
	// per instance-hour: money). Nil and zero for one region.
	Regions       []string
	MovesMean     float64
	MoveCostHours float64
}

// SpotFloor is what the best any policy could do on the availability an
// estimate simulated: spot.Optimal, the cheapest schedule that meets the
// deadline knowing each run's future, on the first Runs of the estimate's
// runs (same seed, same model).
type SpotFloor struct {
	// Factor is the optimum's mean cost in the unit of HoursFactor (hours
	// at the spot price per hour of work, on-demand hours weighted by the
	// price ratio): the floor's money is spot price × work hours × Factor ×
	// instances.
	Factor float64
	// Regret is the policy's mean cost over the optimum's on the same run,
	// minus 1 (0.029: 2.9% more), over the runs in which the policy met the
	// deadline; valid when HasRegret.
	Regret    float64
	HasRegret bool
	Runs      int     // runs the optimum was computed on
	Step      float64 // the optimum's grid, hours
	// SavingsMean is the optimum's mean saving against on-demand (1 −
	// cost/on-demand cost); valid when the estimate's OnDemandKnown.
	SavingsMean float64
}

// SpotInput is what the catalog decides about an offering's spot capacity
// (catalog.SpotQuoteFor and SpotBandChoice): the price it is quoted at and
// the interruption band its estimate uses.
type SpotInput struct {
	Price catalog.Price
	Band  catalog.BandChoice
	// Failover, with 2 or more regions, lets the job move among them
	// (spot_failover.go); nil: the offering's region alone.
	Failover *SpotFailover
}

// SpotModel estimates the cost of interruptions for a usage on an offering.
type SpotModel interface {
	Estimate(o *catalog.Offering, in SpotInput, u *Usage) (SpotEstimate, error)
}

// SimModel estimates spot overhead with the spot simulator: the usage's job
// shape (a job of --for hours, or one month of steady use) with
// checkpoint/restart, interruptions from the offering's Spot Advisor band
// (or --spot-band, or the catalog's default band), the instances as one gang. Without a
// deadline the policy is spot-only; with one (Deadline > 0, for a job) it is
// Uniform Progress, which falls back to on-demand when the job falls behind
// the progress line the deadline sets, so the estimate includes on-demand
// hours at the offering's on-demand price. Results are cached per shape, so
// pricing a whole catalog simulates each shape once.
type SimModel struct {
	Runs     int     // 0: spot.DefaultRuns
	Seed     uint64  // runs use seed Seed+1
	Deadline float64 // hours from the start for a job; 0: none
	// Floor also computes the hindsight optimum (spot.Optimal) of a job
	// with a deadline on the first runs of the same simulation (floor.go):
	// the best any policy could do on that availability.
	Floor bool
	mu    sync.Mutex
	cache map[simKey]SpotEstimate
}

type simKey struct {
	lambda, work, ckpt, restart, outage, deadline, odRatio float64
	nodes                                                  int
	failover                                               string // SpotFailover.key; "": one region
	short                                                  bool   // the deadline cannot be met: simulated without it
}

// ODRatio returns the on-demand price over the spot price, and whether both
// are known in one currency.
func ODRatio(od, sp catalog.Price) (float64, bool) {
	if !od.Known || !sp.Known || od.Currency != sp.Currency || !sp.Value.IsPositive() {
		return 1, false
	}
	return od.Value.Div(sp.Value).InexactFloat64(), true
}

// Estimate implements SpotModel.
func (m *SimModel) Estimate(o *catalog.Offering, in SpotInput, u *Usage) (SpotEstimate, error) {
	if in.Failover != nil && len(in.Failover.Regions) >= 2 {
		return m.estimateFailover(in, u)
	}
	label, origin := in.Band.Label, in.Band.Origin
	lambda, p, note, err := spot.BandHazard(label)
	if err != nil {
		return SpotEstimate{}, err
	}
	work := u.DurationHours
	deadline := 0.0
	if work == 0 {
		work = u.HoursPerMonth // steady use: one month's hours as a job, restarted each month
	} else {
		deadline = m.Deadline
	}
	// A deadline shorter than the work plus the gang's first launch cannot
	// be met at all, on-demand included: spot-only, every run a miss.
	short := deadline > 0 && deadline < work+GangRestartHours(u.Spot.RestartHours, u.Instances)-1e-9
	shortOf := deadline
	if short {
		deadline = 0
	}
	ratio, odKnown := ODRatio(o.OnDemand, in.Price)
	var pol spot.Policy = spot.SpotOnly{}
	if deadline > 0 && odKnown {
		pol = spot.UniformProgress{}
	}
	keyRatio := ratio
	if pol.Name() == (spot.SpotOnly{}).Name() {
		keyRatio = 0 // spot-only never pays on-demand: one simulation serves every price ratio
	}
	key := simKey{lambda, work, u.Spot.CheckpointHours, u.Spot.RestartHours, u.Spot.OutageHours, deadline, keyRatio, u.Instances, "", short}
	m.mu.Lock()
	defer m.mu.Unlock()
	if est, ok := m.cache[key]; ok {
		// The simulation is shared; where the band comes from is this offering's.
		est.BandOrigin = origin
		est.Explanation = strings.Replace(est.Explanation, "{origin}", origin, 1)
		return est, nil
	}
	runs := m.Runs
	if runs == 0 {
		runs = spot.DefaultRuns
	}
	// Prices per node-hour in units of the spot price: the mean cost is then
	// spot-price hours, and scales exactly to any currency.
	job := SpotJob(work, deadline, u.Instances, u.Spot, ratio)
	cfg := spot.Config{Job: job, Model: spot.Hazard{PerHour: lambda, Down: u.Spot.OutageHours}, Runs: runs, Seed: m.Seed + 1}
	sums, err := spot.Simulate(cfg, []spot.Policy{pol})
	if err != nil {
		return SpotEstimate{}, err
	}
	s := sums[0]
	nodeHours := work * float64(u.Instances)
	factor := math.Max(1, s.CostMean/nodeHours)
	est := SpotEstimate{
		HoursFactor: factor, HazardPerHour: lambda * float64(u.Instances),
		Policy: pol.Name(), Runs: runs, Band: label, BandOrigin: origin,
		CostP95Factor: s.CostP95 / nodeHours, CompletionMean: s.CompletionMean, CompletionP95: s.CompletionP95,
		InterruptionsMean: s.InterruptionsMean, SavingsMean: s.SavingsMean, SavingsCI95: s.SavingsCI95, OnDemandKnown: odKnown,
	}
	if deadline > 0 {
		est.PMissDeadline = 1 - s.PMeetDeadline
	}
	what := fmt.Sprintf("billed hours +%.2f%%", (factor-1)*100)
	if short {
		est.PMissDeadline = 1
		what += fmt.Sprintf("; the %s deadline is shorter than the work plus the first launch (%s): no run meets it", FormatHours(shortOf), FormatHours(work+GangRestartHours(u.Spot.RestartHours, u.Instances)))
	}
	if pol.Name() != (spot.SpotOnly{}).Name() {
		what = fmt.Sprintf("policy %s (on-demand when behind the deadline's progress line, at %.2f× the spot price): cost %.3f× the work at the spot price (spot hours plus on-demand hours at their price), finishes in %.1f h on average (p95 %.1f h), misses the %s deadline in %.1f%% of runs",
			pol.Name(), ratio, factor, s.CompletionMean, s.CompletionP95, FormatHours(deadline), 100*est.PMissDeadline)
	} else if deadline > 0 {
		what += "; spot-only: the on-demand price is not known in the spot price's currency, so there is no fallback"
	}
	if m.Floor {
		if err := m.floor(&est, cfg, pol, runs); err != nil {
			return SpotEstimate{}, err
		}
	}
	est.Explanation = fmt.Sprintf("interruptions %s a month ({origin}) → λ = −ln(1−%.3g)/730 = %.3g/h per instance at the %s%s; simulated %d runs of %s with checkpoints every %s and launches (the first and after each interruption) of %s: %.2f interruptions on average, %s",
		label, p, lambda, note, outageText(u.Spot.OutageHours), runs, FormatHours(work), FormatHours(u.Spot.CheckpointHours), RestartText(u.Spot.RestartHours, u.Instances), s.InterruptionsMean, what)
	if m.cache == nil {
		m.cache = map[simKey]SpotEstimate{}
	}
	m.cache[key] = est
	est.Explanation = strings.Replace(est.Explanation, "{origin}", origin, 1)
	return est, nil
}

// outageText says how long spot stays short after an interruption in the
// simulation: nothing where it is back at once (the bands' reading).
func outageText(h float64) string {
	if h == 0 {
		return ""
	}
	return fmt.Sprintf(", spot then unavailable for %s on average (--spot-outage, an assumption)", FormatHours(h))
}

// OnDemandFallback says whether the estimate's policy falls back to
// on-demand (Uniform Progress, failover under a deadline), so that its
// hours factor weighs on-demand hours at their price.
func (e *SpotEstimate) OnDemandFallback() bool {
	return e.Policy != (spot.SpotOnly{}).Name() && e.Policy != (spot.Failover{}).Name()
}
