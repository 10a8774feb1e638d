package spot

import "math"

// changeMode applies what a change of mode to `to` does to the job:
// leaving an instance on purpose saves the work in progress (a graceful
// stop); a launch pays the changeover delay, the very first one its
// start-up delay.
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

// periodic reports whether the job, in mode, writes checkpoints every
// Checkpoint hours of work (on spot, with a finite interval).
func (j *Job) periodic(mode Mode) bool {
	return mode == OnSpot && j.Checkpoint > 0 && !math.IsInf(j.Checkpoint, 1)
}

// advance moves the job forward by dt hours (or until it completes), the
// one place that decides what time on an instance buys: changeover time is
// billed without progress; so is writing a checkpoint, which then saves the
// pending work; work on on-demand, or on spot with continuous checkpoints,
// is durable at once, otherwise pending until the next periodic
// checkpoint (lost if interrupted). Idle time is billed at the idle rate.
//
// Between two events nothing interrupts the job, so a stretch of whole
// checkpoint cycles (work one interval, write one checkpoint) is taken in
// one step: its time, its bill and its saved work in closed form, however
// short the interval. Each checkpoint written counts as an event.
func (m *sim) advance(dt float64) {
	s, j := &m.s, m.job
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
		if m.ckpt > 0 { // writing a checkpoint: billed, no progress
			x := min(dt, m.ckpt)
			m.pay(t0, x)
			s.T += x
			m.ckpt -= x
			dt -= x
			m.clock(x, false)
			if m.ckpt <= eps {
				m.ckpt = 0
				s.Durable += s.Pending
				s.Pending = 0
				m.steps++
				if m.tracing() { // no boxing of the arguments when no one reads the timeline
					m.log("checkpoint", "saved: %.2f h of %.2f h done", s.Durable, j.Work)
				}
			}
			continue
		}
		periodic := j.periodic(s.Mode)
		if periodic && s.Pending == 0 {
			if dt = m.cycles(dt); dt <= eps {
				return
			}
		}
		rem := j.Work - s.Durable - s.Pending
		x := min(dt, rem)
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
				m.ckpt = j.CheckpointCost
			} else {
				s.Durable += s.Pending
				s.Pending = 0
				m.steps++
				if m.tracing() {
					m.log("checkpoint", "saved: %.2f h of %.2f h done", s.Durable, j.Work)
				}
			}
		}
	}
}

// cycles takes, at a checkpoint (nothing pending, no write under way), the
// whole checkpoint cycles that fit in dt hours and leave more than one
// interval of work to do, in one step, and returns the time left. It stops
// a cycle short of either bound, so that the job's last cycle and the
// event's remainder are stepped as before.
func (m *sim) cycles(dt float64) float64 {
	s, j := &m.s, m.job
	tau := j.Checkpoint
	cycle := tau + j.CheckpointCost
	k := min(math.Floor(dt/cycle), math.Floor((j.Work-s.Durable)/tau)) - 1
	if k < 1 {
		return dt
	}
	x := k * cycle
	t0 := s.T
	m.pay(t0, x)
	s.T += x
	m.clock(x, false)
	d0 := s.Durable
	s.Durable += k * tau
	n := int64(k)
	m.steps += n
	if m.tracing() {
		for i := int64(1); i <= n; i++ {
			s.T = t0 + float64(i)*cycle
			m.log("checkpoint", "saved: %.2f h of %.2f h done", d0+float64(i)*tau, j.Work)
		}
		s.T = t0 + x
	}
	return dt - x
}
