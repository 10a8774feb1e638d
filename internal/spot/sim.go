package spot

import (
	"fmt"
	"math"
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

// State is what a policy sees when it decides.
type State struct {
	T        float64 // hours since the start
	Durable  float64 // work saved (checkpointed, or done on on-demand)
	Pending  float64 // work since the last checkpoint on spot (lost if interrupted)
	Mode     Mode
	SpotUp   bool
	Job      *Job
	safety   bool // the safety net has fired: on-demand to the end
	overLeft float64
}

// Remaining is the work not yet saved.
func (s *State) Remaining() float64 { return s.Job.Work - s.Durable }

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

type sim struct {
	job     *Job
	pol     Policy
	src     source
	r       rates
	s       State
	runLeft float64 // hours left in the current availability run
	ckpt    float64 // checkpoint write time left
	res     Result
	trace   bool
	first   bool
	planMax *Job  // uncertain length: the plan once the job outruns its quantile
	steps   int64 // events processed
	budget  int64 // events allowed; exceeded: the run stops with exhausted set
	exhaust bool
}

const eps = 1e-9

// maxHours bounds a run that can never finish (spot never up under a spot-only policy).
func (j *Job) maxHours() float64 { return 100*math.Max(j.Work+j.Startup, j.Deadline) + 1000 }

func (m *sim) tracing() bool { return m.trace }

func (m *sim) log(what, format string, a ...any) {
	if m.trace {
		m.res.Events = append(m.res.Events, Event{T: m.s.T, What: what, Detail: fmt.Sprintf(format, a...)})
	}
}

func (m *sim) nextRun() {
	m.s.SpotUp, m.runLeft = m.src.next()
}

// simulate runs one job under a policy on one availability history,
// processing at most budget events (exhausted: the run was cut short). The
// policy plans on plan (the job, its Work the planned quantile when the
// length is uncertain); the job's true length is work.
func simulate(plan *Job, work float64, pol Policy, src source, trace bool, budget int64) (r Result, steps int64, exhausted bool) {
	tj := *plan
	tj.Work = work
	j := &tj
	m := &sim{job: j, pol: pol, src: src, r: pol.rates(j), trace: trace, first: true, budget: budget}
	m.s.Job = plan
	if plan.Length != nil && plan.Length.Max() > plan.Work {
		pm := *plan
		pm.Work = plan.Length.Max()
		m.planMax = &pm
	}
	if o, ok := pol.(Optimal); ok {
		return runOptimal(j, o, src, trace), 1, false
	}
	if _, ok := pol.(OnDemandOnly); ok {
		// Exactly (start-up + work) × nodes × price: no availability history matters.
		if m.tracing() { // no boxing of the arguments when no one reads the timeline
			m.log("switch", "idle → on-demand")
		}
		h := j.Work + j.Startup
		m.s.T = h
		if m.tracing() { // no boxing of the arguments when no one reads the timeline
			m.log("done", "work complete")
		}
		return Result{Cost: j.ODCost(), Hours: h, Met: j.Deadline == 0 || h <= j.Deadline+1e-6, ODHours: h, Switches: 1, Events: m.res.Events}, 1, false
	}
	r = m.run()
	return r, m.steps, m.exhaust
}

func (m *sim) run() Result {
	j := m.job
	pol := m.pol
	m.nextRun()
	if m.tracing() { // no boxing of the arguments when no one reads the timeline
		m.log("start", "spot %s", upDown(m.s.SpotUp))
	}
	limit := j.maxHours()
	for ; ; m.steps++ {
		if m.s.Durable >= j.Work-eps {
			break
		}
		if m.steps >= m.budget {
			m.exhaust = true
			m.res.Hours = math.Inf(1)
			if m.tracing() { // no boxing of the arguments when no one reads the timeline
				m.log("abandon", "event budget of %d spent", m.budget)
			}
			return m.finish()
		}
		if m.s.T > limit {
			m.res.Hours = math.Inf(1)
			if m.tracing() { // no boxing of the arguments when no one reads the timeline
				m.log("abandon", "no finish within %.0f h", limit)
			}
			return m.finish()
		}
		if m.planMax != nil && m.s.Job != m.planMax && m.s.Durable+m.s.Pending >= m.s.Job.Work-eps {
			if m.tracing() { // no boxing of the arguments when no one reads the timeline
				m.log("replan", "the planned %.2f h of work is done and the job is not: planning on the longest, %.2f h", m.s.Job.Work, m.planMax.Work)
			}
			m.s.Job = m.planMax
		}
		want, until := pol.decide(&m.s)
		if want == OnSpot && !m.s.SpotUp {
			want = Idle
		}
		if want != m.s.Mode {
			m.switchTo(want)
		}
		until = math.Max(until, m.s.T+eps)
		// Step to the next event: a decision time or an availability change.
		budget := m.runLeft
		if m.src.memoryless() && m.s.Mode == OnSpot {
			budget += m.s.overLeft // the up-run clock waits during a restart
		}
		dt := math.Min(until-m.s.T, budget)
		if math.IsInf(dt, 1) {
			dt = limit + 1 - m.s.T
		}
		m.advance(dt)
		if m.s.Durable >= j.Work-eps {
			break
		}
		if m.runLeft <= eps {
			if m.s.Mode == OnSpot && m.s.SpotUp {
				m.interrupt()
			}
			m.nextRun()
			if m.tracing() { // no boxing of the arguments when no one reads the timeline
				m.log("spot", "%s", upDown(m.s.SpotUp))
			}
		}
	}
	m.res.Hours = m.s.T
	if m.tracing() { // no boxing of the arguments when no one reads the timeline
		m.log("done", "work complete")
	}
	return m.finish()
}

func upDown(up bool) string {
	if up {
		return "available"
	}
	return "unavailable"
}

func (m *sim) finish() Result {
	m.res.Met = m.job.Deadline == 0 || m.res.Hours <= m.job.Deadline+1e-6
	return m.res
}

// switchTo changes mode. Leaving spot or on-demand on purpose saves the work
// in progress (a graceful stop); starting an instance costs the changeover
// delay, the very first launch its start-up delay.
func (m *sim) switchTo(to Mode) {
	s := &m.s
	changeMode(s, m.job, &m.ckpt, &m.first, to)
	m.res.Switches++
	if m.tracing() { // no boxing of the arguments when no one reads the timeline
		m.log("switch", "%s → %s", s.Mode, to)
	}
	s.Mode = to
}

func (m *sim) interrupt() {
	s := &m.s
	m.res.Interruptions++
	m.res.Wasted += s.Pending
	if m.tracing() { // no boxing of the arguments when no one reads the timeline
		m.log("interrupted", "lost %.2f h of work since the last checkpoint", s.Pending)
	}
	s.Pending, m.ckpt, s.overLeft = 0, 0, 0
	s.Mode = Idle
}

// pay bills dt hours in the current mode from time a.
func (m *sim) pay(a, dt float64) {
	if dt <= 0 {
		return
	}
	switch m.s.Mode {
	case Idle:
		m.res.Cost += m.r.idle * dt
	case OnDemand:
		m.res.Cost += m.r.od * dt
		m.res.ODHours += dt
	case OnSpot:
		c, ok := m.src.spotCost(a, a+dt)
		if !ok {
			c = m.r.spotPerNode * dt
		}
		m.res.Cost += float64(m.r.spotNodes)*c + m.r.spotOD*dt
		m.res.SpotHours += dt
	}
}

// advance moves time forward by dt (or until the job completes).
func (m *sim) advance(dt float64) { advanceJob(&m.s, m.job, &m.ckpt, dt, m) }

// clock runs the availability clock by x hours; overhead: x was changeover
// time, during which a memoryless source's up-run clock waits on spot.
func (m *sim) clock(x float64, overhead bool) {
	if overhead && m.src.memoryless() && m.s.Mode == OnSpot {
		return
	}
	m.runLeft -= x
}

// changeMode applies what a change of mode to `to` does to the job (one
// zone or several): leaving an instance on purpose saves the work in
// progress (a graceful stop); a launch pays the changeover delay, the very
// first one its start-up delay.
func changeMode(s *State, j *Job, ckpt *float64, first *bool, to Mode) {
	if s.Mode == OnSpot || s.Mode == OnDemand {
		s.Durable += s.Pending
		s.Pending, *ckpt = 0, 0
	}
	s.overLeft = 0
	if to != Idle {
		s.overLeft = j.Restart
		if *first {
			s.overLeft = j.Startup
		}
		*first = false
	}
}

// meter is what advanceJob needs of a simulator (one zone or several):
// billing a stretch in the current mode, its availability clocks, and the
// timeline.
type meter interface {
	pay(a, dt float64)
	clock(x float64, overhead bool)
	log(what, format string, a ...any)
	tracing() bool // whether log records anything: callers skip building its arguments otherwise
}

// advanceJob moves a job forward by dt hours (or until it completes), the
// one place that decides what time on an instance buys: changeover time is
// billed without progress; so is writing a checkpoint, which then saves the
// pending work; work on on-demand, or on spot with continuous checkpoints,
// is durable at once, otherwise pending until the next periodic
// checkpoint (lost if interrupted). Idle time is billed at the idle rate.
func advanceJob(s *State, j *Job, ckpt *float64, dt float64, m meter) {
	for dt > eps {
		t0 := s.T
		if s.Mode == Idle {
			m.pay(t0, dt)
			s.T += dt
			m.clock(dt, false)
			return
		}
		if s.overLeft > 0 { // changeover: billed, no progress
			x := min(dt, s.overLeft)
			m.pay(t0, x)
			s.T += x
			s.overLeft -= x
			dt -= x
			m.clock(x, true)
			continue
		}
		if *ckpt > 0 { // writing a checkpoint: billed, no progress
			x := min(dt, *ckpt)
			m.pay(t0, x)
			s.T += x
			*ckpt -= x
			dt -= x
			m.clock(x, false)
			if *ckpt <= eps {
				*ckpt = 0
				s.Durable += s.Pending
				s.Pending = 0
				if m.tracing() { // no boxing of the arguments when no one reads the timeline
					m.log("checkpoint", "saved: %.2f h of %.2f h done", s.Durable, j.Work)
				}
			}
			continue
		}
		rem := j.Work - s.Durable - s.Pending
		x := min(dt, rem)
		periodic := s.Mode == OnSpot && j.Checkpoint > 0 && !math.IsInf(j.Checkpoint, 1)
		if periodic {
			x = min(x, j.Checkpoint-s.Pending)
		}
		m.pay(t0, x)
		s.T += x
		dt -= x
		m.clock(x, false)
		switch {
		case s.Mode == OnDemand || (s.Mode == OnSpot && j.Checkpoint == 0):
			s.Durable += x // on-demand is never interrupted; continuous checkpoints lose nothing
		default:
			s.Pending += x
		}
		if s.Durable+s.Pending >= j.Work-eps {
			s.Durable += s.Pending
			s.Pending = 0
			return
		}
		if periodic && s.Pending >= j.Checkpoint-eps {
			if j.CheckpointCost > 0 {
				*ckpt = j.CheckpointCost
			} else {
				s.Durable += s.Pending
				s.Pending = 0
			}
		}
	}
}

// Policy decides what to run on.
type Policy interface {
	Name() string
	// decide returns the wanted mode and the time to decide again (Inf: at the next availability change).
	decide(s *State) (Mode, float64)
	rates(j *Job) rates
	// NeedsDeadline policies cannot run without one.
	NeedsDeadline() bool
}

var inf = math.Inf(1)

// OnDemandOnly runs on on-demand capacity throughout.
type OnDemandOnly struct{}

func (OnDemandOnly) Name() string                  { return "on-demand" }
func (OnDemandOnly) decide(*State) (Mode, float64) { return OnDemand, inf }
func (OnDemandOnly) rates(j *Job) rates            { return defaultRates(j) }
func (OnDemandOnly) NeedsDeadline() bool           { return false }

// SpotOnly runs on spot and waits while it is unavailable, restarting from the last checkpoint.
type SpotOnly struct{}

func (SpotOnly) Name() string        { return "spot" }
func (SpotOnly) rates(j *Job) rates  { return defaultRates(j) }
func (SpotOnly) NeedsDeadline() bool { return false }
func (SpotOnly) decide(s *State) (Mode, float64) {
	if s.SpotUp {
		return OnSpot, inf
	}
	return Idle, inf
}

// Fallback runs on spot when available and on on-demand otherwise, returning
// to spot when it comes back (Karpenter-style).
type Fallback struct{}

func (Fallback) Name() string        { return "fallback" }
func (Fallback) rates(j *Job) rates  { return defaultRates(j) }
func (Fallback) NeedsDeadline() bool { return false }
func (Fallback) decide(s *State) (Mode, float64) {
	if s.SpotUp {
		return OnSpot, inf
	}
	return OnDemand, inf
}

// ASGMix is an Auto Scaling group mix: OnDemandBase nodes on on-demand, then
// OnDemandPercent of the rest; the others are spot, replaced after an
// interruption when spot is available again. The gang job waits meanwhile,
// its on-demand nodes still billed. There is no deadline logic: Auto Scaling
// keeps the split fixed and does not substitute on-demand for lost spot.
type ASGMix struct {
	OnDemandBase    int
	OnDemandPercent float64 // 0..100
}

func (a ASGMix) Name() string        { return "asg-mix" }
func (a ASGMix) NeedsDeadline() bool { return false }

// Split returns the on-demand and spot node counts for n nodes.
func (a ASGMix) Split(n int) (od, sp int) {
	od = a.OnDemandBase
	if od > n {
		od = n
	}
	od += int(math.Ceil(float64(n-od) * a.OnDemandPercent / 100))
	if od > n {
		od = n
	}
	return od, n - od
}

func (a ASGMix) rates(j *Job) rates {
	od, sp := a.Split(j.Nodes)
	return rates{spotNodes: sp, idle: float64(od) * j.ODPrice, spotOD: float64(od) * j.ODPrice, od: float64(j.Nodes) * j.ODPrice, spotPerNode: j.SpotPrice}
}

func (a ASGMix) decide(s *State) (Mode, float64) {
	if _, sp := a.Split(s.Job.Nodes); sp == 0 {
		return OnDemand, inf
	}
	if s.SpotUp {
		return OnSpot, inf
	}
	return Idle, inf
}

// safetyTime is when the safety net must fire: the latest start of on-demand
// that still meets the deadline, with room for two changeovers and assuming
// the unsaved work is lost.
func safetyTime(s *State) float64 {
	return s.Job.Deadline - s.Remaining() - 2*s.Job.Restart
}

// Greedy uses spot whenever available and waits otherwise, until the safety
// net moves it to on-demand for good (Can't Be Late §3.4).
type Greedy struct{}

func (Greedy) Name() string        { return "greedy" }
func (Greedy) rates(j *Job) rates  { return defaultRates(j) }
func (Greedy) NeedsDeadline() bool { return true }
func (Greedy) decide(s *State) (Mode, float64) {
	ts := safetyTime(s)
	if s.safety || s.T >= ts-eps {
		s.safety = true
		return OnDemand, inf
	}
	if s.SpotUp {
		return OnSpot, ts
	}
	return Idle, ts
}

// UniformProgress is the Can't Be Late policy (Wu et al., NSDI '24, §5.2),
// with the expected progress ep(t) = t·W/D and the work done cp(t):
//   - Taking Risks: from idle, take spot whenever it is available; once on
//     spot, stay until it is preempted (Exploitation);
//   - Uniform Progress: idle and behind (cp(t) < ep(t)) while spot is
//     unavailable: go to on-demand;
//   - Hysteresis: once on on-demand, stay there, even when spot returns,
//     until cp(t) >= ep(t+2d), d the changeover delay; and while spot is
//     unavailable stay on on-demand rather than going idle (as the reference
//     simulator does: leaving on-demand is only ever for spot);
//   - Safety Net: on-demand to the end once the deadline leaves no room for
//     two more changeovers.
type UniformProgress struct{}

// Name implements Policy.
func (UniformProgress) Name() string        { return "uniform-progress" }
func (UniformProgress) rates(j *Job) rates  { return defaultRates(j) }
func (UniformProgress) NeedsDeadline() bool { return true }
func (UniformProgress) decide(s *State) (Mode, float64) {
	j := s.Job
	ts := safetyTime(s)
	if s.safety || s.T >= ts-eps {
		s.safety = true
		return OnDemand, inf
	}
	f := j.Work / j.Deadline
	cp := s.Durable + s.Pending
	switch {
	case s.Mode == OnDemand && !s.SpotUp:
		return OnDemand, inf
	case s.Mode == OnDemand:
		// Stay until cp(t') >= ep(t'+2d): cp grows at rate 1 once the
		// changeover in progress (overLeft) is over.
		if f >= 1 {
			return OnDemand, inf
		}
		catch := (2*j.Restart*f - cp + s.T + s.overLeft) / (1 - f)
		if s.T < catch-eps {
			return OnDemand, math.Min(catch, ts)
		}
		return OnSpot, ts
	case s.SpotUp:
		return OnSpot, ts
	case cp <= s.T*f+eps:
		return OnDemand, inf
	}
	return Idle, math.Min(cp/f, ts)
}

// UniformProgressLite is gpuscout's earlier, looser reading of Uniform
// Progress: it leaves on-demand for spot as soon as spot returns (the
// hysteresis applies only while spot is unavailable) and drops from
// on-demand to idle once ahead of the progress line. Its risk: on short-lived
// spot it switches many times a run, each switch paying the changeover
// delay, and costs more than on-demand alone far more often.
type UniformProgressLite struct{}

// Name implements Policy.
func (UniformProgressLite) Name() string        { return "uniform-progress-lite" }
func (UniformProgressLite) rates(j *Job) rates  { return defaultRates(j) }
func (UniformProgressLite) NeedsDeadline() bool { return true }
func (UniformProgressLite) decide(s *State) (Mode, float64) {
	j := s.Job
	ts := safetyTime(s)
	if s.safety || s.T >= ts-eps {
		s.safety = true
		return OnDemand, inf
	}
	if s.SpotUp {
		return OnSpot, ts
	}
	f := j.Work / j.Deadline
	cp := s.Durable + s.Pending
	if s.Mode == OnDemand && f < 1 {
		// Stay until cp(t') >= ep(t'+2d); cp grows at rate 1 on on-demand.
		catch := (2*j.Restart*f - cp + s.T) / (1 - f)
		if s.T < catch-eps {
			return OnDemand, math.Min(catch, ts)
		}
	}
	// Idle while ahead of the expected progress; on-demand once it catches up.
	if cp <= s.T*f+eps {
		return OnDemand, ts
	}
	return Idle, math.Min(cp/f, ts)
}
