package spot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.5g, want %.5g (±%.1f%%)", what, got, want, rel*100)
	} else {
		t.Logf("%s = %.5g, closed form %.5g (%.3f%% off)", what, got, want, 100*math.Abs(got-want)/math.Abs(want))
	}
}

// meanSE is the mean of xs and its standard error.
func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	n := float64(len(xs))
	mean /= n
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / (n - 1) / n)
}

// closeToSE checks a Monte Carlo mean against an exact value within 4
// standard errors (a false alarm about once in 16,000 runs of the test; the
// seeds are fixed, so never in practice) and reports how tight that is.
func closeToSE(t *testing.T, what string, xs []float64, want float64) {
	t.Helper()
	got, se := meanSE(xs)
	if math.Abs(got-want) > 4*se {
		t.Errorf("%s = %.5g ± %.2g (SE, %d runs), want %.5g: %.1f SE off", what, got, se, len(xs), want, math.Abs(got-want)/se)
	} else {
		t.Logf("%s = %.5g ± %.2g (SE), exact %.5g (%.3f%% off, %.1f SE)", what, got, se, want, 100*math.Abs(got-want)/want, math.Abs(got-want)/se)
	}
}

// expectedSpotOnly is the exact expected completion time of spot-only under
// Poisson interruptions (mean M, restart R, no interruption during a restart)
// with a checkpoint every tau hours of work costing c: ceil(W/τ)−1 segments
// of τ+c and a last one of the remaining work with no checkpoint, each
// (M+R)(e^{L/M}−1).
func expectedSpotOnly(w, tau, c, m, r float64) float64 {
	n := math.Ceil(w/tau - 1e-9)
	return (n-1)*ExpectedSegment(tau+c, m, r) + ExpectedSegment(w-(n-1)*tau, m, r)
}

// TestSegmentClosedForm: spot-only under Poisson interruptions with periodic
// checkpoints; expected time per segment is (M+R)(e^{L/M}−1), L = τ+C for all
// segments but the last (no checkpoint needed at the end). The tolerance is
// 4 standard errors of the simulated mean, so fewer runs keep it cheap under
// -race without a looser check.
func TestSegmentClosedForm(t *testing.T) {
	m, tau, c, r := 10.0, 2.0, 0.1, 0.2
	k := 5
	job := Job{Work: float64(k) * tau, Nodes: 1, Checkpoint: tau, CheckpointCost: c, Restart: r, SpotPrice: 1, ODPrice: 3}
	s, err := Simulate(Config{Job: job, Model: Hazard{PerHour: 1 / m}, Runs: 20_000, Seed: 1}, []Policy{SpotOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	closeToSE(t, "mean completion time", s[0].Hours, expectedSpotOnly(job.Work, tau, c, m, r))
	// Without checkpoints the whole job is one segment: (M+R)(e^{W/M}−1).
	job.Checkpoint = math.Inf(1)
	s, _ = Simulate(Config{Job: job, Model: Hazard{PerHour: 1 / m}, Runs: 20_000, Seed: 2}, []Policy{SpotOnly{}})
	closeToSE(t, "no-checkpoint completion time", s[0].Hours, ExpectedSegment(job.Work, m, r))
}

// TestDalyOptimum: Daly's interval is within 1% of the best expected
// completion time over a grid of intervals (the exact expectation, with the
// job's last partial segment), and the simulator reproduces that expectation
// at Daly's interval and at both ends of the grid within 4 standard errors.
// (It used to compare seven 100,000-run simulations: 75 s under -race.)
func TestDalyOptimum(t *testing.T) {
	m, c, r, w := 6.0, 5.0/60, 10.0/60, 60.0
	tauD := Daly(c, m)
	// Daly's published example: C = 5 min, M = 6 h → 57 min (Young: 60 min).
	within(t, "Daly τ for C=5 min, M=6 h (minutes)", tauD*60, 57, 0.01)
	within(t, "Young τ (minutes)", Young(c, m)*60, 60, 0.001)
	atDaly := expectedSpotOnly(w, tauD, c, m, r)
	best, bestTau := math.Inf(1), 0.0
	for f := 0.3; f <= 3; f += 0.01 {
		if v := expectedSpotOnly(w, tauD*f, c, m, r); v < best {
			best, bestTau = v, tauD*f
		}
	}
	if atDaly > best*1.01 {
		t.Errorf("expected time at Daly's τ %.4g h is more than 1%% above the grid minimum %.4g h (τ = %.3f h)", atDaly, best, bestTau)
	}
	t.Logf("at Daly's τ=%.3f h: %.4g h expected; best on the grid: %.4g h at τ=%.3f h", tauD, atDaly, best, bestTau)
	for _, f := range []float64{0.4, 1, 2.2} {
		job := Job{Work: w, Nodes: 1, Checkpoint: tauD * f, CheckpointCost: c, Restart: r, SpotPrice: 1, ODPrice: 3}
		s, err := Simulate(Config{Job: job, Model: Hazard{PerHour: 1 / m}, Runs: 4000, Seed: 7}, []Policy{SpotOnly{}})
		if err != nil {
			t.Fatal(err)
		}
		closeToSE(t, fmt.Sprintf("mean time at %.1f × Daly's τ", f), s[0].Hours, expectedSpotOnly(w, tauD*f, c, m, r))
	}
}

// periodicTrace alternates up and down ticks so that a share r of time is up.
func periodicTrace(up, down int, ticks int, gap float64) *Trace {
	tr := &Trace{Name: "periodic", GapSeconds: gap, Data: make([]int, ticks)}
	for i := range tr.Data {
		if i%(up+down) < up {
			tr.Data[i] = 1
		}
	}
	return tr
}

// TestGreedyFractional: under fractional availability r with no changeover
// cost, Greedy switches to on-demand at t' = (R0−C0)/(1−r) and costs
// (r−k)t' + kR0 with spot at 1 and on-demand at k (Can't Be Late, eqs. 1-3).
func TestGreedyFractional(t *testing.T) {
	tr := periodicTrace(3, 2, 50_000, 36) // r = 0.6, 0.01 h ticks
	r, k, c0, r0 := 0.6, 3.0, 48.0, 60.0
	job := Job{Work: c0, Deadline: r0, Nodes: 1, Checkpoint: 0, Restart: 0, SpotPrice: 1, ODPrice: k}
	s, err := Simulate(Config{Job: job, Model: NewReplay(tr), Runs: 300, Seed: 3}, []Policy{Greedy{}})
	if err != nil {
		t.Fatal(err)
	}
	tp := (r0 - c0) / (1 - r)
	within(t, "Greedy cost", s[0].CostMean, (r-k)*tp+k*r0, 0.01)
	if s[0].PMeetDeadline != 1 {
		t.Errorf("Greedy met the deadline in %.1f%% of runs", 100*s[0].PMeetDeadline)
	}
}

func TestOnDemandCostIsExact(t *testing.T) {
	job := Job{Work: 72, Nodes: 2, Checkpoint: 1, CheckpointCost: 0.1, Restart: 0.2, SpotPrice: 0.918, ODPrice: 3.06}
	s, _ := Simulate(Config{Job: job, Model: Hazard{PerHour: 0.01}, Runs: 50, Seed: 1}, []Policy{OnDemandOnly{}})
	for _, c := range s[0].Costs {
		if c != 72*2*3.06 {
			t.Fatalf("on-demand cost %v, want %v", c, 72*2*3.06)
		}
	}
	if s[0].SavingsMean != 0 || s[0].CompletionMean != 72 {
		t.Errorf("on-demand: savings %v, time %v", s[0].SavingsMean, s[0].CompletionMean)
	}
}

// TestInvariants: over random jobs and models, no run saves more than the spot
// discount, and deadline-aware policies never miss a deadline on-demand alone meets.
func TestInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	models := []Model{
		Hazard{PerHour: 0.05}, Hazard{PerHour: 0.5, Down: 1}, TwoState{MeanUp: 2, MeanDown: 3},
		NewReplay(Synthesize(1.5, 2, 300, 24*30, 1, 0, 4)), NewReplay(periodicTrace(2, 2, 1000, 600)), // 20 min flips: with a restart near that, spot-only never finishes (and runs to its limit)
	}
	all, _ := Policies([]string{"all"}, ASGMix{OnDemandBase: 1, OnDemandPercent: 0})
	for trial := 0; trial < 40; trial++ {
		w, d := 1+rng.Float64()*60, rng.Float64()*0.5
		job := Job{Work: w, Deadline: (w + d) * (1 + rng.Float64()), Nodes: 1 + rng.IntN(3), Checkpoint: []float64{0, 0.5, 2, math.Inf(1)}[rng.IntN(4)],
			CheckpointCost: rng.Float64() * 0.2, Restart: d, Startup: d * float64(trial%2), SpotPrice: 0.3 + rng.Float64(), ODPrice: 3}
		m := models[trial%len(models)]
		sums, err := Simulate(Config{Job: job, Model: m, Runs: 20, Seed: uint64(trial)}, all)
		if err != nil {
			t.Fatal(err)
		}
		discount := 1 - job.SpotPrice/job.ODPrice
		for _, s := range sums {
			for i, c := range s.Costs {
				if math.IsInf(s.Hours[i], 1) {
					continue // never finished: spot never came for this many nodes
				}
				if 1-c/job.ODCost() > discount+1e-9 {
					t.Fatalf("%s saved %.4f > spot discount %.4f (%+v)", s.Policy, 1-c/job.ODCost(), discount, job)
				}
			}
			if (s.Policy == "greedy" || s.Policy == "uniform-progress" || s.Policy == "uniform-progress-lite") && s.PMeetDeadline != 1 {
				t.Fatalf("%s missed a deadline on-demand meets: P(meet) %.3f (%+v, %s)", s.Policy, s.PMeetDeadline, job, m.Describe(job.Nodes))
			}
		}
	}
}

func TestTwoStateFit(t *testing.T) {
	tr := Synthesize(3, 1, 30, 24*3000, 1, 0, 11)
	up, down := tr.RunsFor(1).Fit()
	within(t, "fitted mean up-run", up, 3, 0.03)
	within(t, "fitted mean down-run", down, 1, 0.03)
}

func TestParseTraceErrors(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"wrong key": {`{"meta": {"gap_seconds": 60}, "data": [1]}`, `unknown field "meta"; want the Can't Be Late format`},
		"array":     {`[{"metadata": {"gap_seconds": 60}, "data": [1]}]`, "the file holds a JSON array; want an object"},
		"string":    {`"trace"`, "does not start with a JSON object"},
		"data str":  {`{"metadata": {"gap_seconds": 60}, "data": "1,0"}`, "data holds a JSON string at byte"},
		"data frac": {`{"metadata": {"gap_seconds": 60}, "data": [1, 0.5]}`, "data holds a JSON number 0.5"},
		"gap str":   {`{"metadata": {"gap_seconds": "60"}, "data": [1]}`, "metadata.gap_seconds holds a JSON string"},
		"meta arr":  {`{"metadata": [60], "data": [1]}`, "metadata holds a JSON array"},
		"blank":     {`  `, "the file is empty"},
		"no gap":    {`{"metadata": {}, "data": [1]}`, "gap_seconds is missing"},
		"zero gap":  {`{"metadata": {"gap_seconds": 0}, "data": [1]}`, "want 1 to 86400 seconds between ticks"},
		"negative":  {`{"metadata": {"gap_seconds": 60}, "data": [1, -1]}`, "data[1] = -1 is negative"},
		"empty":     {`{"metadata": {"gap_seconds": 60}, "data": []}`, "data is empty"},
		"prices":    {`{"metadata": {"gap_seconds": 60}, "data": [1, 1], "prices": [1]}`, "1 prices for 2 ticks"},
		"not json":  {`{"data": [1,`, "the JSON ends early"},
		"syntax":    {`{"data": [1 2]}`, "not valid JSON at byte"},
		"bad price": {`{"metadata": {"gap_seconds": 60}, "data": [1], "prices": [-2]}`, "prices[0]"},
	} {
		_, err := ParseTrace(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
		// Never a Go type in what the user reads.
		if err != nil && (strings.Contains(err.Error(), "interface") || strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "spot.") || strings.Contains(err.Error(), "struct")) {
			t.Errorf("%s: %v names a Go type", name, err)
		}
	}
}

func TestValidateJob(t *testing.T) {
	for name, j := range map[string]Job{
		"deadline < work": {Work: 10, Deadline: 5, Nodes: 1, ODPrice: 1},
		"no work":         {Work: 0, Nodes: 1, ODPrice: 1},
		"no nodes":        {Work: 1, Nodes: 0, ODPrice: 1},
		"no od price":     {Work: 1, Nodes: 1},
	} {
		if err := j.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestRealTraces replays every shared trace and checks the invariants on
// real availability (skips where shared/data is absent).
func TestRealTraces(t *testing.T) {
	dir := filepath.Join(shareddata.Dir(t), "spot-traces")
	var paths []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".json") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) != 34 {
		t.Fatalf("found %d traces, want 34", len(paths))
	}
	all, _ := Policies([]string{"all"}, ASGMix{})
	for _, p := range paths {
		tr, err := LoadTrace(p)
		if err != nil {
			t.Fatal(err)
		}
		job := Job{Work: 48, Deadline: 52, Nodes: 1, Checkpoint: 0.5, CheckpointCost: 0.05, Restart: 0.2, Startup: 0.2, SpotPrice: 0.918, ODPrice: 3.06}
		sums, err := Simulate(Config{Job: job, Model: NewReplay(tr), Runs: 30, Seed: 1}, all)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sums {
			if (s.Policy == "greedy" || s.Policy == "uniform-progress" || s.Policy == "uniform-progress-lite") && s.PMeetDeadline != 1 {
				t.Errorf("%s: %s P(meet) %.2f", p, s.Policy, s.PMeetDeadline)
			}
			if s.SavingsMean > s.MaxSavings+1e-9 {
				t.Errorf("%s: %s saves %.3f > discount %.3f", p, s.Policy, s.SavingsMean, s.MaxSavings)
			}
		}
	}
}

// BenchmarkHazardJobHours reports simulated job-hours per second in hazard mode.
func BenchmarkHazardJobHours(b *testing.B) {
	job := Job{Work: 72, Deadline: 100, Nodes: 1, Checkpoint: 1, CheckpointCost: 5.0 / 60, Restart: 10.0 / 60, SpotPrice: 0.918, ODPrice: 3.06}
	cfg := Config{Job: job, Model: Hazard{PerHour: 0.0005}, Runs: 1000, Seed: 1}
	pols := []Policy{SpotOnly{}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Simulate(cfg, pols); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cfg.Runs)*job.Work*float64(b.N)/b.Elapsed().Seconds(), "job-h/s")
}

// BenchmarkReplayAllTraces replays all 34 shared traces × 300 offsets × every policy.
func BenchmarkReplayAllTraces(b *testing.B) { benchmarkReplayAll(b, false) }

// BenchmarkReplayAllTracesOptimal adds the hindsight optimum (issue 15: ≤ 30 s).
func BenchmarkReplayAllTracesOptimal(b *testing.B) { benchmarkReplayAll(b, true) }

func benchmarkReplayAll(b *testing.B, optimal bool) {
	dir := filepath.Join(shareddata.Dir(b), "spot-traces")
	var models []Model
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".json") {
			tr, err := LoadTrace(p)
			if err != nil {
				b.Fatal(err)
			}
			models = append(models, NewReplay(tr))
		}
		return nil
	})
	names := []string{"all"}
	if optimal {
		names = append(names, "optimal")
	}
	all, _ := Policies(names, ASGMix{})
	job := Job{Work: 48, Deadline: 52, Nodes: 1, Checkpoint: 0.5, CheckpointCost: 0.05, Restart: 0.2, SpotPrice: 0.918, ODPrice: 3.06}
	b.ResetTimer()
	for b.Loop() {
		for _, m := range models {
			if _, err := Simulate(Config{Job: job, Model: m, Runs: 300, Seed: 1}, all); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestSyntheticTestdata: the shipped traces equal a fresh generation and parse.
func TestSyntheticTestdata(t *testing.T) {
	for name, tr := range map[string]*Trace{
		"volatile_1node.json": Synthesize(1, 2, 195, 30*24, 1, 0, 1),
		"stable_1node.json":   Synthesize(8, 1, 195, 30*24, 1, 0, 2),
		"priced_4node.json":   Synthesize(3, 1, 300, 14*24, 4, 0.918, 3),
	} {
		var b strings.Builder
		if err := tr.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != b.String() {
			t.Errorf("testdata/%s differs from a fresh generation: run make traces", name)
		}
		back, err := ParseTrace(strings.NewReader(string(got)))
		if err != nil || len(back.Data) != len(tr.Data) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The 4-node trace carries prices: replay bills them tick by tick.
	tr, _ := LoadTrace("testdata/priced_4node.json")
	job := Job{Work: 24, Deadline: 40, Nodes: 4, Checkpoint: 1, CheckpointCost: 0.05, Restart: 0.1, SpotPrice: 99, ODPrice: 3.06}
	s, err := Simulate(Config{Job: job, Model: NewReplay(tr), Runs: 50, Seed: 1}, []Policy{SpotOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	if s[0].CostMean > 4*0.918*job.Deadline*3 || s[0].MaxSavings != 1-0.918/3.06 {
		t.Errorf("priced replay: cost %v, max savings %v (the flag price 99 must not be used)", s[0].CostMean, s[0].MaxSavings)
	}
}

func FuzzParseTrace(f *testing.F) {
	f.Add(`{"metadata": {"gap_seconds": 60}, "data": [0, 1, 1, 0], "prices": [1, 1, 1, 1]}`)
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := ParseTrace(strings.NewReader(s))
		if err != nil {
			return
		}
		runs := tr.RunsFor(1)
		if runs.Total <= 0 || len(runs.Up) == 0 {
			t.Fatal("accepted trace with no time")
		}
	})
}
