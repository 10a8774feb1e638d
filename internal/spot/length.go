package spot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Length is an uncertain job length: a uniform range Lo..Hi hours, or, when
// Runs is set, the empirical distribution of past runs' lengths (each equally
// likely). Each simulated run draws its true length from it with a generator
// seeded by the run (the same length for every policy); the policies plan on a
// quantile of it (Job.PlanQuantile) and learn the job is longer only when
// their plan is done and the job is not: they then plan on the longest length.
type Length struct {
	Lo, Hi float64   // hours
	Runs   []float64 // hours, past runs; replaces Lo..Hi
}

// MaxLengthRuns bounds the past runs a Length may list.
const MaxLengthRuns = 10_000

// MaxWorkHours bounds a job's work, hours (ten years).
const MaxWorkHours = 87_600

func (l *Length) validate() error {
	if len(l.Runs) > 0 {
		if len(l.Runs) > MaxLengthRuns {
			return fmt.Errorf("work runs: %d listed, want at most %d", len(l.Runs), MaxLengthRuns)
		}
		for i, r := range l.Runs {
			if !(r > 0 && r <= MaxWorkHours) {
				return fmt.Errorf("work run %d (%g h): want a positive duration of at most %g h", i+1, r, float64(MaxWorkHours))
			}
		}
		return nil
	}
	switch {
	case !(l.Lo > 0 && l.Lo <= MaxWorkHours) || !(l.Hi > 0 && l.Hi <= MaxWorkHours):
		return fmt.Errorf("work range %g..%g h: want positive durations of at most %g h", l.Lo, l.Hi, float64(MaxWorkHours))
	case l.Lo > l.Hi:
		return fmt.Errorf("work range %g..%g h: the minimum is above the maximum", l.Lo, l.Hi)
	}
	return nil
}

// Quantile is the length not exceeded with probability q in (0, 1]: for a
// range Lo + q(Hi−Lo); for past runs the smallest run with at least a share q
// of the runs at or below it.
func (l *Length) Quantile(q float64) float64 {
	if len(l.Runs) > 0 {
		s := slices.Sorted(slices.Values(l.Runs))
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return l.Lo + q*(l.Hi-l.Lo)
}

// Max is the longest length.
func (l *Length) Max() float64 { return l.Quantile(1) }

// draw is one true length.
func (l *Length) draw(rng *rand.Rand) float64 {
	if len(l.Runs) > 0 {
		return l.Runs[rng.IntN(len(l.Runs))]
	}
	if l.Hi == l.Lo {
		return l.Lo
	}
	return l.Lo + rng.Float64()*(l.Hi-l.Lo)
}

// planned is the job the policies plan on: Work the PlanQuantile of Length.
func (j *Job) planned() Job {
	p := *j
	if j.Length != nil && j.PlanQuantile > 0 && j.PlanQuantile <= 1 {
		p.Work = j.Length.Quantile(j.PlanQuantile)
	}
	return p
}

// lengthStream separates the length draws from the availability draws of
// the same run, so a point range changes nothing else.
const lengthStream = 0x6c656e677468

// trueWork is run i's true length.
func (j *Job) trueWork(seed uint64, i int) float64 {
	if j.Length == nil {
		return j.Work
	}
	return j.Length.draw(rand.New(rand.NewPCG(seed^lengthStream, uint64(i))))
}
