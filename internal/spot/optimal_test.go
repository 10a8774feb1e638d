package spot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// script runs a fixed schedule: modes[k] during step k of h hours, then on-demand.
type script struct {
	stepped
	h     float64
	modes []Mode
}

func (script) Name() string        { return "script" }
func (script) NeedsDeadline() bool { return false }
func (s script) decide(st *State) (Mode, int, float64) {
	k := int(math.Floor(st.T/s.h + 1e-6))
	if k >= len(s.modes) {
		return OnDemand, 0, inf
	}
	return s.modes[k], 0, float64(k+1) * s.h
}

// bruteForce runs every schedule of idle/spot/on-demand per step through the
// simulator and returns the least cost of those that meet the deadline.
func bruteForce(t *testing.T, job Job, tr *Trace, off float64) float64 {
	t.Helper()
	h := tr.GapSeconds / 3600
	n := int(math.Floor(job.Deadline/h + 1e-6))
	cfg := Config{Job: job, Model: NewReplay(tr), Offsets: []float64{off}}.withZones()
	best := math.Inf(1)
	modes := make([]Mode, n)
	total := 1
	for range n {
		total *= 3
	}
	for code := 0; code < total; code++ {
		c := code
		for k := range modes {
			modes[k] = Mode(c % 3)
			c /= 3
		}
		r, _, _ := runOnce(&cfg, script{h: h, modes: modes}, job.Nodes, 0, false, 1_000_000, nil)
		if r.Met && r.Cost < best {
			best = r.Cost
		}
	}
	return best
}

func optimumAt(t *testing.T, job Job, tr *Trace, off float64) float64 {
	t.Helper()
	s, err := Simulate(Config{Job: job, Model: NewReplay(tr), Offsets: []float64{off}}, []Policy{Optimal{}})
	if err != nil {
		t.Fatal(err)
	}
	return s[0].Costs[0]
}

func bitsTrace(bits string) *Trace {
	tr := &Trace{Name: "bits", GapSeconds: 360}
	for _, b := range bits {
		tr.Data = append(tr.Data, int(b-'0'))
	}
	return tr
}

// TestOptimalBruteForce: on 0.1 h ticks, the optimum equals the cheapest of
// all 3^7 schedules run through the simulator, on hand-picked and random traces.
func TestOptimalBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	traces := []string{"11111111", "00000000", "10101010", "00111100", "11011011", "01110111", "100000011111"}
	for range 3 {
		b := make([]byte, 10)
		for i := range b {
			b[i] = '0' + byte(rng.IntN(2))
		}
		traces = append(traces, string(b))
	}
	jobs := []Job{
		{Work: 0.4, Deadline: 0.7, Nodes: 1, Restart: 0.1, Startup: 0.1, SpotPrice: 1, ODPrice: 3},
		{Work: 0.3, Deadline: 0.7, Nodes: 1, Restart: 0.2, Startup: 0, SpotPrice: 1, ODPrice: 2.5},
		{Work: 0.5, Deadline: 0.7, Nodes: 2, Restart: 0, Startup: 0.1, SpotPrice: 0.3, ODPrice: 1},
		{Work: 0.3, Deadline: 0.7, Nodes: 1, Restart: 0.1, Startup: 0.3, SpotPrice: 0.5, ODPrice: 1},
	}
	for _, bits := range traces {
		for ji, job := range jobs {
			if testing.Short() && ji > 1 {
				continue
			}
			for _, off := range []float64{0, 0.2} {
				tr := bitsTrace(bits)
				if job.Nodes > 1 {
					for i := range tr.Data {
						tr.Data[i] *= 2
					}
				}
				got, want := optimumAt(t, job, tr, off), bruteForce(t, job, tr, off)
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("trace %s job %d offset %g: optimum %.6g, brute force %.6g", bits, ji, off, got, want)
				}
			}
		}
	}
}

// TestOptimalEdges: spot never up gives the on-demand cost; spot always up
// with room gives all-spot: (start-up + work) × spot price.
func TestOptimalEdges(t *testing.T) {
	job := Job{Work: 8, Deadline: 10, Nodes: 2, Restart: 0.2, Startup: 0.3, SpotPrice: 0.9, ODPrice: 3}
	down, up := bitsTrace("0000000000"), bitsTrace("2222222222")
	down.Data[0] = 1 // one node of two: never enough
	if got, want := optimumAt(t, job, down, 0), job.ODCost(); math.Abs(got-want) > 1e-9 {
		t.Errorf("spot never available: optimum %.6g, want the on-demand cost %.6g", got, want)
	}
	if got, want := optimumAt(t, job, up, 0.5), (job.Work+job.Startup)*2*0.9; math.Abs(got-want) > 1e-9 {
		t.Errorf("spot always available: optimum %.6g, want all-spot %.6g", got, want)
	}
}

// TestOptimalNeverAbovePolicies: on random traces and on-grid start offsets,
// no policy's run costs less than the optimum of the same run.
func TestOptimalNeverAbovePolicies(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	pols, _ := Policies([]string{"all"}, ASGMix{OnDemandPercent: 50})
	pols = append(pols, Optimal{})
	for seed := range 40 {
		tr := &Trace{Name: "markov", GapSeconds: 360, Data: make([]int, 400)}
		up := rng.IntN(2)
		stay := 0.5 + 0.45*rng.Float64()
		for i := range tr.Data {
			if rng.Float64() > stay {
				up = 1 - up
			}
			tr.Data[i] = up
		}
		job := Job{Work: 6, Deadline: 6 + 0.1*float64(rng.IntN(40)+3), Nodes: 1, Restart: 0.1 * float64(rng.IntN(4)),
			Startup: 0.1 * float64(rng.IntN(3)), SpotPrice: 0.3 + 0.5*rng.Float64(), ODPrice: 1}
		offs := make([]float64, 10)
		for i := range offs {
			offs[i] = 0.1 * float64(rng.IntN(400))
		}
		sums, err := Simulate(Config{Job: job, Model: NewReplay(tr), Offsets: offs}, pols)
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

// TestRegret: on a trace where spot is never up, spot+fallback and on-demand
// both pay on-demand: regret 0; the optimum's own regret is 0.
func TestRegret(t *testing.T) {
	job := Job{Work: 0.5, Deadline: 1, Nodes: 1, Restart: 0.1, Startup: 0.1, SpotPrice: 1, ODPrice: 3}
	tr := bitsTrace("11111111110000000000")
	pols, err := Policies([]string{"od", "all", "optimal"}, ASGMix{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pols) != 8 || pols[7].Name() != "optimal" {
		t.Fatalf("policies %v, want the 7 runnable ones and optimal", pols)
	}
	s, err := Simulate(Config{Job: job, Model: NewReplay(tr), Offsets: []float64{0, 1}}, pols)
	if err != nil {
		t.Fatal(err)
	}
	// From 0: optimum all spot, 0.6 h × 1 = 0.6; on-demand 1.8: regret 2.
	// From 1: spot never up in the window, optimum = on-demand 1.8: regret 0.
	for _, x := range s {
		switch x.Policy {
		case "on-demand":
			if !x.HasRegret || math.Abs(x.RegretMean-1) > 1e-9 || math.Abs(x.RegretP95-1.9) > 1e-9 {
				t.Errorf("on-demand regret mean %v p95 %v, want 1 and 1.9", x.RegretMean, x.RegretP95)
			}
		case "optimal":
			if x.RegretMean != 0 || x.RegretP95 != 0 {
				t.Errorf("optimal regret %v %v, want 0", x.RegretMean, x.RegretP95)
			}
		}
	}
}

// BenchmarkOptimal48h is the optimum of one run of a 48 h job with a 52 h
// deadline on the 195 s-tick synthetic volatile trace (issue 15: ≤ 50 ms a run).
func BenchmarkOptimal48h(b *testing.B) {
	tr, err := LoadTrace("testdata/volatile_1node.json")
	if err != nil {
		b.Fatal(err)
	}
	job := Job{Work: 48, Deadline: 52, Nodes: 1, Restart: 0.2, Startup: 0.2, SpotPrice: 0.918, ODPrice: 3.06}
	cfg := Config{Job: job, Model: NewReplay(tr), Runs: 10, Seed: 1}
	for b.Loop() {
		if _, err := Simulate(cfg, []Policy{Optimal{}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N*cfg.Runs), "ms/run")
}
