package cost

import (
	"fmt"
	"math"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds/awsspotadvisor"
)

// SpotEstimate is what a spot model says about running work on spot.
type SpotEstimate struct {
	HoursFactor   float64 // expected billed hours per hour of work (>= 1)
	HazardPerHour float64 // interruptions per hour
	Explanation   string
}

// SpotModel estimates the cost of interruptions. The simple band model below
// is the default; the spot simulator implements the same interface.
type SpotModel interface {
	Estimate(o *catalog.Offering, band *catalog.SpotBand, u *Usage) (SpotEstimate, error)
}

// DefaultBand is assumed where neither the user nor the Spot Advisor gives one:
// the Advisor's global average interruption rate is "<10%" a month.
const DefaultBand = "5-10%"

// BandModel turns a monthly interruption band into an hourly hazard
// (λ = -ln(1-p)/730 at the band's midpoint; ">20%" uses 20%, a lower bound)
// and charges, per interruption, half a checkpoint interval of lost work plus
// the restart: expected hours = work × (1 + λ·(C/2 + R)).
type BandModel struct{}

// Estimate implements SpotModel.
func (BandModel) Estimate(o *catalog.Offering, band *catalog.SpotBand, u *Usage) (SpotEstimate, error) {
	label, origin := u.Spot.Band, "given"
	switch {
	case label != "":
	case band != nil:
		label, origin = band.Label, fmt.Sprintf("AWS Spot Advisor %s, %s", band.Region, band.AsOf)
	default:
		label, origin = DefaultBand, "assumed: no Spot Advisor data for this offering; the Advisor's global average is <10%; set --spot-band"
	}
	lo, hi, err := awsspotadvisor.ParseBand(label)
	if err != nil {
		return SpotEstimate{}, err
	}
	p := (lo + hi) / 2 / 100
	note := "midpoint"
	if hi >= 100 {
		p, note = lo/100, "lower bound"
	}
	lambda := -math.Log(1-p) / HoursPerMonth
	lost := u.Spot.CheckpointHours/2 + u.Spot.RestartHours
	f := 1 + lambda*lost
	return SpotEstimate{
		HoursFactor:   f,
		HazardPerHour: lambda,
		Explanation: fmt.Sprintf("interruptions %s a month (%s) → %.3g/h at the %s; each loses %s (half a %s checkpoint interval + %s restart): +%.2f%% hours",
			label, origin, lambda, note, FormatHours(lost), FormatHours(u.Spot.CheckpointHours), FormatHours(u.Spot.RestartHours), (f-1)*100),
	}, nil
}
