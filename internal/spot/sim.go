package spot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Job is the work to run.
type Job struct {
	Work           float64 // hours of compute on the job's nodes
	Deadline       float64 // hours from the start; 0: none
	Nodes          int     // gang: all are needed at once
	Checkpoint     float64 // hours of work between checkpoints; 0: continuous (nothing lost); +Inf: never
	CheckpointCost float64 // hours to write one checkpoint
	Restart        float64 // changeover delay: hours from (re)starting an instance to making progress
	Startup        float64 // first launch: hours billed before progress (Can't Be Late charges d; 0: none)
	SpotPrice      float64 // per node-hour (the trace's prices replace it where it has them)
	ODPrice        float64 // per node-hour
	// Length, when set, makes the work uncertain: the policies plan on its
	// PlanQuantile, in (0, 1] (which replaces Work), and each run draws its
	// true length from it.
	Length       *Length
	PlanQuantile float64
}

// Mode is what the job runs on.
type Mode int

// Modes.
const (
	Idle Mode = iota
	OnSpot
	OnDemand
)

func (m Mode) String() string { return [...]string{"idle", "spot", "on-demand"}[m] }

// State is what a policy sees when it decides. A run has one zone or
// several; the policies that do not choose zones always run in one.
type State struct {
	T        float64 // hours since the start
	Durable  float64 // work saved (checkpointed, or done on on-demand)
	Pending  float64 // work since the last checkpoint on spot (lost if interrupted)
	Mode     Mode
	SpotUp   bool // spot is available (with several zones: in some zone)
	Job      *Job
	safety   bool // the safety net has fired: on-demand to the end
	overLeft float64
	zone     int       // where the job runs, or where its state lies while idle (-1: not launched yet)
	up       []bool    // spot up now, per zone
	spot     []float64 // spot price per node-hour now, per zone (several zones only)
	od       []float64 // on-demand price per node-hour, per zone
	cfg      *Config   // for the move costs
	why      string    // the reason of the last decision, for --explain
}

// Remaining is the work not yet saved.
func (s *State) Remaining() float64 { return s.Job.Work - s.Durable }

// latestOnDemand is the deadline's rule: the latest time on-demand can
// start and still finish remaining hours of work by the deadline, with room
// for two changeovers.
func (j *Job) latestOnDemand(remaining float64) float64 {
	return j.Deadline - remaining - 2*j.Restart
}

// safetyNet is the one deadline rule of the deadline-aware policies: the
// safety net fires once the latest start of on-demand that still meets the
// deadline, the unsaved work counted as lost, has come (Can't Be Late
// §3.4), and from then on the job runs on on-demand to the end. It returns
// that latest start (a time to decide again before it) and whether the net
// has fired.
func (s *State) safetyNet() (latest float64, fired bool) {
	latest = s.Job.latestOnDemand(s.Remaining())
	if s.safety || s.T >= latest-eps {
		s.safety = true
		return latest, true
	}
	return latest, false
}

// meets reports whether a run that ends after hours meets the job's deadline (or it has none).
func (j *Job) meets(hours float64) bool { return j.Deadline == 0 || hours <= j.Deadline+1e-6 }

// Event is one line of a run's timeline (--explain).
type Event struct {
	T      float64
	What   string
	Detail string
}

// Result is one simulated run.
type Result struct {
	Cost          float64
	Hours         float64 // completion time (Inf: did not finish within the simulation limit)
	Met           bool    // finished by the deadline (or no deadline)
	Interruptions int
	Switches      int     // changes of mode the policy made (idle, spot, on-demand), the first launch included
	Wasted        float64 // work lost to interruptions, hours
	SpotHours     float64
	ODHours       float64
	Moves         int     // moves between zones (several zones only)
	MoveCost      float64 // money the moves cost in transfer
	Events        []Event
}

// rates are what the job pays per hour in each mode.
type rates struct {
	spotNodes        int     // nodes on spot while running on spot (the rest are on-demand)
	idle, spotOD, od float64 // per hour: while idle, the on-demand part while on spot, on on-demand
	spotPerNode      float64
}

func defaultRates(j *Job) rates {
	return rates{spotNodes: j.Nodes, spotOD: 0, od: float64(j.Nodes) * j.ODPrice, spotPerNode: j.SpotPrice}
}

const eps = 1e-9

// maxHours bounds a run that can never finish (spot never up under a spot-only policy).
func (j *Job) maxHours() float64 { return 100*math.Max(j.Work+j.Startup, j.Deadline) + 1000 }

// liveEvery is how many events a run processes between reports of its
// events to the progress counter.
const liveEvery = 1 << 12

// sim is the event loop of one run in one zone or several, all on the same
// wall clock: each zone has its own availability history, and the loop
// steps from event to event (a decision time, an availability change in
// any zone). Launches pay the changeover delay, leaving on purpose saves
// the work in progress, an interruption loses the work since the last
// checkpoint (advance.go), and a launch in another zone than the one
// holding the job's state is a move: it pays the move's transfer money too.
// A sim is reused from run to run (runner.go): start resets it.
type sim struct {
	run               // the run's inputs
	pol     Policy    // what decides
	job     *Job      // the run's job, its true length: &jobv
	jobv    Job       // (kept here: a run allocates no job)
	memless []bool    // a memoryless zone's up-run clock waits while the job restarts on spot there
	left    []float64 // hours left in each zone's current availability run
	rate    []rates   // what the job pays per hour in each zone
	names   []string  // zone names (several zones, with a timeline)
	multi   bool      // several zones: the timeline names them
	s       State
	ckpt    float64 // checkpoint write time left
	res     Result
	first   bool
	planMax *Job // uncertain length: the plan once the job outruns its quantile (maxv)
	maxv    Job
	steps   int64
	exhaust bool
	flushed int64 // events reported to live so far

	pcg rand.PCG    // the run's random stream
	rng *rand.Rand  // over pcg
	ts  traceSource // the first zone's history where it is a trace
}

// start readies m to step its run under policy p.
func (m *sim) start(p Policy) {
	n := len(m.srcs)
	m.pol, m.multi = p, n > 1
	m.jobv = m.plan
	m.jobv.Work = m.work
	m.job = &m.jobv
	m.memless, m.left, m.rate = grow(m.memless, n), grow(m.left, n), grow(m.rate, n)
	m.s = State{Job: &m.plan, zone: -1, cfg: m.cfg, up: grow(m.s.up, n), od: grow(m.s.od, n), spot: m.s.spot[:0]}
	if m.multi {
		m.s.spot = grow(m.s.spot, n)
	}
	for k := range n {
		zj := m.zoneJob(k)
		m.rate[k] = p.rates(&zj)
		m.memless[k] = m.srcs[k].memoryless()
		m.s.od[k] = zj.ODPrice
		if m.multi {
			m.s.spot[k] = zj.SpotPrice
		}
	}
	m.names = nil
	if m.multi && m.trace {
		m.names = m.cfg.zoneNames()
	}
	m.ckpt, m.res, m.first, m.steps, m.exhaust, m.flushed = 0, Result{}, true, 0, false, 0
	m.planMax = nil
	if pl := &m.plan; pl.Length != nil && pl.Length.Max() > pl.Work {
		m.maxv = *pl
		m.maxv.Work = pl.Length.Max()
		m.planMax = &m.maxv
	}
}

// grow is b with n entries, reusing its memory.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

func (m *sim) tracing() bool { return m.trace }

func (m *sim) log(what, format string, a ...any) {
	if m.trace {
		m.res.Events = append(m.res.Events, Event{T: m.s.T, What: what, Detail: fmt.Sprintf(format, a...)})
	}
}

func (m *sim) zoneName(z int) string {
	if z < 0 {
		return "no zone"
	}
	if z < len(m.names) && m.names[z] != "" {
		return m.names[z]
	}
	return fmt.Sprintf("zone %d", z+1)
}

// flush reports the events processed since the last report.
func (m *sim) flush() {
	if m.live != nil && m.steps != m.flushed {
		m.live.Add(m.steps - m.flushed)
		m.flushed = m.steps
	}
}

// paused reports whether zone z's up-run clock waits: a memoryless model
// while the job restarts on spot there (equivalent for exponential holding
// times); traces keep their timeline.
func (m *sim) paused(z int) bool {
	return z == m.s.zone && m.s.Mode == OnSpot && m.memless[z]
}

// prices sets each zone's spot price now, from its trace where it has prices.
func (m *sim) prices() {
	for z, src := range m.srcs {
		if ts, ok := src.(*traceSource); ok && ts.runs.prices != nil {
			c := ts.runs.prices
			x := math.Mod(ts.off+m.s.T, float64(len(c.p))*c.gap)
			m.s.spot[z] = c.p[min(int(x/c.gap), len(c.p)-1)]
		}
	}
}

// loop steps the run from event to event until the job completes, the
// simulation limit passes or the event budget is spent.
func (m *sim) loop() Result {
	j := m.job
	s := &m.s
	for z := range m.srcs {
		s.up[z], m.left[z] = m.srcs[z].next()
	}
	if m.tracing() { // no boxing of the arguments when no one reads the timeline
		m.logStart()
	}
	limit := j.maxHours()
	for ; ; m.steps++ {
		if m.live != nil && m.steps-m.flushed >= liveEvery {
			m.flush()
		}
		if s.Durable >= j.Work-eps {
			break
		}
		if m.steps >= m.budget {
			return m.abandon()
		}
		if s.T > limit {
			m.res.Hours = math.Inf(1)
			if m.tracing() {
				m.log("abandon", "no finish within %.0f h", limit)
			}
			return m.finish()
		}
		if m.planMax != nil && s.Job != m.planMax && s.Durable+s.Pending >= s.Job.Work-eps {
			if m.tracing() {
				m.log("replan", "the planned %.2f h of work is done and the job is not: planning on the longest, %.2f h", s.Job.Work, m.planMax.Work)
			}
			s.Job = m.planMax
		}
		s.SpotUp = s.up[0]
		if m.multi {
			for _, u := range s.up[1:] {
				s.SpotUp = s.SpotUp || u
			}
			m.prices()
			s.why = ""
		}
		want, z, until := m.pol.decide(s)
		if want == OnSpot && !s.up[z] {
			want = Idle
		}
		if want != s.Mode || (want != Idle && z != s.zone) {
			m.switchTo(want, z)
		}
		until = max(until, s.T+eps)
		// Step to the next event: a decision time or an availability change.
		dt := until - s.T
		for k, b := range m.left {
			if m.paused(k) {
				b += s.overLeft // the up-run clock waits during a restart
			}
			dt = min(dt, b)
		}
		if math.IsInf(dt, 1) {
			dt = limit + 1 - s.T
		}
		m.advance(dt)
		if s.Durable >= j.Work-eps {
			break
		}
		for k := range m.left {
			if m.left[k] > eps {
				continue
			}
			if k == s.zone && s.Mode == OnSpot && s.up[k] {
				m.interrupt()
			}
			s.up[k], m.left[k] = m.srcs[k].next()
			if m.tracing() {
				m.logChange(k)
			}
		}
	}
	if m.steps > m.budget { // the checkpoints of its last stretch went past the budget
		return m.abandon()
	}
	m.res.Hours = s.T
	if m.tracing() {
		m.log("done", "work complete")
	}
	return m.finish()
}

// abandon stops a run at its event budget.
func (m *sim) abandon() Result {
	m.exhaust = true
	m.res.Hours = math.Inf(1)
	if m.tracing() {
		m.log("abandon", "event budget of %d spent", m.budget)
	}
	return m.finish()
}

func (m *sim) finish() Result {
	m.res.Met = m.job.meets(m.res.Hours)
	return m.res
}

// logStart records where spot is up as the run starts.
func (m *sim) logStart() {
	s := &m.s
	if !m.multi {
		m.log("start", "spot %s", upDown(s.up[0]))
		return
	}
	var up, down []string
	for z, u := range s.up {
		if u {
			up = append(up, m.zoneName(z))
		} else {
			down = append(down, m.zoneName(z))
		}
	}
	m.log("start", "spot up in %s; down in %s (later changes: the job's zone only)", orNone(up), orNone(down))
}

// logChange records an availability change in zone k: in one zone every
// change, in several the job's zone's.
func (m *sim) logChange(k int) {
	switch {
	case !m.multi:
		m.log("spot", "%s", upDown(m.s.up[k]))
	case k == m.s.zone:
		m.log("spot", "%s in %s", upDown(m.s.up[k]), m.zoneName(k))
	}
}

func upDown(up bool) string {
	if up {
		return "available"
	}
	return "unavailable"
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// switchTo changes mode and zone. Leaving an instance on purpose saves the
// work in progress (a graceful stop); a launch pays the changeover delay
// (the very first one its start-up delay), and a launch in another zone
// than the one holding the job's state is a move: it pays the move's
// transfer money too.
func (m *sim) switchTo(to Mode, z int) {
	s := &m.s
	changeMode(s, m.job, &m.ckpt, &m.first, to)
	if to != Idle && s.zone >= 0 && z != s.zone {
		c := s.cfg.moveCost(s.zone, z)
		m.res.Moves++
		m.res.MoveCost += c
		m.res.Cost += c
		if m.tracing() {
			m.log("move", "%s → %s (%s): %.2f h restart + %.2f transfer", m.zoneName(s.zone), m.zoneName(z), s.why, s.overLeft, c)
		}
	}
	m.res.Switches++
	if m.tracing() {
		if m.multi && to != Idle {
			m.log("switch", "%s → %s in %s", s.Mode, to, m.zoneName(z))
		} else {
			m.log("switch", "%s → %s", s.Mode, to)
		}
	}
	if to != Idle {
		s.zone = z
	}
	s.Mode = to
}

func (m *sim) interrupt() {
	s := &m.s
	m.res.Interruptions++
	m.res.Wasted += s.Pending
	if m.tracing() {
		if m.multi {
			m.log("interrupted", "preempted in %s: lost %.2f h of work since the last checkpoint", m.zoneName(s.zone), s.Pending)
		} else {
			m.log("interrupted", "lost %.2f h of work since the last checkpoint", s.Pending)
		}
	}
	s.Pending, m.ckpt, s.overLeft = 0, 0, 0
	s.Mode = Idle
}

// pay bills dt hours in the current mode and zone from time a.
func (m *sim) pay(a, dt float64) {
	if dt <= 0 {
		return
	}
	z := max(m.s.zone, 0)
	r := &m.rate[z]
	switch m.s.Mode {
	case Idle:
		m.res.Cost += r.idle * dt
	case OnDemand:
		m.res.Cost += r.od * dt
		m.res.ODHours += dt
	case OnSpot:
		c, ok := m.srcs[z].spotCost(a, a+dt)
		if !ok {
			c = r.spotPerNode * dt
		}
		m.res.Cost += float64(r.spotNodes)*c + r.spotOD*dt
		m.res.SpotHours += dt
	}
}

// clock runs the zones' availability clocks by x hours; overhead: x was
// changeover time, during which a memoryless zone the job restarts in waits.
func (m *sim) clock(x float64, overhead bool) {
	for k := range m.left {
		if overhead && m.paused(k) {
			continue
		}
		m.left[k] -= x
	}
}
