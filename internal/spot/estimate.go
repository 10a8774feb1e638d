package spot

import (
	"fmt"
	"math"
	"runtime"
	"time"
)

// What simulating costs, nanoseconds, measured on the 2-core development
// box (BenchmarkPaperReplay, BenchmarkOptimal30s, BenchmarkZones9 and the
// like). The event budget counts events of the event loop; an optimum's
// programme counts as the events that take as long.
const (
	// nsPerEvent is one event of the event loop (30-70 ns measured): the
	// budget's unit.
	nsPerEvent = 50
	// nsPerChange is an availability change during a stepped run, with the
	// decisions it brings (40-450 ns measured, by policy and trace).
	nsPerChange = 120
	// nsPerCheckpoint is a checkpoint: one step of a cycle where events
	// are closer than checkpoints, far less within a stretch of whole
	// cycles taken in closed form.
	nsPerCheckpoint = 1
	// nsPerOptStep is a grid step of the one-zone optimum (lag space;
	// 90-120 ns measured on 32 s to 600 s ticks).
	nsPerOptStep = 120
	// nsPerZoneState is a state of a cell (step × progress) of the
	// several-zone optimum, for z zones 1 + 3z states and the launches
	// into each zone: z more where every move costs the same (4-15 ns
	// measured), z² more where moves differ (7-11 ns).
	nsPerZoneState       = 6
	nsPerZoneStateMoving = 8
	// nsPerRun is what every run costs beside its events: starting it,
	// its generator, its result and its share of the summary (0.8-0.9 us
	// measured: 400,000 runs of each of the 7 policies on a band's hazard
	// in 2.2 s of CPU). Time only: the budget counts events.
	nsPerRun = 900
)

// perRun is nsPerRun as work: time, no events.
var perRun = work{seconds: nsPerRun * 1e-9}

// work is an estimate of simulating: the events the budget counts and the
// CPU time they take.
type work struct{ events, seconds float64 }

func (w work) plus(x work) work     { return work{w.events + x.events, w.seconds + x.seconds} }
func (w work) times(k float64) work { return work{w.events * k, w.seconds * k} }

// wall is the time on this machine's cores (GOMAXPROCS workers).
func (w work) wall() float64 { return w.seconds / float64(runtime.GOMAXPROCS(0)) }

// workOf is ns nanoseconds of a programme as work: the events that take as long.
func workOf(ns float64) work { return work{events: ns / nsPerEvent, seconds: ns * 1e-9} }

// eventsOf is ns nanoseconds of a programme as the events it counts against the budget.
func eventsOf(ns float64) int64 { return int64(math.Ceil(ns / nsPerEvent)) }

// longest is the job as estimates see it: planned on its longest length.
func (j *Job) longest() Job {
	p := j.planned()
	if j.Length != nil {
		p.Work = j.Length.Max()
	}
	return p
}

// loopWork is roughly the work of one run that the event loop steps in the
// first zones zones: the checkpoints over the job's work (the longest, for
// an uncertain length) and the availability changes of those zones
// meanwhile, nodes the gang on spot.
func (c *Config) loopWork(nodes, zones int) work {
	j := c.Job.longest()
	var ckpts, changes float64
	if j.Checkpoint > 0 && !math.IsInf(j.Checkpoint, 1) {
		ckpts = j.Work / j.Checkpoint
	}
	for _, z := range c.Zones[:zones] {
		switch m := z.Model.(type) {
		case *Replay:
			r := m.runsFor(nodes)
			changes += j.Work * float64(len(r.Up)) / r.Total
		default:
			if mtbf := m.MTBF(nodes); mtbf > 0 && !math.IsInf(mtbf, 1) {
				changes += j.Work / mtbf
			}
		}
	}
	return work{events: ckpts + changes, seconds: (ckpts*nsPerCheckpoint + changes*nsPerChange) * 1e-9}
}

// BudgetError is returned when a simulation would process more events than
// its budget allows: either estimated before it starts (Estimate > 0) or
// found on the way.
type BudgetError struct {
	Budget   int64         // events allowed
	Estimate float64       // events expected, when refused before starting
	Seconds  float64       // the time those would take on this machine's cores, when refused before starting
	Elapsed  time.Duration // found on the way: the time it ran
	Done     int           // runs finished before the budget ran out
	Total    int           // runs asked for, all policies together
	Policy   string        // the policy whose run was cut short
}

func (e *BudgetError) Error() string {
	if e.Estimate > 0 {
		return fmt.Sprintf("the simulation would take about %.3g events over %d runs (checkpoints and availability changes; the optimum's programme as the events that take as long), %s on %d cores, above its budget of %d",
			e.Estimate, e.Total, About(e.Seconds), runtime.GOMAXPROCS(0), e.Budget)
	}
	return fmt.Sprintf("the simulation stopped at its budget of %d events with %d of %d runs done (%s)", e.Budget, e.Done, e.Total, e.Policy)
}

// Need is about the events the whole simulation takes, and the seconds:
// the estimate when it was refused before starting, else the pace of the
// runs done so far carried to all of them (ok false: no run was done, so
// the need is unknown beyond the budget).
func (e *BudgetError) Need() (events, seconds float64, ok bool) {
	if e.Estimate > 0 {
		return e.Estimate, e.Seconds, true
	}
	if e.Done == 0 {
		return 0, 0, false
	}
	k := float64(e.Total) / float64(e.Done)
	return float64(e.Budget) * k, e.Elapsed.Seconds() * k, true
}

// About words a duration in seconds as a rough time: "about 40 s".
func About(seconds float64) string {
	switch {
	case seconds < 1:
		return "under a second"
	case seconds < 90:
		return fmt.Sprintf("about %.0f s", seconds)
	case seconds < 90*60:
		return fmt.Sprintf("about %.0f min", seconds/60)
	}
	return fmt.Sprintf("about %.1f h", seconds/3600)
}
