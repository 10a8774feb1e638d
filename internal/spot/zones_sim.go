package spot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// zsim simulates one run of a multi-zone policy: the single-zone simulator's
// rules (sim.go: launches pay the restart delay, leaving on purpose saves the
// work in progress, an interruption loses the work since the last
// checkpoint), with one availability history per zone, all on the same wall
// clock, and moves: a launch in another zone than the one holding the job's
// state pays the move's transfer money (Config.MoveCost) besides the delay.
// It is kept apart from sim so that the single-zone loop stays as fast.
type zsim struct {
	cfg     *Config
	job     *Job
	pol     zonePolicy
	srcs    []source
	left    []float64 // hours left in each zone's current availability run
	names   []string
	s       zoneState
	ckpt    float64
	res     Result
	trace   bool
	first   bool
	planMax *Job
	steps   int64
	budget  int64
	exhaust bool
}

// zoneStream and offsetStream separate the random streams of the zones
// after the first (the first uses the run's own, as with one zone) and of a
// shared trace offset drawn when the first zone is not a trace.
const (
	zoneStream   = 0x7a6f6e65
	offsetStream = 0x6f6666736574
)

// zoneSources starts run i's availability history in every zone: traces
// from the same start offset (they are paired by time), models each from
// its own random stream.
func zoneSources(cfg *Config, rng *rand.Rand, nodes, i int) []source {
	srcs := make([]source, len(cfg.Zones))
	off := -1.0
	if len(cfg.Offsets) > 0 {
		off = cfg.Offsets[i%len(cfg.Offsets)]
	}
	for k := range cfg.Zones {
		m := cfg.Zones[k].Model
		rp, replay := m.(*Replay)
		switch {
		case replay && off >= 0:
			srcs[k] = rp.sourceAt(rp.runsFor(nodes), off)
		case replay && k == 0:
			ts := rp.source(rng, nodes).(*traceSource)
			srcs[k], off = ts, ts.off
		case replay:
			runs := rp.runsFor(nodes)
			off = rand.New(rand.NewPCG(cfg.Seed^offsetStream, uint64(i))).Float64() * runs.Total
			srcs[k] = rp.sourceAt(runs, off)
		case k == 0:
			srcs[k] = m.source(rng, nodes)
		default:
			srcs[k] = m.source(rand.New(rand.NewPCG(cfg.Seed^(zoneStream*uint64(k)), uint64(i))), nodes)
		}
	}
	return srcs
}

// simulateZone runs one job under a multi-zone policy; as simulate.
func simulateZone(cfg *Config, plan *Job, work float64, pol zonePolicy, srcs []source, names []string, trace bool, budget int64) (Result, int64, bool) {
	tj := *plan
	tj.Work = work
	n := len(cfg.Zones)
	m := &zsim{cfg: cfg, job: &tj, pol: pol, srcs: srcs, left: make([]float64, n), names: names, trace: trace, first: true, budget: budget}
	m.s.Job = plan
	m.s.zone = -1
	m.s.cfg = cfg
	m.s.up = make([]bool, n)
	m.s.spot = make([]float64, n)
	m.s.od = make([]float64, n)
	for z := range cfg.Zones {
		m.s.spot[z] = cfg.Zones[z].spotPrice(plan)
		m.s.od[z] = cfg.Zones[z].odPrice(plan)
	}
	if plan.Length != nil && plan.Length.Max() > plan.Work {
		pm := *plan
		pm.Work = plan.Length.Max()
		m.planMax = &pm
	}
	r := m.run()
	return r, m.steps, m.exhaust
}

func (m *zsim) tracing() bool { return m.trace }

func (m *zsim) log(what, format string, a ...any) {
	if m.trace {
		m.res.Events = append(m.res.Events, Event{T: m.s.T, What: what, Detail: fmt.Sprintf(format, a...)})
	}
}

func (m *zsim) zoneName(z int) string {
	if z < 0 {
		return "no zone"
	}
	if z < len(m.names) && m.names[z] != "" {
		return m.names[z]
	}
	return fmt.Sprintf("zone %d", z+1)
}

// paused reports whether zone z's up-run clock waits: a memoryless model
// while the job restarts on spot there (as in sim).
func (m *zsim) paused(z int) bool {
	return z == m.s.zone && m.s.Mode == OnSpot && m.srcs[z].memoryless()
}

// prices sets each zone's spot price now, from its trace where it has prices.
func (m *zsim) prices() {
	for z, src := range m.srcs {
		if ts, ok := src.(*traceSource); ok && ts.runs.prices != nil {
			c := ts.runs.prices
			x := math.Mod(ts.off+m.s.T, float64(len(c.p))*c.gap)
			m.s.spot[z] = c.p[min(int(x/c.gap), len(c.p)-1)]
		}
	}
}

func (m *zsim) run() Result {
	j := m.job
	s := &m.s
	for z := range m.srcs {
		s.up[z], m.left[z] = m.srcs[z].next()
	}
	if m.trace {
		var up, down []string
		for z, u := range s.up {
			if u {
				up = append(up, m.zoneName(z))
			} else {
				down = append(down, m.zoneName(z))
			}
		}
		if m.tracing() { // no boxing of the arguments when no one reads the timeline
			m.log("start", "spot up in %s; down in %s (later changes: the job's zone only)", orNone(up), orNone(down))
		}
	}
	limit := j.maxHours()
	for ; ; m.steps++ {
		if s.Durable >= j.Work-eps {
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
		if s.T > limit {
			m.res.Hours = math.Inf(1)
			if m.tracing() { // no boxing of the arguments when no one reads the timeline
				m.log("abandon", "no finish within %.0f h", limit)
			}
			return m.finish()
		}
		if m.planMax != nil && s.Job != m.planMax && s.Durable+s.Pending >= s.Job.Work-eps {
			if m.tracing() { // no boxing of the arguments when no one reads the timeline
				m.log("replan", "the planned %.2f h of work is done and the job is not: planning on the longest, %.2f h", s.Job.Work, m.planMax.Work)
			}
			s.Job = m.planMax
		}
		s.SpotUp = false
		for _, u := range s.up {
			s.SpotUp = s.SpotUp || u
		}
		m.prices()
		s.why = ""
		want, z, until := m.pol.decideZone(s)
		if want == OnSpot && !s.up[z] {
			want = Idle
		}
		if want != s.Mode || (want != Idle && z != s.zone) {
			m.switchTo(want, z)
		}
		until = math.Max(until, s.T+eps)
		dt := until - s.T
		for k := range m.left {
			b := m.left[k]
			if m.paused(k) {
				b += s.overLeft
			}
			dt = math.Min(dt, b)
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
			if k == s.zone {
				if m.tracing() { // no boxing of the arguments when no one reads the timeline
					m.log("spot", "%s in %s", upDown(s.up[k]), m.zoneName(k))
				}
			}
		}
	}
	m.res.Hours = s.T
	if m.tracing() { // no boxing of the arguments when no one reads the timeline
		m.log("done", "work complete")
	}
	return m.finish()
}

func (m *zsim) finish() Result {
	m.res.Met = m.job.Deadline == 0 || m.res.Hours <= m.job.Deadline+1e-6
	return m.res
}

// switchTo changes mode and zone. Leaving an instance on purpose saves the
// work in progress; a launch pays the changeover delay (the first the
// start-up), and a launch in another zone than the one holding the job's
// state is a move: it pays the move's transfer money too.
func (m *zsim) switchTo(to Mode, z int) {
	s := &m.s
	changeMode(&s.State, m.job, &m.ckpt, &m.first, to)
	if to != Idle {
		if s.zone >= 0 && z != s.zone {
			c := m.cfg.moveCost(s.zone, z)
			m.res.Moves++
			m.res.MoveCost += c
			m.res.Cost += c
			if m.tracing() { // no boxing of the arguments when no one reads the timeline
				m.log("move", "%s → %s (%s): %.2f h restart + %.2f transfer", m.zoneName(s.zone), m.zoneName(z), s.why, s.overLeft, c)
			}
		}
	}
	m.res.Switches++
	from := s.Mode
	if to != Idle {
		if m.tracing() { // no boxing of the arguments when no one reads the timeline
			m.log("switch", "%s → %s in %s", from, to, m.zoneName(z))
		}
		s.zone = z
	} else {
		if m.tracing() { // no boxing of the arguments when no one reads the timeline
			m.log("switch", "%s → %s", from, to)
		}
	}
	s.Mode = to
}

func (m *zsim) interrupt() {
	s := &m.s
	m.res.Interruptions++
	m.res.Wasted += s.Pending
	if m.tracing() { // no boxing of the arguments when no one reads the timeline
		m.log("interrupted", "preempted in %s: lost %.2f h of work since the last checkpoint", m.zoneName(s.zone), s.Pending)
	}
	s.Pending, m.ckpt, s.overLeft = 0, 0, 0
	s.Mode = Idle
}

// pay bills dt hours in the current mode and zone from time a.
func (m *zsim) pay(a, dt float64) {
	if dt <= 0 {
		return
	}
	s := &m.s
	nodes := float64(m.job.Nodes)
	switch s.Mode {
	case OnDemand:
		m.res.Cost += nodes * s.od[s.zone] * dt
		m.res.ODHours += dt
	case OnSpot:
		c, ok := m.srcs[s.zone].spotCost(a, a+dt)
		if !ok {
			c = m.cfg.Zones[s.zone].spotPrice(m.s.Job) * dt
		}
		m.res.Cost += nodes * c
		m.res.SpotHours += dt
	}
}

// clock runs the zones' availability clocks by x hours; overhead: x was
// changeover time, during which a memoryless zone the job restarts in waits.
func (m *zsim) clock(x float64, overhead bool) {
	for k := range m.left {
		if overhead && m.paused(k) {
			continue
		}
		m.left[k] -= x
	}
}

// advance moves time forward by dt (or until the job completes), by the
// single-zone simulator's rules (advanceJob).
func (m *zsim) advance(dt float64) { advanceJob(&m.s.State, m.job, &m.ckpt, dt, m) }

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
