package spot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Young is Young's first-order optimum checkpoint interval √(2CM).
func Young(c, m float64) float64 { return math.Sqrt(2 * c * m) }

// Daly is Daly's higher-order optimum checkpoint interval (FGCS 2006):
// √(2CM)·[1 + ⅓√(C/2M) + ⅑(C/2M)] − C for C < 2M, else M.
func Daly(c, m float64) float64 {
	if c >= 2*m {
		return m
	}
	x := c / (2 * m)
	return math.Sqrt(2*c*m)*(1+math.Sqrt(x)/3+x/9) - c
}

// CheckpointChoice is a job's automatic checkpoint interval and how it came.
type CheckpointChoice struct {
	Interval      float64 // hours of work between checkpoints; +Inf: none
	Daly          float64 // Daly's optimum for the job's MTBF
	Cost          float64 // the checkpoint cost it used (1 s where the job's is 0)
	CappedBySlack bool    // held to half the deadline's slack
	RaisedToCost  bool    // raised to twice the checkpoint cost
}

// AutoCheckpoint is the one rule for a job's automatic checkpoint interval
// (the spot command's --checkpoint auto, the dashboard's spot risk): Daly's
// optimum for the job's MTBF, capped at half the deadline's slack (with a
// deadline, unsaved work counts as lost when the safety net decides, so a
// longer interval would push deadline-aware policies to on-demand before
// their first checkpoint), and never at or below the checkpoint's own cost
// (then twice it: an interval that short would only write checkpoints).
func AutoCheckpoint(j *Job, mtbf float64) CheckpointChoice {
	if math.IsInf(mtbf, 1) {
		return CheckpointChoice{Interval: math.Inf(1)}
	}
	c := j.CheckpointCost
	if c == 0 {
		c = 1.0 / 3600
	}
	ch := CheckpointChoice{Daly: Daly(c, mtbf), Cost: c}
	ch.Interval = ch.Daly
	if slack := j.latestOnDemand(j.Work); j.Deadline > 0 && slack > 0 && ch.Interval > slack/2 {
		ch.Interval, ch.CappedBySlack = slack/2, true
	}
	if ch.Interval <= c {
		ch.Interval, ch.RaisedToCost = 2*c, true
	}
	return ch
}

// ExpectedSegment is the expected wall time to complete a segment of L hours
// under Poisson interruptions with mean time between them M and restart R
// (no interruption during a restart): (M+R)(e^{L/M}−1).
func ExpectedSegment(l, m, r float64) float64 { return (m + r) * math.Expm1(l/m) }

// Model is an availability model.
type Model interface {
	// source starts a fresh availability history for an n-node job.
	source(rng *rand.Rand, nodes int) source
	// MTBF is the mean time between interruptions of an n-node job, hours (Inf: never).
	MTBF(nodes int) float64
	Describe(nodes int) string
}

// source yields alternating availability runs.
type source interface {
	next() (up bool, hours float64)
	// memoryless sources pause the up-run clock during a restart on spot
	// (equivalent for exponential holding times); traces keep their timeline.
	memoryless() bool
	// spotCost integrates the spot price per node from a to b (hours since the job start); ok=false: constant price.
	spotCost(a, b float64) (float64, bool)
	offset() float64
}

// Hazard is interruptions at a constant hourly rate per instance; after an
// interruption spot is unavailable for an exponential time with mean Down (0: at once).
type Hazard struct {
	PerHour float64
	Down    float64
	Origin  string // how the rate was obtained, for explanations
}

func (h Hazard) MTBF(nodes int) float64 {
	if h.PerHour <= 0 {
		return math.Inf(1)
	}
	return 1 / (h.PerHour * float64(nodes))
}

func (h Hazard) Describe(nodes int) string {
	s := fmt.Sprintf("Poisson interruptions at %.3g/h per instance (%s)", h.PerHour, h.Origin)
	if nodes > 1 {
		s += fmt.Sprintf(", %.3g/h for all %d nodes", h.PerHour*float64(nodes), nodes)
	}
	if h.Down > 0 {
		s += fmt.Sprintf(", spot unavailable for %.2f h on average after each", h.Down)
	}
	return s
}

func (h Hazard) source(rng *rand.Rand, nodes int) source {
	return &expSource{rng: rng, meanUp: h.MTBF(nodes), meanDown: h.Down, up: false}
}

// TwoState is an up/down model with exponential holding times (fitted from a trace).
type TwoState struct {
	MeanUp, MeanDown float64
	Origin           string
}

func (m TwoState) MTBF(int) float64 { return m.MeanUp }

func (m TwoState) Describe(int) string {
	return fmt.Sprintf("two-state model: up %.2f h, down %.2f h on average (%s)", m.MeanUp, m.MeanDown, m.Origin)
}

func (m TwoState) source(rng *rand.Rand, _ int) source {
	// Start in the stationary distribution.
	startUp := rng.Float64() < m.MeanUp/(m.MeanUp+m.MeanDown)
	return &expSource{rng: rng, meanUp: m.MeanUp, meanDown: m.MeanDown, up: !startUp}
}

type expSource struct {
	rng              *rand.Rand
	meanUp, meanDown float64
	up               bool // state of the previous run
}

func (s *expSource) next() (bool, float64) {
	if s.up && s.meanDown > 0 {
		s.up = false
		return false, s.rng.ExpFloat64() * s.meanDown
	}
	s.up = true
	if math.IsInf(s.meanUp, 1) {
		return true, math.Inf(1)
	}
	return true, s.rng.ExpFloat64() * s.meanUp
}

func (s *expSource) memoryless() bool                      { return true }
func (s *expSource) spotCost(a, b float64) (float64, bool) { return 0, false }
func (s *expSource) offset() float64                       { return 0 }

// Replay replays a trace from a random start offset, wrapping at its end; an
// n-node job sees spot up while data >= n.
type Replay struct {
	Trace *Trace
	runs  map[int]*Runs
}

// NewReplay prepares a trace for replay.
func NewReplay(t *Trace) *Replay { return &Replay{Trace: t, runs: map[int]*Runs{}} }

func (r *Replay) runsFor(nodes int) *Runs {
	if x, ok := r.runs[nodes]; ok {
		return x
	}
	x := r.Trace.RunsFor(nodes)
	r.runs[nodes] = x
	return x
}

func (r *Replay) MTBF(nodes int) float64 {
	up, _ := r.runsFor(nodes).Fit()
	if up == 0 {
		return math.Inf(1)
	}
	return up
}

func (r *Replay) Describe(nodes int) string {
	runs := r.runsFor(nodes)
	up, down := runs.Fit()
	return fmt.Sprintf("replay of %s (%.1f days, %.0f s ticks, spot up %.0f%% of the time for %d node(s), up-runs %.2f h, down-runs %.2f h on average)",
		r.Trace.Name, r.Trace.Hours()/24, r.Trace.GapSeconds, 100*runs.UpFraction(), nodes, up, down)
}

func (r *Replay) source(rng *rand.Rand, nodes int) source {
	runs := r.runsFor(nodes)
	return r.sourceAt(runs, rng.Float64()*runs.Total)
}

func (r *Replay) sourceAt(runs *Runs, off float64) *traceSource {
	ts := new(traceSource)
	ts.start(runs, off)
	return ts
}

// start replays runs from offset off.
func (s *traceSource) start(runs *Runs, off float64) {
	// The last run starting at or before off (runs start in order): a binary
	// search, since every simulated run starts at its own offset.
	i := max(0, sort.Search(len(runs.Start), func(k int) bool { return runs.Start[k] > off })-1)
	*s = traceSource{runs: runs, i: i, into: off - runs.Start[i], off: off}
}

type traceSource struct {
	runs *Runs
	i    int
	into float64 // hours already elapsed in run i at the start
	off  float64
}

func (s *traceSource) next() (bool, float64) {
	up, l := s.runs.Up[s.i], s.runs.Len[s.i]-s.into
	s.into = 0
	s.i = (s.i + 1) % len(s.runs.Up)
	// Merge across the wrap when the last and first runs have the same state.
	for s.i < len(s.runs.Up) && s.i == 0 && s.runs.Up[0] == up && len(s.runs.Up) > 1 {
		l += s.runs.Len[0]
		s.i = 1
	}
	if len(s.runs.Up) == 1 {
		return up, math.Inf(1)
	}
	return up, l
}

func (s *traceSource) memoryless() bool { return false }

func (s *traceSource) spotCost(a, b float64) (float64, bool) {
	if s.runs.prices == nil {
		return 0, false
	}
	return s.runs.prices.at(s.off+b) - s.runs.prices.at(s.off+a), true
}

func (s *traceSource) offset() float64 { return s.off }
