package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// The failover's zones are its regions in units of the first region's spot
// price: r2's spot 2/1 = 2, on-demand 4/1, a move of 3 USD = 3 hours at r1's
// spot price (the spot package's tests show that moves are charged as given).
func TestFailoverZones(t *testing.T) {
	band := catalog.BandChoice{Label: ">20%", Origin: "test"}
	f := &SpotFailover{Currency: money.USD, Regions: []SpotRegion{
		{Name: "r1", Spot: dec("0.5"), OnDemand: dec("4"), Band: band},
		{Name: "r2", Spot: dec("1"), OnDemand: dec("2"), Band: band},
	}, MoveCost: [][]decimal.Decimal{{dec("0"), dec("1.5")}, {dec("2"), dec("0")}}}
	zones, moves, bands, err := f.zones(0)
	if err != nil {
		t.Fatal(err)
	}
	lambda, _, _, _ := spot.BandHazard(">20%")
	if zones[0].SpotPrice != 1 || zones[0].ODPrice != 8 || zones[1].SpotPrice != 2 || zones[1].ODPrice != 4 || zones[1].Model != (spot.Hazard{PerHour: lambda}) {
		t.Errorf("zones %+v", zones)
	}
	if moves[0][1] != 3 || moves[1][0] != 4 || moves[0][0] != 0 || len(bands) != 2 || !strings.Contains(bands[1], "r2 >20% a month (test)") {
		t.Errorf("moves %v, bands %q", moves, bands)
	}
	bad := *f
	bad.MoveCost = bad.MoveCost[:1]
	if _, _, _, err := bad.zones(0); err == nil {
		t.Error("one row of move costs for two regions: no error")
	}
}

// A failover estimate is the spot package's multi-zone simulation of
// failover-deadline on the failover's zones, run by hand on the same seeds:
// same hours factor, moves and money on moves, deadline misses.
func TestSimModelFailoverIsTheSimulators(t *testing.T) {
	band := catalog.BandChoice{Label: ">20%", Origin: "test"}
	f := &SpotFailover{Currency: money.USD, Regions: []SpotRegion{
		{Name: "r1", Spot: dec("1"), OnDemand: dec("8"), Band: band},
		{Name: "r2", Spot: dec("2"), OnDemand: dec("4"), Band: band},
	}, MoveCost: [][]decimal.Decimal{{dec("0"), dec("3")}, {dec("3"), dec("0")}}}
	m := &SimModel{Runs: 400, Deadline: 104, Floor: true}
	u := &Usage{DurationHours: 100, Instances: 4, Spot: DefaultSpot}
	est, err := m.Estimate(&catalog.Offering{}, SpotInput{Failover: f}, u)
	if err != nil {
		t.Fatal(err)
	}
	if est.Policy != "failover-deadline" || strings.Join(est.Regions, ",") != "r1,r2" {
		t.Fatalf("policy %s regions %v", est.Policy, est.Regions)
	}
	zones, moves, _, _ := f.zones(0)
	// 4 instances relaunch in 10 min × H(4) = 10 min × 25/12 each time, the first included.
	r := DefaultSpot.RestartHours * 25 / 12
	job := spot.Job{Work: 100, Deadline: 104, Nodes: 4, Checkpoint: DefaultSpot.CheckpointHours, Restart: r, Startup: r, SpotPrice: 1, ODPrice: 8}
	s, err := spot.Simulate(spot.Config{Job: job, Zones: zones, MoveCost: moves, Runs: 400, Seed: 1}, []spot.Policy{spot.FailoverDeadline{}})
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Max(1, s[0].CostMean/400); math.Abs(est.HoursFactor-want) > 1e-12 || est.MovesMean != s[0].MovesMean ||
		est.MoveCostHours != s[0].MoveCostMean || math.Abs(est.PMissDeadline-(1-s[0].PMeetDeadline)) > 1e-12 {
		t.Errorf("estimate factor %.6f, moves %.4f (%.4f h), miss %.4f; the simulator gives %.6f, %.4f (%.4f h), %.4f",
			est.HoursFactor, est.MovesMean, est.MoveCostHours, est.PMissDeadline, want, s[0].MovesMean, s[0].MoveCostMean, 1-s[0].PMeetDeadline)
	}
	// The floor: the multi-zone optimum, at most the policy's cost, on the first
	// 20 runs: 40 asked, but on 2 zones a run may use 40000·6/11 = 21818 cells,
	// √(104·100/21818) = 0.69 h > 0.5 h, so 0.5 h on ⌊40·21818·0.25/10400⌋ = 20 runs.
	// The grid rounds the start-up up to a step: the optimum may pay up to
	// (0.5 h − r) more per run than exact timing, /100 h of work.
	if est.Floor == nil || est.Floor.Runs != 20 || est.Floor.Factor > est.HoursFactor+(0.5-r)/100+1e-9 {
		t.Errorf("floor %+v (note %q); want the optimum on 20 runs, at most the factor %.4f", est.Floor, est.FloorNote, est.HoursFactor)
	}
	if !strings.Contains(est.Explanation, "r2 >20% a month (test)") || !strings.Contains(est.Explanation, "moves on average") {
		t.Errorf("explanation %q", est.Explanation)
	}
}

// TestSpotOutageMakesFailoverPay: with spot short for 6 h after each
// interruption (--spot-outage), a job that may fail over to a second region
// of the same prices moves there and costs less than one that waits in its
// one region (on the same seeds); with spot back at once (the bands'
// reading) there is nothing to move for. The outage reaches the simulator
// as the Hazard model's Down.
func TestSpotOutageMakesFailoverPay(t *testing.T) {
	band := catalog.BandChoice{Label: ">20%", Origin: "test"}
	two := &SpotFailover{Currency: money.USD, Regions: []SpotRegion{
		{Name: "r1", Spot: dec("1"), OnDemand: dec("3"), Band: band},
		{Name: "r2", Spot: dec("1"), OnDemand: dec("3"), Band: band},
	}, MoveCost: [][]decimal.Decimal{{dec("0"), dec("0.5")}, {dec("0.5"), dec("0")}}}
	od := catalog.Price{Known: true, Amount: money.New(dec("3"), money.USD)}
	sp := catalog.Price{Known: true, Amount: money.New(dec("1"), money.USD)}
	for _, tc := range []struct {
		outage    float64
		wantMoves bool
	}{{0, false}, {6, true}} {
		u := &Usage{DurationHours: 200, Instances: 8, Spot: DefaultSpot}
		u.Spot.OutageHours = tc.outage
		m := &SimModel{Runs: 300, Deadline: 260}
		one, err := m.Estimate(&catalog.Offering{OnDemand: od}, SpotInput{Price: sp, Band: band}, u)
		if err != nil {
			t.Fatal(err)
		}
		fo, err := m.Estimate(&catalog.Offering{OnDemand: od}, SpotInput{Price: sp, Band: band, Failover: two}, u)
		if err != nil {
			t.Fatal(err)
		}
		if got := fo.MovesMean > 0.5; got != tc.wantMoves {
			t.Errorf("outage %g h: %.2f moves a run; want moves: %v", tc.outage, fo.MovesMean, tc.wantMoves)
		}
		if tc.outage > 0 && !(fo.HoursFactor < one.HoursFactor) {
			t.Errorf("outage %g h: failover costs %.4f× the work at the spot price, one region %.4f×; want failover cheaper", tc.outage, fo.HoursFactor, one.HoursFactor)
		}
		if tc.outage > 0 && !strings.Contains(one.Explanation, "unavailable for 6 h on average (--spot-outage") {
			t.Errorf("explanation does not state the outage: %q", one.Explanation)
		}
	}
}
