package spot

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func mustTrace(t *testing.T, path string) *Trace {
	t.Helper()
	tr, err := LoadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// markovTrace is a random up/down trace of n ticks of 0.1 h.
func markovTrace(rng *rand.Rand, name string, n int) *Trace {
	tr := &Trace{Name: name, GapSeconds: 360, Data: make([]int, n)}
	up := rng.IntN(2)
	stay := 0.5 + 0.45*rng.Float64()
	for i := range tr.Data {
		if rng.Float64() > stay {
			up = 1 - up
		}
		tr.Data[i] = up
	}
	return tr
}

// TestZoneSimOneZoneEqualsToday: with one zone, the zone policies
// failover, round-robin and cheapest-first give the spot policy's
// runs and failover-deadline uniform-progress's, run by run, on traces (with
// and without prices, several nodes, periodic checkpoints with a cost) and
// on a memoryless model; and through SimulateMany a config of one zone
// equals today's config for every policy, the optimum included.
func TestZoneSimOneZoneEqualsToday(t *testing.T) {
	models := []Model{
		NewReplay(mustTrace(t, "testdata/volatile_1node.json")),
		NewReplay(mustTrace(t, "testdata/priced_4node.json")),
		Hazard{PerHour: 0.3, Down: 0.5},
		TwoState{MeanUp: 2, MeanDown: 1},
	}
	job := Job{Work: 20, Deadline: 26, Nodes: 2, Checkpoint: 0.7, CheckpointCost: 0.05, Restart: 0.2, Startup: 0.2, SpotPrice: 0.9, ODPrice: 3}
	pairs := []struct {
		zone  Policy
		today Policy
	}{{Failover{}, SpotOnly{}}, {RoundRobin{}, SpotOnly{}}, {CheapestFirst{}, SpotOnly{}}, {FailoverDeadline{}, UniformProgress{}}}
	for mi, m := range models {
		cfg := Config{Job: job, Zones: []Zone{{Name: "a", Model: m}}, Seed: 7}
		today := Config{Job: job, Model: m, Seed: 7}.withZones()
		for _, p := range pairs {
			for i := range 40 {
				want, _, _ := runOnce(&today, p.today, job.Nodes, i, false, 1e7, nil)
				got, _, _ := runOnce(&cfg, p.zone, job.Nodes, i, false, 1e7, nil)
				if math.Abs(got.Cost-want.Cost) > 1e-9 || math.Abs(got.Hours-want.Hours) > 1e-9 || got.Interruptions != want.Interruptions || got.Switches != want.Switches || got.Moves != 0 {
					t.Fatalf("model %d run %d %s: cost %.9g hours %.9g intr %d sw %d moves %d; %s: cost %.9g hours %.9g intr %d sw %d",
						mi, i, p.zone.Name(), got.Cost, got.Hours, got.Interruptions, got.Switches, got.Moves, p.today.Name(), want.Cost, want.Hours, want.Interruptions, want.Switches)
				}
			}
		}
	}
	// Through SimulateMany: one zone is today's config.
	tr := mustTrace(t, "testdata/volatile_1node.json")
	pols, err := Policies(append([]string{"all", "optimal"}, ZonePolicyNames()...), ASGMix{OnDemandPercent: 50})
	if err != nil {
		t.Fatal(err)
	}
	job.SpotPrice, job.ODPrice, job.Nodes = 0, 3, 1
	today, err := Simulate(Config{Job: Job{Work: 20, Deadline: 26, Nodes: 1, Checkpoint: 0.7, CheckpointCost: 0.05, Restart: 0.2, Startup: 0.2, SpotPrice: 0.8, ODPrice: 3.5}, Model: NewReplay(tr), Runs: 30, Seed: 3}, pols)
	if err != nil {
		t.Fatal(err)
	}
	one, err := Simulate(Config{Job: job, Zones: []Zone{{Name: "a", Model: NewReplay(tr), SpotPrice: 0.8, ODPrice: 3.5}}, Runs: 30, Seed: 3}, pols)
	if err != nil {
		t.Fatal(err)
	}
	for i := range today {
		for k := range today[i].Costs {
			if today[i].Costs[k] != one[i].Costs[k] && !(math.IsNaN(today[i].Costs[k]) && math.IsNaN(one[i].Costs[k])) {
				t.Errorf("%s run %d: one zone %.9g, today %.9g", today[i].Policy, k, one[i].Costs[k], today[i].Costs[k])
			}
		}
	}
	// The zone policies with one zone are today's spot and uniform-progress.
	byName := map[string]Summary{}
	for _, s := range today {
		byName[s.Policy] = s
	}
	for z, p := range map[string]string{"failover": "spot", "round-robin": "spot", "cheapest-first": "spot", "failover-deadline": "uniform-progress"} {
		if a, b := byName[z], byName[p]; a.CostMean != b.CostMean || a.PMeetDeadline != b.PMeetDeadline {
			t.Errorf("one zone: %s cost %.6g meet %.3g, %s %.6g %.3g", z, a.CostMean, a.PMeetDeadline, p, b.CostMean, b.PMeetDeadline)
		}
	}
}

// TestZoneNeverUpIsNeverUsed: a zone whose spot is never available, the
// cheapest and first in order, is never run in by the spot policies, and
// the optimum across it and a live zone is the live zone's alone (free moves,
// the same on-demand price).
func TestZoneNeverUpIsNeverUsed(t *testing.T) {
	live := mustTrace(t, "testdata/volatile_1node.json")
	dead := &Trace{Name: "dead", GapSeconds: live.GapSeconds, Data: make([]int, len(live.Data))}
	job := Job{Work: 10, Deadline: 14, Nodes: 1, Restart: 0.1, Startup: 0.1, SpotPrice: 1, ODPrice: 3}
	cfg := Config{Job: job, Zones: []Zone{{Name: "dead", Model: NewReplay(dead), SpotPrice: 0.1}, {Name: "live", Model: NewReplay(live)}}, Runs: 20, Seed: 5}
	for _, p := range []Policy{Failover{}, RoundRobin{}, CheapestFirst{}, FailoverDeadline{}} {
		for i := range 20 {
			r, _, _ := runOnce(&cfg, p, 1, i, true, 1e7, nil)
			for _, ev := range r.Events {
				if ev.What == "switch" && strings.HasSuffix(ev.Detail, "spot in dead") {
					t.Fatalf("%s run %d: ran on spot in the dead zone: %v", p.Name(), i, ev)
				}
			}
		}
	}
	both, err := Simulate(cfg, []Policy{Optimal{}})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Simulate(Config{Job: job, Model: NewReplay(live), Runs: 20, Seed: 5}, []Policy{Optimal{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range both[0].Costs {
		if math.Abs(both[0].Costs[i]-alone[0].Costs[i]) > 1e-9 {
			t.Errorf("run %d: optimum with a dead zone %.9g, the live zone alone %.9g", i, both[0].Costs[i], alone[0].Costs[i])
		}
	}
}

// TestZoneMovesCharged: zone a (first, so chosen on a tie) is up for 1 h,
// zone b always. Failover from 0: start-up 0.1 h in a, 0.9 h of work,
// preempted at 1 h, move to b: restart 0.1 h + the transfer M, then the
// remaining 1.1 h: 2.2 spot hours at 1 plus M, one move, done at 2.2 h.
// Raising the move cost raises the cost by exactly moves × the raise.
func TestZoneMovesCharged(t *testing.T) {
	a := bitsTrace("1111111111" + strings.Repeat("0", 90))
	b := bitsTrace(strings.Repeat("1", 100))
	job := Job{Work: 2, Deadline: 4, Nodes: 1, Restart: 0.1, Startup: 0.1, SpotPrice: 1, ODPrice: 3}
	for _, m := range []float64{0, 5, 12.5} {
		cfg := Config{Job: job, Zones: []Zone{{Name: "a", Model: NewReplay(a)}, {Name: "b", Model: NewReplay(b)}},
			MoveCost: [][]float64{{0, m}, {m + 1, 0}}, Offsets: []float64{0}}
		s, err := Simulate(cfg, []Policy{Failover{}, RoundRobin{}, CheapestFirst{}, FailoverDeadline{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range s {
			if got, want := x.Costs[0], 2.2+m; math.Abs(got-want) > 1e-9 || x.MovesMean != 1 || x.MoveCostMean != m || math.Abs(x.Hours[0]-2.2) > 1e-9 {
				t.Errorf("move cost %g, %s: cost %.6g (want %.6g), moves %g, move money %g, hours %.4g (want 2.2)", m, x.Policy, got, want, x.MovesMean, x.MoveCostMean, x.Hours[0])
			}
		}
		r, err := Explain(cfg, Failover{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ev := range r.Events {
			if ev.What == "move" {
				found = true
				want := "a → b (spot up, cheapest): 0.10 h restart + "
				if !strings.HasPrefix(ev.Detail, want) || math.Abs(ev.T-1) > 1e-9 {
					t.Errorf("move event %+v, want at 1 h: %q...", ev, want)
				}
			}
		}
		if !found {
			t.Errorf("move cost %g: no move in the timeline %v", m, r.Events)
		}
	}
}

// zscript runs a fixed schedule across zones: (mode, zone) per step.
type zscript struct {
	zoned
	h     float64
	modes []Mode
	zones []int
}

func (zscript) Name() string        { return "zscript" }
func (zscript) NeedsDeadline() bool { return false }
func (s zscript) decide(st *State) (Mode, int, float64) {
	k := int(math.Floor(st.T/s.h + 1e-6))
	if k >= len(s.modes) {
		return OnDemand, max(st.zone, 0), inf
	}
	return s.modes[k], s.zones[k], float64(k+1) * s.h
}

// TestZoneOptimumBruteForce: on two zones with 0.1 h ticks and unequal move
// costs, the optimum equals the cheapest of all 5^5 schedules (idle, or spot
// or on-demand in either zone, per step) run through the simulator.
func TestZoneOptimumBruteForce(t *testing.T) {
	cases := [][2]string{{"11001", "00111"}, {"10101", "01010"}, {"00000", "11100"}, {"11111", "11111"}, {"01100", "00011"}}
	job := Job{Work: 0.2, Deadline: 0.5, Nodes: 1, Restart: 0.1, Startup: 0.1, SpotPrice: 1, ODPrice: 3}
	for ci, c := range cases {
		mv := [][]float64{{0, 0.15}, {0.05, 0}}
		if ci%2 == 1 {
			mv = [][]float64{{0, 0.1}, {0.1, 0}} // every move the same: the optimum's shortcut
		}
		cfg := Config{Job: job, Zones: []Zone{{Name: "a", Model: NewReplay(bitsTrace(c[0] + "0000"))}, {Name: "b", Model: NewReplay(bitsTrace(c[1] + "0000")), SpotPrice: 0.7, ODPrice: 2.5}},
			MoveCost: mv, Offsets: []float64{0}}
		s, err := Simulate(cfg, []Policy{Optimal{}})
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(1)
		n := 5
		sc := zscript{h: 0.1, modes: make([]Mode, n), zones: make([]int, n)}
		total := 1
		for range n {
			total *= 5
		}
		for code := range total {
			x := code
			for k := range n {
				d := x % 5
				x /= 5
				sc.modes[k], sc.zones[k] = Mode((d+1)/2), (d+1)%2
			}
			r, _, _ := runOnce(&cfg, sc, 1, 0, false, 1e6, nil)
			if r.Met && r.Cost < best {
				best = r.Cost
			}
		}
		if math.IsInf(best, 1) || math.Abs(s[0].Costs[0]-best) > 1e-9 {
			t.Errorf("zones %v: optimum %.6g, brute force %.6g", c, s[0].Costs[0], best)
		}
	}
}

// TestZoneOptimumNeverAbovePolicies: on random three-zone traces, prices and
// move costs, at on-grid start offsets, no policy's run that meets the
// deadline costs less than the multi-zone optimum of the same run.
func TestZoneOptimumNeverAbovePolicies(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 9))
	pols, err := Policies(append(ZonePolicyNames(), "optimal"), ASGMix{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range 8 {
		var zones []Zone
		mv := make([][]float64, 3)
		for k := range 3 {
			zones = append(zones, Zone{Name: string(rune('a' + k)), Model: NewReplay(markovTrace(rng, "z", 300)),
				SpotPrice: 0.3 + 0.5*rng.Float64(), ODPrice: 1 + 0.3*rng.Float64()})
			mv[k] = make([]float64, 3)
			for i := range mv[k] {
				if i != k {
					mv[k][i] = 0.5 * rng.Float64()
					if seed%2 == 1 {
						mv[k][i] = 0.2 // every move the same: the optimum's shortcut
					}
				}
			}
		}
		job := Job{Work: 4, Deadline: 4 + 0.1*float64(rng.IntN(30)+3), Nodes: 1, Restart: 0.1 * float64(rng.IntN(3)+1), SpotPrice: 1, ODPrice: 1}
		job.Startup = job.Restart
		offs := make([]float64, 8)
		for i := range offs {
			offs[i] = 0.1 * float64(rng.IntN(300))
		}
		sums, err := Simulate(Config{Job: job, Zones: zones, MoveCost: mv, Offsets: offs}, pols)
		if err != nil {
			t.Fatal(err)
		}
		opt := sums[len(sums)-1]
		for _, s := range sums[:len(sums)-1] {
			for i, c := range s.Costs {
				if s.Hours[i] <= job.Deadline+1e-6 && c < opt.Costs[i]-1e-9 {
					t.Errorf("seed %d offset %g: %s costs %.6g below the optimum %.6g", seed, offs[i], s.Policy, c, opt.Costs[i])
				}
			}
		}
	}
}

func TestPairTraces(t *testing.T) {
	a := &Trace{Name: "a", GapSeconds: 300, Data: make([]int, 100)}
	b := &Trace{Name: "b", GapSeconds: 300, Data: make([]int, 60), Prices: make([]float64, 60)}
	c := &Trace{Name: "c", GapSeconds: 195, Data: make([]int, 100)}
	out, note, err := PairTraces([]*Trace{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(out[0].Data) != 60 || len(out[1].Data) != 60 || len(out[1].Prices) != 60 || len(a.Data) != 100 {
		t.Errorf("paired lengths %d, %d (prices %d), original %d; want 60, 60, 60, 100", len(out[0].Data), len(out[1].Data), len(out[1].Prices), len(a.Data))
	}
	if !strings.Contains(note, "common span only: 60 ticks of 300 s") {
		t.Errorf("note %q, want it to name the common span", note)
	}
	if _, note, _ := PairTraces([]*Trace{a, a}); !strings.Contains(note, "tick by tick") {
		t.Errorf("equal lengths: note %q", note)
	}
	if _, _, err := PairTraces([]*Trace{a, c}); err == nil || !strings.Contains(err.Error(), "a (300 s ticks) and c (195 s ticks)") {
		t.Errorf("different gaps: error %v, want one naming both traces and ticks", err)
	}
	// Unpaired traces of different spans are refused by the simulation.
	job := Job{Work: 1, Deadline: 2, Nodes: 1, SpotPrice: 1, ODPrice: 2}
	_, err = Simulate(Config{Job: job, Zones: []Zone{{Name: "a", Model: NewReplay(a)}, {Name: "b", Model: NewReplay(b)}}}, []Policy{Failover{}})
	if err == nil || !strings.Contains(err.Error(), "pair the traces first") {
		t.Errorf("unpaired spans: error %v", err)
	}
}

func TestZoneOfFile(t *testing.T) {
	for _, c := range []struct{ path, zone, region string }{
		{"../x/us-east-1a_v100_1.json", "us-east-1a", "us-east-1"},
		{"us-west-2c_v100_1.json", "us-west-2c", "us-west-2"},
		{"us-central1-a_c3-88.json", "us-central1-a", "us-central1"},
		{"trace.json", "trace", "trace"},
	} {
		if z, r := ZoneOfFile(c.path); z != c.zone || r != c.region {
			t.Errorf("ZoneOfFile(%q) = %q, %q; want %q, %q", c.path, z, r, c.zone, c.region)
		}
	}
}

func TestZoneConfigErrors(t *testing.T) {
	tr := bitsTrace("1111")
	job := Job{Work: 0.1, Deadline: 0.3, Nodes: 1, SpotPrice: 1, ODPrice: 2}
	zones := []Zone{{Name: "a", Model: NewReplay(tr)}, {Name: "b", Model: NewReplay(tr)}}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Job: job, Zones: zones, MoveCost: [][]float64{{0, 1}}}, "1 rows for 2 zones"},
		{Config{Job: job, Zones: zones, MoveCost: [][]float64{{0, -1}, {0, 0}}}, "from zone 1 to zone 2 is -1"},
		{Config{Job: job, Zones: []Zone{{Name: "a"}, zones[1]}}, "zone 1 (a): no availability model"},
		{Config{Job: job, Zones: zones, Offsets: []float64{9}}, "outside the trace of zone a"},
	} {
		if _, err := Simulate(c.cfg, []Policy{Failover{}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// BenchmarkZones9 is the timing: the 9 zones of aws-02-15-2023 ×
// 300 start offsets × every multi-zone policy and the optimum, a 48 h job due
// in 52 h (skipped where ../shared holds no traces).
func BenchmarkZones9(b *testing.B) {
	dir := "../../../shared/data/spot-traces/availability/1-node/aws-02-15-2023/"
	var ts []*Trace
	for _, z := range []string{"us-east-1a", "us-east-1c", "us-east-1d", "us-east-1f", "us-east-2a", "us-east-2b", "us-west-2a", "us-west-2b", "us-west-2c"} {
		tr, err := LoadTrace(dir + z + "_v100_1.json")
		if err != nil {
			b.Skip("no shared traces:", err)
		}
		ts = append(ts, tr)
	}
	ts, _, err := PairTraces(ts)
	if err != nil {
		b.Fatal(err)
	}
	var zones []Zone
	for _, tr := range ts {
		z, r := ZoneOfFile(tr.Name)
		zones = append(zones, Zone{Name: z, Region: r, Model: NewReplay(tr)})
	}
	pols, _ := Policies(append(ZonePolicyNames(), "optimal"), ASGMix{})
	job := Job{Work: 48, Deadline: 52, Nodes: 1, Checkpoint: 1, CheckpointCost: 0.05, Restart: 0.2, Startup: 0.2, SpotPrice: 0.918, ODPrice: 3.06}
	for b.Loop() {
		for _, p := range pols {
			t0 := time.Now()
			if _, err := Simulate(Config{Job: job, Zones: zones, Seed: 1}, []Policy{p}); err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: %v", p.Name(), time.Since(t0))
		}
	}
}

// TestZonesSingleZonePoliciesRunInFirstZone: with several zones, a policy
// that does not choose zones gives, run by run, its results in the first
// zone alone (at the same start offsets).
func TestZonesSingleZonePoliciesRunInFirstZone(t *testing.T) {
	a, b := mustTrace(t, "testdata/volatile_1node.json"), mustTrace(t, "testdata/stable_1node.json")
	job := Job{Work: 10, Deadline: 13, Nodes: 1, Checkpoint: 0.5, CheckpointCost: 0.05, Restart: 0.1, Startup: 0.1, SpotPrice: 1, ODPrice: 3}
	pols, _ := Policies([]string{"all"}, ASGMix{OnDemandPercent: 50})
	zones, err := Simulate(Config{Job: job, Zones: []Zone{{Name: "a", Model: NewReplay(a), SpotPrice: 0.8}, {Name: "b", Model: NewReplay(b)}}, Runs: 15, Seed: 4}, pols)
	if err != nil {
		t.Fatal(err)
	}
	job.SpotPrice = 0.8
	first, err := Simulate(Config{Job: job, Model: NewReplay(a), Runs: 15, Seed: 4}, pols)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pols {
		for k := range first[i].Costs {
			if zones[i].Costs[k] != first[i].Costs[k] && !(math.IsNaN(zones[i].Costs[k]) && math.IsNaN(first[i].Costs[k])) {
				t.Errorf("%s run %d: with zones %.9g, first zone alone %.9g", pols[i].Name(), k, zones[i].Costs[k], first[i].Costs[k])
			}
		}
	}
}

// TestZoneOptimumMoves: zone a is up for the first hour, zone b from then
// on, and the deadline leaves no time to wait for b. The optimum runs on
// spot in a (start-up 0.1 h, 0.9 h of work), moves to b at 1 h (restart
// 0.1 h and the transfer 0.5) and does the remaining 1.1 h there: 2.2 spot
// hours at 1 plus 0.5 = 2.7, one move, as failover does.
func TestZoneOptimumMoves(t *testing.T) {
	a := bitsTrace(strings.Repeat("1", 10) + strings.Repeat("0", 90))
	b := bitsTrace(strings.Repeat("0", 10) + strings.Repeat("1", 90))
	job := Job{Work: 2, Deadline: 2.5, Nodes: 1, Restart: 0.1, Startup: 0.1, SpotPrice: 1, ODPrice: 3}
	cfg := Config{Job: job, Zones: []Zone{{Name: "a", Model: NewReplay(a)}, {Name: "b", Model: NewReplay(b)}},
		MoveCost: [][]float64{{0, 0.5}, {0.5, 0}}, Offsets: []float64{0}}
	s, err := Simulate(cfg, []Policy{Optimal{}, Failover{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range s {
		if math.Abs(x.Costs[0]-2.7) > 1e-9 || x.MovesMean != 1 || math.Abs(x.MoveCostMean-0.5) > 1e-12 {
			t.Errorf("%s: cost %.6g, moves %g costing %g; want 2.7, 1 and 0.5", x.Policy, x.Costs[0], x.MovesMean, x.MoveCostMean)
		}
	}
}
