package spot

import (
	"testing"
	"time"
)

// withProgressEvery runs f with SimulateMany reporting every d.
func withProgressEvery(d time.Duration, f func()) {
	old := progressEvery
	progressEvery = d
	defer func() { progressEvery = old }()
	f()
}

// TestProgress: while the runs go on, progress reports the runs done, the
// events processed (those of runs still going included) and the time, each
// never less than before, and last every run and every event; a single
// long run shows its events rising before it is done.
func TestProgress(t *testing.T) {
	// One run of 4,000 h of work on spot that is interrupted every 36 s on
	// average: some 800,000 events, tens of milliseconds or more.
	long := Config{Job: Job{Work: 4000, Nodes: 1, SpotPrice: 1, ODPrice: 3}, Model: Hazard{PerHour: 100, Down: 0.001}, Runs: 1, Seed: 1}
	many := Config{Job: Job{Work: 48, Deadline: 52, Nodes: 1, Restart: 0.1, Startup: 0.1, SpotPrice: 1, ODPrice: 3}, Model: Hazard{PerHour: 2, Down: 0.3}, Runs: 3000, Seed: 2}
	for _, tc := range []struct {
		name string
		cfg  Config
		pols []Policy
	}{
		{"one long run", long, []Policy{SpotOnly{}}},
		{"many runs", many, []Policy{Greedy{}, UniformProgress{}, OnDemandOnly{}}},
	} {
		var calls []Progress
		var err error
		withProgressEvery(time.Millisecond, func() {
			_, err = SimulateMany([]Config{tc.cfg}, tc.pols, func(p Progress) { calls = append(calls, p) })
		})
		if err != nil {
			t.Fatal(err)
		}
		// The events one by one, as the budget counts them.
		cfg := tc.cfg.withZones()
		var events int64
		for _, p := range tc.pols {
			for i := range cfg.runs() {
				_, steps, _ := oneRun(&cfg, p, 1, i, DefaultMaxEvents, nil)
				events += steps
			}
		}
		total := len(tc.pols) * tc.cfg.Runs
		last := calls[len(calls)-1]
		if last.Runs != total || last.Total != total || last.Events != events || last.Budget != DefaultMaxEvents {
			t.Errorf("%s: last progress %+v; want %d of %d runs, %d events, budget %d", tc.name, last, total, total, events, int64(DefaultMaxEvents))
		}
		midRun := false
		for i, p := range calls {
			if i > 0 && (p.Runs < calls[i-1].Runs || p.Events < calls[i-1].Events || p.Elapsed < calls[i-1].Elapsed) {
				t.Errorf("%s: progress went back: %+v after %+v", tc.name, p, calls[i-1])
			}
			midRun = midRun || (p.Runs < p.Total && p.Events > 0)
		}
		// Ticks every millisecond: a batch that took 50 of them was seen on its way.
		if last.Elapsed > 50*time.Millisecond && !midRun {
			t.Errorf("%s: %v, %d progress calls, none while runs went on with events counted: %+v", tc.name, last.Elapsed, len(calls), calls)
		}
		t.Logf("%s: %d calls in %v, %d events", tc.name, len(calls), last.Elapsed, last.Events)
	}
}
