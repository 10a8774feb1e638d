package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// A gang relaunches in the mean of the largest of n exponential returns:
// r·H(n), by hand: H(1) = 1, H(2) = 3/2, H(4) = 25/12, H(10) = 7381/2520.
func TestGangRestartHours(t *testing.T) {
	r := 10.0 / 60
	for _, c := range []struct {
		n    int
		want float64
	}{{0, 0}, {1, r}, {2, r * 3 / 2}, {4, r * 25 / 12}, {10, r * 7381 / 2520}} {
		if got := GangRestartHours(r, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("GangRestartHours(10 min, %d) = %g; want %g", c.n, got, c.want)
		}
	}
	j := SpotJob(100, 120, 10, DefaultSpot, 4)
	if j.Restart != j.Startup || math.Abs(j.Restart-r*7381/2520) > 1e-12 || j.Nodes != 10 || j.Checkpoint != 1 || j.ODPrice != 4 || j.SpotPrice != 1 {
		t.Errorf("SpotJob = %+v", j)
	}
	if got := RestartText(r, 10); !strings.Contains(got, "0.49 h (0.17 h per instance") || !strings.Contains(got, "H(10) = 2.93") {
		t.Errorf("RestartText = %q", got)
	}
}

// A spot estimate of a 10-node gang simulates its relaunches at r·H(10)
// and says so; the same job on one node relaunches in r. The cost is the
// work plus the first launch of the gang, plus at most a checkpoint interval
// and a launch per interruption.
func TestSimModelGangLaunch(t *testing.T) {
	od := catalog.Price{Known: true, Amount: money.Amount{Value: dec("4"), Currency: money.USD}}
	sp := catalog.Price{Known: true, Amount: money.Amount{Value: dec("1"), Currency: money.USD}}
	for _, n := range []int{1, 10} {
		m := &SimModel{Runs: 50}
		u := &Usage{DurationHours: 100, Instances: n, Spot: DefaultSpot}
		est, err := m.Estimate(&catalog.Offering{OnDemand: od}, SpotInput{Price: sp, Band: catalog.BandChoice{Label: "<5%", Origin: "test"}}, u)
		if err != nil {
			t.Fatal(err)
		}
		launch := GangRestartHours(DefaultSpot.RestartHours, n)
		lo := (100 + launch) / 100
		hi := lo + est.InterruptionsMean*(DefaultSpot.CheckpointHours+launch)/100
		if est.HoursFactor < lo-1e-9 || est.HoursFactor > hi+1e-9 {
			t.Errorf("%d nodes: hours factor %g; want (100 h + one launch %g h)/100 h = %g, up to %g with %.2f interruptions", n, est.HoursFactor, launch, lo, hi, est.InterruptionsMean)
		}
		if n > 1 && !strings.Contains(est.Explanation, "the 10 relaunch together and wait for the last: × H(10) = 2.93") {
			t.Errorf("explanation %q does not state the gang's assumption", est.Explanation)
		}
	}
}

// A deadline shorter than the work plus the gang's first launch is missed by
// every run, and the estimate says why instead of failing.
func TestSimModelDeadlineBelowFirstLaunch(t *testing.T) {
	od := catalog.Price{Known: true, Amount: money.Amount{Value: dec("4"), Currency: money.USD}}
	sp := catalog.Price{Known: true, Amount: money.Amount{Value: dec("1"), Currency: money.USD}}
	m := &SimModel{Runs: 20, Deadline: 100.2}
	u := &Usage{DurationHours: 100, Instances: 10, Spot: DefaultSpot} // launch 0.49 h
	est, err := m.Estimate(&catalog.Offering{OnDemand: od}, SpotInput{Price: sp, Band: catalog.BandChoice{Label: "<5%", Origin: "test"}}, u)
	if err != nil {
		t.Fatal(err)
	}
	if est.PMissDeadline != 1 || !strings.Contains(est.Explanation, "shorter than the work plus the first launch") {
		t.Errorf("miss %g, %q", est.PMissDeadline, est.Explanation)
	}
}
