package cost

import (
	"fmt"
	"math"
	"sync"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// SpotEstimate is what a spot model says about running work on spot.
type SpotEstimate struct {
	HoursFactor   float64 // expected billed spot hours per hour of work (>= 1)
	HazardPerHour float64 // interruptions per hour for the whole job
	Explanation   string
}

// SpotModel estimates the cost of interruptions for a usage on an offering.
type SpotModel interface {
	Estimate(o *catalog.Offering, band *catalog.SpotBand, u *Usage) (SpotEstimate, error)
}

// DefaultBand is assumed where neither the user nor the Spot Advisor gives one:
// the Advisor's global average interruption rate is "<10%" a month.
const DefaultBand = "5-10%"

// SimModel estimates spot overhead with the spot simulator: the usage's job
// shape (a job of --for hours, or one month of steady use) on spot-only with
// checkpoint/restart, interruptions from the offering's Spot Advisor band (or
// --spot-band, or DefaultBand), the instances as one gang. Results are cached
// per shape, so pricing a whole catalog simulates each shape once.
type SimModel struct {
	Runs  int
	Seed  uint64
	mu    sync.Mutex
	cache map[simKey]SpotEstimate
}

type simKey struct {
	lambda, work, ckpt, restart float64
	nodes                       int
}

// Estimate implements SpotModel.
func (m *SimModel) Estimate(o *catalog.Offering, band *catalog.SpotBand, u *Usage) (SpotEstimate, error) {
	label, origin := u.Spot.Band, "given"
	switch {
	case label != "":
	case band != nil:
		label, origin = band.Label, fmt.Sprintf("AWS Spot Advisor %s, %s", band.Region, band.AsOf)
	default:
		label, origin = DefaultBand, "assumed: no Spot Advisor data for this offering; the Advisor's global average is <10%; set --spot-band"
	}
	lambda, p, note, err := spot.BandHazard(label)
	if err != nil {
		return SpotEstimate{}, err
	}
	work := u.DurationHours
	if work == 0 {
		work = u.HoursPerMonth // steady use: one month's hours as a job, restarted each month
	}
	key := simKey{lambda, work, u.Spot.CheckpointHours, u.Spot.RestartHours, u.Instances}
	m.mu.Lock()
	defer m.mu.Unlock()
	if est, ok := m.cache[key]; ok {
		return est, nil
	}
	runs := m.Runs
	if runs == 0 {
		runs = 2000
	}
	job := spot.Job{Work: work, Nodes: u.Instances, Checkpoint: u.Spot.CheckpointHours, Restart: u.Spot.RestartHours, SpotPrice: 1, ODPrice: 1}
	sums, err := spot.Simulate(spot.Config{Job: job, Model: spot.Hazard{PerHour: lambda}, Runs: runs, Seed: m.Seed + 1}, []spot.Policy{spot.SpotOnly{}})
	if err != nil {
		return SpotEstimate{}, err
	}
	// Spot price 1 per node-hour: the mean cost is the billed node-hours.
	factor := math.Max(1, sums[0].CostMean/(work*float64(u.Instances)))
	est := SpotEstimate{
		HoursFactor:   factor,
		HazardPerHour: lambda * float64(u.Instances),
		Explanation: fmt.Sprintf("interruptions %s a month (%s) → λ = −ln(1−%.3g)/730 = %.3g/h per instance at the %s; simulated %d runs of %s with checkpoints every %s and %s restarts: %.2f interruptions on average, billed hours +%.2f%%",
			label, origin, p, lambda, note, runs, FormatHours(work), FormatHours(u.Spot.CheckpointHours), FormatHours(u.Spot.RestartHours), sums[0].InterruptionsMean, (factor-1)*100),
	}
	if m.cache == nil {
		m.cache = map[simKey]SpotEstimate{}
	}
	m.cache[key] = est
	return est, nil
}
