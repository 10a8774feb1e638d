package spot

import (
	"math"
	"testing"
)

// The one rule for an automatic checkpoint interval, by hand: Daly's optimum
// for C = 5 min, M = 100 h is √(2CM)(1 + ⅓√(C/2M) + ⅑(C/2M)) − C; a 48 h job
// due in 52 h with 10 min restarts has slack 52 − 48 − 2/6 = 3.667 h, so
// the interval is held to 1.833 h; with M = 0.05 h the optimum is below the
// cost, so twice the cost; without interruptions, none.
func TestAutoCheckpoint(t *testing.T) {
	c := 5.0 / 60
	x := c / 200
	daly := math.Sqrt(2*c*100)*(1+math.Sqrt(x)/3+x/9) - c
	free := AutoCheckpoint(&Job{Work: 48, CheckpointCost: c, Restart: 1.0 / 6}, 100)
	if math.Abs(free.Interval-daly) > 1e-12 || free.CappedBySlack || free.RaisedToCost {
		t.Errorf("no deadline: %+v; want Daly's %g", free, daly)
	}
	due := AutoCheckpoint(&Job{Work: 48, Deadline: 52, CheckpointCost: c, Restart: 1.0 / 6}, 100)
	if want := (52 - 48 - 2.0/6) / 2; math.Abs(due.Interval-want) > 1e-12 || !due.CappedBySlack {
		t.Errorf("deadline: %+v; want half the slack %g", due, want)
	}
	if short := AutoCheckpoint(&Job{Work: 48, CheckpointCost: c}, 0.05); short.Interval != 2*c || !short.RaisedToCost {
		t.Errorf("MTBF 0.05 h: %+v; want twice the cost", short)
	}
	if none := AutoCheckpoint(&Job{Work: 48}, math.Inf(1)); !math.IsInf(none.Interval, 1) {
		t.Errorf("no interruptions: %+v", none)
	}
}
