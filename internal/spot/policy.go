package spot

import (
	"fmt"
	"math"
	"strings"
)

// Policy decides what to run on, and where. The event loop (sim.go) steps
// most policies through their decisions; on-demand alone and the hindsight
// optimum solve their whole run instead (solve), in closed form and by
// dynamic programming. Every policy runs in one zone or several: those that
// do not choose zones (zoneAware false) run in the first zone alone.
type Policy interface {
	Name() string
	// NeedsDeadline policies cannot run without one.
	NeedsDeadline() bool
	// decide returns the wanted mode, its zone (ignored for Idle; 0 for
	// the policies that do not choose zones: they run in one) and the time
	// to decide again (Inf: at the next availability change).
	decide(s *State) (Mode, int, float64)
	// rates are what the job pays per hour in each mode, at its prices.
	rates(j *Job) rates
	// zoneAware policies choose among several zones.
	zoneAware() bool
	// solve computes run r whole instead of stepping it (ok false: step
	// it), with the events it counts against the budget.
	solve(r *run) (res Result, events int64, ok bool)
	// estimate is roughly the work of one run of the config (events and
	// seconds), before it starts; nodes is the gang on spot.
	estimate(c *Config, nodes int) work
	// hindsight: the policy knows each run's future (the optimum), the
	// others' regret is measured against it.
	hindsight() bool
}

// stepped is what the policies the event loop steps share: the job's own
// rates, one zone, and the loop's estimate.
type stepped struct{}

func (stepped) rates(j *Job) rates                 { return defaultRates(j) }
func (stepped) zoneAware() bool                    { return false }
func (stepped) solve(*run) (Result, int64, bool)   { return Result{}, 0, false }
func (stepped) estimate(c *Config, nodes int) work { return c.loopWork(nodes, 1) }
func (stepped) hindsight() bool                    { return false }

// zoned is stepped for the policies that choose among the zones: the loop
// sees every zone's availability changes.
type zoned struct{ stepped }

func (zoned) zoneAware() bool                    { return true }
func (zoned) estimate(c *Config, nodes int) work { return c.loopWork(nodes, len(c.Zones)) }

// ZoneAware reports whether a policy chooses among several zones (the
// others, simulated with several zones, run in the first zone only).
func ZoneAware(p Policy) bool { return p.zoneAware() }

// runnable reports whether p can run the job: a deadline-aware policy needs a deadline.
func runnable(p Policy, j *Job) bool { return !p.NeedsDeadline() || j.Deadline > 0 }

var inf = math.Inf(1)

// OnDemandOnly runs on on-demand capacity throughout: exactly (start-up +
// work) × nodes × price, whatever the availability.
type OnDemandOnly struct{ stepped }

func (OnDemandOnly) Name() string                       { return "on-demand" }
func (OnDemandOnly) NeedsDeadline() bool                { return false }
func (OnDemandOnly) decide(*State) (Mode, int, float64) { return OnDemand, 0, inf }
func (OnDemandOnly) estimate(*Config, int) work         { return work{events: 1, seconds: nsPerEvent * 1e-9} }
func (OnDemandOnly) solve(r *run) (Result, int64, bool) {
	j := r.zoneJob(0)
	h := j.Work + j.Startup
	res := Result{Cost: j.ODCost(), Hours: h, Met: j.meets(h), ODHours: h, Switches: 1}
	if r.trace {
		res.Events = []Event{{T: 0, What: "switch", Detail: fmt.Sprintf("%s → %s", Idle, OnDemand)}, {T: h, What: "done", Detail: "work complete"}}
	}
	return res, 1, true
}

// SpotOnly runs on spot and waits while it is unavailable, restarting from the last checkpoint.
type SpotOnly struct{ stepped }

func (SpotOnly) Name() string        { return "spot" }
func (SpotOnly) NeedsDeadline() bool { return false }
func (SpotOnly) decide(s *State) (Mode, int, float64) {
	if s.SpotUp {
		return OnSpot, 0, inf
	}
	return Idle, 0, inf
}

// Fallback runs on spot when available and on on-demand otherwise, returning
// to spot when it comes back (Karpenter-style).
type Fallback struct{ stepped }

func (Fallback) Name() string        { return "fallback" }
func (Fallback) NeedsDeadline() bool { return false }
func (Fallback) decide(s *State) (Mode, int, float64) {
	if s.SpotUp {
		return OnSpot, 0, inf
	}
	return OnDemand, 0, inf
}

// ASGMix is an Auto Scaling group mix: OnDemandBase nodes on on-demand, then
// OnDemandPercent of the rest; the others are spot, replaced after an
// interruption when spot is available again. The gang job waits meanwhile,
// its on-demand nodes still billed. There is no deadline logic: Auto Scaling
// keeps the split fixed and does not substitute on-demand for lost spot.
type ASGMix struct {
	stepped
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

func (a ASGMix) decide(s *State) (Mode, int, float64) {
	if _, sp := a.Split(s.Job.Nodes); sp == 0 {
		return OnDemand, 0, inf
	}
	if s.SpotUp {
		return OnSpot, 0, inf
	}
	return Idle, 0, inf
}

// gangNodes is the number of nodes that must find spot at once under p:
// those its rates put on spot (an ASG mix's spot part), all where none are.
func gangNodes(p Policy, nodes int) int {
	if sp := p.rates(&Job{Nodes: nodes}).spotNodes; sp > 0 {
		return sp
	}
	return nodes
}

// Greedy uses spot whenever available and waits otherwise, until the safety
// net moves it to on-demand for good (Can't Be Late §3.4).
type Greedy struct{ stepped }

func (Greedy) Name() string        { return "greedy" }
func (Greedy) NeedsDeadline() bool { return true }
func (Greedy) decide(s *State) (Mode, int, float64) {
	ts, fired := s.safetyNet()
	switch {
	case fired:
		return OnDemand, 0, inf
	case s.SpotUp:
		return OnSpot, 0, ts
	}
	return Idle, 0, ts
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
type UniformProgress struct{ stepped }

// Name implements Policy.
func (UniformProgress) Name() string        { return "uniform-progress" }
func (UniformProgress) NeedsDeadline() bool { return true }
func (UniformProgress) decide(s *State) (Mode, int, float64) {
	j := s.Job
	ts, fired := s.safetyNet()
	if fired {
		return OnDemand, 0, inf
	}
	f := j.Work / j.Deadline
	cp := s.Durable + s.Pending
	switch {
	case s.Mode == OnDemand && !s.SpotUp:
		return OnDemand, 0, inf
	case s.Mode == OnDemand:
		// Stay until cp(t') >= ep(t'+2d): cp grows at rate 1 once the
		// changeover in progress (overLeft) is over.
		if f >= 1 {
			return OnDemand, 0, inf
		}
		catch := (2*j.Restart*f - cp + s.T + s.overLeft) / (1 - f)
		if s.T < catch-eps {
			return OnDemand, 0, min(catch, ts)
		}
		return OnSpot, 0, ts
	case s.SpotUp:
		return OnSpot, 0, ts
	case cp <= s.T*f+eps:
		return OnDemand, 0, inf
	}
	return Idle, 0, min(cp/f, ts)
}

// UniformProgressLite is gpuscout's earlier, looser reading of Uniform
// Progress: it leaves on-demand for spot as soon as spot returns (the
// hysteresis applies only while spot is unavailable) and drops from
// on-demand to idle once ahead of the progress line. Its risk: on short-lived
// spot it switches many times a run, each switch paying the changeover
// delay, and costs more than on-demand alone far more often.
type UniformProgressLite struct{ stepped }

// Name implements Policy.
func (UniformProgressLite) Name() string        { return "uniform-progress-lite" }
func (UniformProgressLite) NeedsDeadline() bool { return true }
func (UniformProgressLite) decide(s *State) (Mode, int, float64) {
	j := s.Job
	ts, fired := s.safetyNet()
	if fired {
		return OnDemand, 0, inf
	}
	if s.SpotUp {
		return OnSpot, 0, ts
	}
	f := j.Work / j.Deadline
	cp := s.Durable + s.Pending
	if s.Mode == OnDemand && f < 1 {
		// Stay until cp(t') >= ep(t'+2d); cp grows at rate 1 on on-demand.
		catch := (2*j.Restart*f - cp + s.T) / (1 - f)
		if s.T < catch-eps {
			return OnDemand, 0, min(catch, ts)
		}
	}
	// Idle while ahead of the expected progress; on-demand once it catches up.
	if cp <= s.T*f+eps {
		return OnDemand, 0, ts
	}
	return Idle, 0, min(cp/f, ts)
}

// Policies returns the policies by name; "all" gives every runnable policy
// (not the hindsight optimum: name it, as in "all,optimal").
func Policies(names []string, asg ASGMix) ([]Policy, error) {
	all := []Policy{OnDemandOnly{}, SpotOnly{}, Fallback{}, asg, Greedy{}, UniformProgress{}, UniformProgressLite{}}
	var out []Policy
	seen := map[string]bool{}
	add := func(p Policy) {
		if !seen[p.Name()] {
			seen[p.Name()] = true
			out = append(out, p)
		}
	}
	for _, n := range names {
		n = strings.TrimSpace(strings.ToLower(n))
		switch n {
		case "all":
			for _, p := range all {
				add(p)
			}
			continue
		case "optimal", "optimum":
			add(Optimal{})
			continue
		}
		if p := zonePolicyByName(n); p != nil {
			add(p)
			continue
		}
		found := false
		for _, p := range all {
			if p.Name() == n || (n == "up" && p.Name() == "uniform-progress") || (n == "od" && p.Name() == "on-demand") || (n == "asg" && p.Name() == "asg-mix") {
				add(p)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown policy %q; want one of %s, all or optimal, or for several zones %s", n, strings.Join(PolicyNames(), ", "), strings.Join(ZonePolicyNames(), ", "))
		}
	}
	return out, nil
}

// PolicyNames lists the runnable policies' names ("all"); the hindsight
// optimum, "optimal", is named on its own.
func PolicyNames() []string {
	return []string{"on-demand", "spot", "fallback", "asg-mix", "greedy", "uniform-progress", "uniform-progress-lite"}
}
