package spot

import (
	"errors"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// timeWords is how a BudgetError words the time a simulation takes.
var timeWords = regexp.MustCompile(`(under a second|about \d+ s|about \d+ min|about [\d.]+ h) on \d+ cores`)

// TestEstimateCoversEveryPolicy: a batch is refused before it starts from
// the work of every policy asked for, with its time: the hindsight
// optimum's programme (here 100,000 grid steps a run: some 12 ms each,
// which the availability changes alone put at a few events) and on-demand
// alone (one event a run).
func TestEstimateCoversEveryPolicy(t *testing.T) {
	job := Job{Work: 50, Deadline: 100, Nodes: 1, Restart: 0.1, SpotPrice: 1, ODPrice: 3}
	for _, tc := range []struct {
		name    string
		cfg     Config
		pols    []Policy
		atLeast float64
	}{
		{"optimum", Config{Job: job, Model: Hazard{PerHour: 0.1}, Runs: 100, MaxEvents: 1_000_000}, []Policy{Optimal{Step: 0.001}}, 1e7},
		{"on-demand", Config{Job: job, Model: Hazard{PerHour: 0.1}, Runs: 2000, MaxEvents: 1000}, []Policy{OnDemandOnly{}}, 2000},
	} {
		_, err := Simulate(tc.cfg, tc.pols)
		var be *BudgetError
		if !errors.As(err, &be) || be.Estimate < tc.atLeast || be.Done != 0 {
			t.Errorf("%s: err %v; want a BudgetError estimating at least %.3g events before it starts", tc.name, err, tc.atLeast)
			continue
		}
		if !timeWords.MatchString(err.Error()) || !strings.Contains(err.Error(), "the optimum's programme") {
			t.Errorf("%s: %q: want the time it would take and what was counted", tc.name, err)
		}
		if ev, s, ok := be.Need(); !ok || ev != be.Estimate || s != be.Seconds || !(s > 0) {
			t.Errorf("%s: Need() = %g events, %g s, %v; want the estimate %g and %g s", tc.name, ev, s, ok, be.Estimate, be.Seconds)
		}
	}
	// The optimum's seconds: its 100 runs × 100,000 steps at nsPerOptStep.
	_, err := Simulate(Config{Job: job, Model: Hazard{PerHour: 0.1}, Runs: 100, MaxEvents: 1000}, []Policy{Optimal{Step: 0.001}})
	var be *BudgetError
	if !errors.As(err, &be) || be.Seconds*float64(runtime.GOMAXPROCS(0)) < 0.9*100*1e5*nsPerOptStep*1e-9 {
		t.Errorf("err %v; want about %g s of programme", err, 100*1e5*nsPerOptStep*1e-9)
	}
}

// Millions of short runs take seconds though their events are few: the
// time said counts every run (a refusal of 70 million runs said "under a
// second" for what takes half a minute on this machine).
func TestEstimateCountsEveryRun(t *testing.T) {
	job := Job{Work: 50, Nodes: 1, Restart: 0.1, SpotPrice: 1, ODPrice: 3}
	const runs = 10_000_000
	_, err := Simulate(Config{Job: job, Model: Hazard{PerHour: 1e-4}, Runs: runs, MaxEvents: 1000}, []Policy{SpotOnly{}})
	var be *BudgetError
	if !errors.As(err, &be) || be.Seconds*float64(runtime.GOMAXPROCS(0)) < runs*nsPerRun*1e-9 || strings.Contains(err.Error(), "under a second") {
		t.Errorf("err %v; want at least %g s of CPU for %d runs", err, runs*nsPerRun*1e-9, runs)
	}
}

// TestBudgetNeed: a budget found short on the way carries the pace of the
// runs done to all of them; with no run done the need is unknown.
func TestBudgetNeed(t *testing.T) {
	be := &BudgetError{Budget: 1000, Done: 25, Total: 100, Elapsed: 2 * time.Second}
	if ev, s, ok := be.Need(); !ok || ev != 4000 || s != 8 {
		t.Errorf("Need() = %g, %g, %v; want 4000 events, 8 s", ev, s, ok)
	}
	if _, _, ok := (&BudgetError{Budget: 1000, Total: 100}).Need(); ok {
		t.Error("no run done: the need is known")
	}
	for s, want := range map[float64]string{0.2: "under a second", 12: "about 12 s", 600: "about 10 min", 9000: "about 2.5 h"} {
		if got := About(s); got != want {
			t.Errorf("About(%g) = %q, want %q", s, got, want)
		}
	}
}
