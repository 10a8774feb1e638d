package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

func TestFloorGrid(t *testing.T) {
	for _, c := range []struct {
		work, deadline float64
		runs, zones    int
		step           float64
		n              int
	}{
		{10, 20, 1000, 1, 0.1, 100},             // 200 steps: the default grid
		{29.75, 216, 1000, 1, 29.75 / 298, 100}, // 0.1 h, shortened to 298 steps of work
		{10, 20, 200, 1, 0.1, 20},               // a tenth of the runs, at least 20
		{10, 20, 5, 1, 0.1, 5},                  // all of a few runs
		{426, 720, 1000, 1, 426.0 / 2959, 100},  // 720/5000 = 0.144 h: 2959 steps of work
		{6000, 8760, 1000, 1, 0.5, 28},          // 8760/5000 = 1.75 h: 0.5 h and 100·5000·0.5/8760 = 28 runs
		{6000, 87600, 1000, 1, 0, 0},            // 2 runs would fit: none
		{29.75, 216, 1000, 3, 29.75 / 60, 49},   // 3 zones: √(216·29.75/12632) = 0.71 h → 0.5 h, 49 runs
		{10, 20, 1000, 3, 0.125, 100},           // 3 zones: √(20·10/12632) = 0.126 h → 80 steps of work
		{426, 720, 1000, 3, 0, 0},               // 3 zones: √(720·426/12632) = 4.9 h: beyond 0.5 h
	} {
		step, n := FloorGrid(c.work, c.deadline, c.runs, c.zones)
		if math.Abs(step-c.step) > 1e-12 || n != c.n {
			t.Errorf("FloorGrid(%g, %g, %d, %d zones) = %g h, %d runs; want %g h, %d runs", c.work, c.deadline, c.runs, c.zones, step, n, c.step, c.n)
		}
	}
}

// The floor is all-spot when spot hardly ever fails: a 10 h job at
// "<5%" a month (λ = 3.5e-5/h) is interrupted in about 1 run of 3000, so
// the optimum on the first 100 runs costs the work and the first launch's
// 10 min start-up at the spot price: factor (10 + 1/6)/10 (the grid's 0.2 h
// for the start-up taken back to its 1/6 h), and Uniform Progress matches it.
func TestSimModelFloorAllSpot(t *testing.T) {
	m := &SimModel{Deadline: 20, Floor: true}
	o := &catalog.Offering{OnDemand: catalog.Price{Known: true, Amount: money.Amount{Value: dec("4"), Currency: money.USD}}}
	in := SpotInput{Price: catalog.Price{Known: true, Amount: money.Amount{Value: dec("1"), Currency: money.USD}}, Band: catalog.BandChoice{Label: "<5%", Origin: "test"}}
	u := &Usage{DurationHours: 10, Instances: 1, Spot: DefaultSpot}
	est, err := m.Estimate(o, in, u)
	if err != nil {
		t.Fatal(err)
	}
	if est.Floor == nil || math.Abs(est.Floor.Factor-(10+1.0/6)/10) > 1e-9 || est.Floor.Runs != 100 || !est.Floor.HasRegret || math.Abs(est.Floor.Regret) > 1e-9 {
		t.Fatalf("floor %+v; want factor (10 + 1/6)/10 on 100 runs, regret 0", est.Floor)
	}
	if math.Abs(est.HoursFactor-(10+1.0/6)/10) > 1e-9 {
		t.Errorf("hours factor %g; want the work and one start-up, (10 + 1/6)/10", est.HoursFactor)
	}
	if math.Abs(est.Floor.SavingsMean-0.75) > 1e-9 {
		t.Errorf("floor savings %g; want 1 − 1/4 = 0.75 (on-demand pays the start-up too)", est.Floor.SavingsMean)
	}
	// No deadline: no floor, and why.
	m2 := &SimModel{Floor: true}
	est, err = m2.Estimate(o, in, u)
	if err != nil {
		t.Fatal(err)
	}
	if est.Floor != nil || !strings.Contains(est.FloorNote, "needs a deadline") {
		t.Errorf("without a deadline: floor %+v, note %q", est.Floor, est.FloorNote)
	}
}
