package spot

import "math"

// The multi-zone policies. Each also runs in one zone: there a move is
// never possible, and failover, round-robin and cheapest-first are the
// spot policy (wait for spot to return), failover-deadline is
// uniform-progress: with one zone their runs are those policies' (tested).

// ZonePolicyNames lists the multi-zone policies' names.
func ZonePolicyNames() []string {
	return []string{"failover", "round-robin", "cheapest-first", "failover-deadline"}
}

// zonePolicyByName returns a multi-zone policy (nil: no such name).
func zonePolicyByName(n string) Policy {
	switch n {
	case "failover":
		return Failover{}
	case "round-robin", "rr":
		return RoundRobin{}
	case "cheapest-first", "cheapest":
		return CheapestFirst{}
	case "failover-deadline":
		return FailoverDeadline{}
	}
	return nil
}

// cheapestUp is the zone with spot up now at the lowest spot price (ties:
// the first in order), or -1 when spot is down everywhere.
func (s *State) cheapestUp() int {
	best := -1
	for z, up := range s.up {
		if up && (best < 0 || s.spot[z] < s.spot[best]) {
			best = z
		}
	}
	return best
}

// stays reports whether the job is on spot in a zone where spot is still up.
func (s *State) stays() bool { return s.Mode == OnSpot && s.zone >= 0 && s.up[s.zone] }

// Failover runs on spot; when preempted (or while idle) it moves to the
// zone with spot up now, the cheapest of them (ties: the first in the
// given order), and waits idle while spot is down everywhere.
type Failover struct{ zoned }

// Name implements Policy.
func (Failover) Name() string        { return "failover" }
func (Failover) NeedsDeadline() bool { return false }
func (Failover) decide(s *State) (Mode, int, float64) {
	if s.stays() {
		return OnSpot, s.zone, inf
	}
	if z := s.cheapestUp(); z >= 0 {
		s.why = "spot up, cheapest"
		return OnSpot, z, inf
	}
	return Idle, s.zone, inf
}

// RoundRobin runs on spot; when preempted (or while idle) it takes the
// next zone in the given order, after the one it was in, that has spot up
// (its own zone last); the first launch tries the zones from the first.
type RoundRobin struct{ zoned }

// Name implements Policy.
func (RoundRobin) Name() string        { return "round-robin" }
func (RoundRobin) NeedsDeadline() bool { return false }
func (RoundRobin) decide(s *State) (Mode, int, float64) {
	if s.stays() {
		return OnSpot, s.zone, inf
	}
	n := len(s.up)
	for k := range n {
		if z := (s.zone + 1 + k) % n; s.up[z] {
			s.why = "next in order with spot up"
			return OnSpot, z, inf
		}
	}
	return Idle, s.zone, inf
}

// CheapestFirst always prefers the cheapest zone with spot up: like
// failover when preempted or idle, and while running on spot it also moves
// when a cheaper zone has spot up and the move pays: when the saving over
// the remaining work, (p − p′) × nodes × remaining hours, exceeds the move's
// transfer money plus the restart delay billed in the new zone,
// restart × nodes × p′ (p, p′ the spot prices per node-hour now, here and
// there). Leaving on purpose saves the work in progress, so only the delay
// and the transfer are paid.
type CheapestFirst struct{ zoned }

// Name implements Policy.
func (CheapestFirst) Name() string        { return "cheapest-first" }
func (CheapestFirst) NeedsDeadline() bool { return false }
func (CheapestFirst) decide(s *State) (Mode, int, float64) {
	c := s.cheapestUp()
	if s.stays() {
		if c >= 0 && c != s.zone {
			nodes := float64(s.Job.Nodes)
			saving := (s.spot[s.zone] - s.spot[c]) * nodes * s.Remaining()
			if saving > s.cfg.moveCost(s.zone, c)+s.Job.Restart*nodes*s.spot[c] {
				s.why = "a cheaper zone has spot up and the move pays"
				return OnSpot, c, inf
			}
		}
		return OnSpot, s.zone, inf
	}
	if c >= 0 {
		s.why = "spot up, cheapest"
		return OnSpot, c, inf
	}
	return Idle, s.zone, inf
}

// FailoverDeadline is failover with Uniform Progress's deadline rules
// (UniformProgress, with spot counted as available when it is up in any
// zone): when behind the progress line while spot is down everywhere, and
// for the safety net, it runs on on-demand in the zone where the remaining
// work costs least on on-demand, the move's transfer money included (with
// free moves: the zone with the cheapest on-demand price); on spot it
// behaves as failover.
type FailoverDeadline struct{ zoned }

// Name implements Policy.
func (FailoverDeadline) Name() string        { return "failover-deadline" }
func (FailoverDeadline) NeedsDeadline() bool { return true }
func (FailoverDeadline) decide(s *State) (Mode, int, float64) {
	want, _, until := UniformProgress{}.decide(s)
	switch want {
	case OnSpot:
		if s.stays() {
			return OnSpot, s.zone, until
		}
		if z := s.cheapestUp(); z >= 0 {
			s.why = "spot up, cheapest"
			return OnSpot, z, until
		}
		return Idle, s.zone, until
	case OnDemand:
		if s.Mode == OnDemand {
			return OnDemand, s.zone, until
		}
		best, bestCost := 0, math.Inf(1)
		for z := range s.od {
			c := s.od[z]*float64(s.Job.Nodes)*s.Remaining() + s.cfg.moveCost(s.zone, z)
			if c < bestCost {
				best, bestCost = z, c
			}
		}
		s.why = "behind the deadline's progress line: on-demand where the rest costs least"
		if s.safety {
			s.why = "safety net: on-demand where the rest costs least"
		}
		return OnDemand, best, until
	}
	return Idle, s.zone, until
}
