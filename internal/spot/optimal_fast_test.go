package spot

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

var optimumAll = flag.Bool("optimum-all", false, "check the fast optimum against the reference on every shared trace (slow: about a minute)")

// sameOptimum compares the fast optimum with the reference on one grid:
// equal costs (within 1e-9 relative) and equal finishing steps.
func sameOptimum(t *testing.T, what string, g *grid) {
	t.Helper()
	gotC, gotAt := g.optimum()
	wantC, wantAt := referenceOptimum(g)
	if math.IsInf(wantC, 1) != math.IsInf(gotC, 1) || (!math.IsInf(wantC, 1) && math.Abs(gotC-wantC) > 1e-9*math.Max(1, math.Abs(wantC))) {
		t.Errorf("%s: optimum %.12g, reference %.12g", what, gotC, wantC)
		return
	}
	if gotAt != wantAt {
		t.Errorf("%s: optimum %.12g done at step %d, reference at step %d", what, gotC, gotAt, wantAt)
	}
}

// optJobs are job shapes for the equality checks, in grid steps of the
// trace's tick: work, deadline, restart, start-up; the start-up above the
// restart exercises the first-launch quirk, zero delays the same-step launches.
var optJobs = []struct{ work, deadline, restart, startup int }{
	{40, 52, 3, 3},
	{30, 52, 2, 6},
	{45, 52, 0, 0},
	{20, 40, 6, 1},
	{35, 50, 1, 0},
	{25, 45, 0, 4},
}

// gridFor is the optimum's grid for a job on a trace from an offset.
func gridFor(job Job, tr *Trace, off float64) *grid {
	rp := NewReplay(tr)
	h := tr.GapSeconds / 3600
	return newGrid(&job, defaultRates(&job), rp.sourceAt(rp.runsFor(job.Nodes), off), h)
}

// TestOptimumFastRandom: the fast optimum equals the reference on random
// Markov traces, with and without per-tick prices (some dearer than
// on-demand), for every job shape, on- and off-grid offsets.
func TestOptimumFastRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 4))
	for seed := range 60 {
		tr := &Trace{Name: "markov", GapSeconds: 360, Data: make([]int, 300)}
		up := rng.IntN(2)
		stay := 0.5 + 0.49*rng.Float64()
		for i := range tr.Data {
			if rng.Float64() > stay {
				up = 1 - up
			}
			tr.Data[i] = up
		}
		if seed%2 == 1 {
			tr.Prices = make([]float64, len(tr.Data))
			p := 0.5
			for i := range tr.Prices {
				if rng.IntN(8) == 0 {
					p = 0.2 + 1.2*rng.Float64() // sometimes above on-demand (1)
				}
				tr.Prices[i] = p
			}
		}
		for ji, js := range optJobs {
			h := 0.1
			scale := 0.3 + 0.7*rng.Float64()
			job := Job{Work: float64(max(1, int(float64(js.work)*scale))) * h, Deadline: float64(max(1, int(float64(js.deadline)*scale))) * h,
				Nodes: 1, Restart: float64(js.restart) * h, Startup: float64(js.startup) * h, SpotPrice: 0.3 + 0.5*rng.Float64(), ODPrice: 1}
			job.Deadline = math.Max(job.Deadline, job.Work)
			for range 3 {
				off := h * float64(rng.IntN(len(tr.Data)))
				if rng.IntN(3) == 0 {
					off += h * rng.Float64() // off the grid: blended step prices
				}
				sameOptimum(t, tr.Name+" seed "+itoa(seed)+" job "+itoa(ji), gridFor(job, tr, off))
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// sharedTraces lists the shared Can't Be Late traces (skips when absent).
func sharedTraces(t testing.TB) []string {
	dir := filepath.Join(shareddata.Dir(t), "spot-traces")
	var paths []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".json") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skip("no traces under " + dir)
	}
	return paths
}

// TestOptimumFastTraces: the fast optimum equals the reference on the
// shared traces. By default a short job (a 4 h window) at one offset
// per trace and job shape; with -optimum-all the 48 h job of the validation
// and every job shape scaled to 52 h, at 20 offsets per trace.
func TestOptimumFastTraces(t *testing.T) {
	paths := sharedTraces(t)
	rng := rand.New(rand.NewPCG(15, 5))
	offsets, hours := 1, 4.0
	if *optimumAll {
		offsets, hours = 20, 52
	}
	for _, p := range paths {
		tr, err := LoadTrace(p)
		if err != nil {
			t.Fatal(err)
		}
		for nodes := 1; nodes <= 16; nodes *= 4 {
			if nodes > 1 && !strings.Contains(p, itoa(nodes)+"-node") {
				continue
			}
			h := tr.GapSeconds / 3600
			for ji, js := range optJobs {
				if !*optimumAll && ji%2 == 1 {
					continue
				}
				// The shape's steps become hours of a 52 h (or 10 h) window.
				step := hours / 52
				job := Job{Work: float64(js.work) * step, Deadline: float64(js.deadline) * step, Nodes: nodes,
					Restart: float64(js.restart) * step / 15, Startup: float64(js.startup) * step / 15, SpotPrice: 0.918, ODPrice: 3.06}
				if ji == 0 && *optimumAll {
					job.Work, job.Deadline, job.Restart, job.Startup = 48, 52, 0.2, 0.2
				}
				for range offsets {
					off := h * float64(rng.IntN(len(tr.Data)))
					if rng.IntN(4) == 0 {
						off += h * rng.Float64()
					}
					sameOptimum(t, filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p)+" job "+itoa(ji), gridFor(job, tr, off))
				}
			}
		}
	}
}

// TestOptimumFastModels: the fast optimum equals the reference on the
// 0.1 h grid of paths drawn from random models (Poisson with down times,
// two-state), with random delays and slack.
func TestOptimumFastModels(t *testing.T) {
	for seed := range 120 {
		rng := rand.New(rand.NewPCG(uint64(seed), 77))
		job := Job{Work: 10 + 30*rng.Float64(), Nodes: 1, Restart: 0.1 * float64(rng.IntN(5)), Startup: 0.1 * float64(rng.IntN(5)), SpotPrice: 0.3 + rng.Float64(), ODPrice: 1}
		job.Deadline = job.Work + job.Startup + 8*rng.Float64()
		var m Model = Hazard{PerHour: 0.05 + rng.Float64(), Down: rng.Float64()}
		if seed%2 == 1 {
			m = TwoState{MeanUp: 0.5 + 5*rng.Float64(), MeanDown: 0.2 + 2*rng.Float64()}
		}
		g := newGrid(&job, defaultRates(&job), m.source(rng, 1), DefaultOptimalStep)
		gc, ga := g.optimum()
		wc, wa := referenceOptimum(g)
		if math.IsInf(gc, 1) != math.IsInf(wc, 1) || (!math.IsInf(wc, 1) && math.Abs(gc-wc) > 1e-9*math.Max(1, wc)) || ga != wa {
			t.Errorf("seed %d: got %v@%d want %v@%d", seed, gc, ga, wc, wa)
		}
	}
}
