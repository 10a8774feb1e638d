package spot

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// preemptionTrace30s is a shared preemption trace with 32 s ticks (the
// optimum's worst case: 5,850 steps for 52 h).
func preemptionTrace30s(b testing.TB) *Trace {
	p := filepath.Join(shareddata.Dir(b), "spot-traces", "preemption", "1-node", "aws-04-22-2023", "us-west-2b_v100_1.json")
	tr, err := LoadTrace(p)
	if err != nil {
		b.Skip(err)
	}
	return tr
}

// benchGrids are the optimum's grids of a 48 h job with a 52 h deadline
// (0.2 h restart and start-up) on a trace from 10 on-grid offsets.
func benchGrids(tr *Trace) []*grid {
	job := Job{Work: 48, Deadline: 52, Nodes: 1, Restart: 0.2, Startup: 0.2, SpotPrice: 0.918, ODPrice: 3.06}
	rng := rand.New(rand.NewPCG(15, 6))
	var gs []*grid
	for range 10 {
		gs = append(gs, gridFor(job, tr, tr.GapSeconds/3600*float64(rng.IntN(len(tr.Data)))))
	}
	return gs
}

// BenchmarkOptimal30s is the optimum of one run of the 48 h job on a 32 s-tick
// preemption trace (issue 15: 86 ms a run before the lag-space optimum).
func BenchmarkOptimal30s(b *testing.B) {
	gs := benchGrids(preemptionTrace30s(b))
	i := 0
	for b.Loop() {
		gs[i%len(gs)].optimum()
		i++
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/run")
}

// BenchmarkOptimal30sReference is the same with the reference dynamic programme.
func BenchmarkOptimal30sReference(b *testing.B) {
	gs := benchGrids(preemptionTrace30s(b))
	i := 0
	for b.Loop() {
		referenceOptimum(gs[i%len(gs)])
		i++
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/run")
}

// BenchmarkAllTraces is the sweep: every shared trace × 300 offsets ×
// every policy and the optimum, through SimulateMany on GOMAXPROCS workers
// (issue 15: ≤ 30 s). It takes seconds an iteration, so it runs only with
// -validate (go test -run '^$' -bench AllTraces -benchtime 1x -validate),
// and skips without ../shared/data/spot-traces.
func BenchmarkAllTraces(b *testing.B) {
	if !*validate {
		b.Skip("the whole sweep runs with -validate")
	}
	paths := sharedTraces(b)
	pols, _ := Policies([]string{"all", "optimal"}, ASGMix{})
	job := Job{Work: 48, Deadline: 52, Nodes: 1, Restart: 0.2, Startup: 0.2, SpotPrice: 0.918, ODPrice: 3.06}
	var cfgs []Config
	for _, p := range paths {
		tr, err := LoadTrace(p)
		if err != nil {
			b.Fatal(err)
		}
		cfgs = append(cfgs, Config{Job: job, Model: NewReplay(tr), Runs: DefaultOffsetRuns, Seed: 1})
	}
	for b.Loop() {
		t0 := time.Now()
		if _, err := SimulateMany(cfgs, pols, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(t0).Seconds(), "s/sweep")
	}
}
