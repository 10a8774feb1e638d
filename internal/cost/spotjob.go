package cost

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/spot"
)

// GangRestartHours is the mean time a gang of n instances takes to run again
// after an interruption when each instance's return (provisioning, boot,
// loading the checkpoint) takes perInstance hours on average. The
// assumption, stated with every estimate that uses it: each return is
// exponentially distributed and independent, and the gang waits for the
// last, as SkyPilot's managed-job recovery relaunches the whole cluster; the
// mean of the largest of n exponentials of mean r is r·H(n), H(n) = 1 + 1/2
// + … + 1/n (n = 1: r; 10: 2.93·r; 64: 4.74·r). It is exact for the model,
// not a measurement: --spot-restart sets r.
func GangRestartHours(perInstance float64, n int) float64 {
	return perInstance * Harmonic(n)
}

// Harmonic is H(n) = 1 + 1/2 + … + 1/n; 0 for n < 1.
func Harmonic(n int) float64 {
	h := 0.0
	for k := n; k >= 1; k-- { // smallest terms first
		h += 1 / float64(k)
	}
	return h
}

// SpotJob is the simulator's job for work hours on n instances under the
// spot assumptions a, with a deadline (0: none). It is the one place a spot
// estimate's job is made, for advise, cost and spot alike: every launch of
// the gang, the first included (as in Can't Be Late, which bills the first
// launch's delay), takes GangRestartHours; prices are per node-hour in units
// of the spot price, so that on-demand costs odRatio.
func SpotJob(work, deadline float64, n int, a SpotAssumptions, odRatio float64) spot.Job {
	r := GangRestartHours(a.RestartHours, n)
	return spot.Job{Work: work, Deadline: deadline, Nodes: n, Checkpoint: a.CheckpointHours, Restart: r, Startup: r, SpotPrice: 1, ODPrice: odRatio}
}

// RestartText says how a gang's restart time is made, for explanations:
// "10 min" for one instance, "0.49 h (10 min per instance; the 10 wait for
// the last: × H(10) = 2.93)" for a gang.
func RestartText(perInstance float64, n int) string {
	if n <= 1 {
		return FormatHours(perInstance)
	}
	return fmt.Sprintf("%s (%s per instance, exponential; the %d relaunch together and wait for the last: × H(%d) = %.2f)",
		FormatHours(GangRestartHours(perInstance, n)), FormatHours(perInstance), n, n, Harmonic(n))
}
