package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Budget is how long each target is fuzzed: a count of inputs ("20000x")
// or a wall-clock duration ("60s"). Counts are the default because they
// set no deadline, so the coordinator's boundary race cannot happen; a
// duration is for long local runs (`make fuzz`), where the classifier
// excuses that race.
type Budget struct {
	Count    int64
	Duration time.Duration
}

// Budget bounds: a count of 1 to 10^9 inputs, a duration of 1s to 24h.
const (
	maxCount    = 1_000_000_000
	minDuration = time.Second
	maxDuration = 24 * time.Hour
)

// ParseBudget reads a -fuzztime value as go test takes it ("Nx" or a
// duration), within the bounds above; what names the value in errors
// (the environment variable or flag it came from).
func ParseBudget(what, s string) (Budget, error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "x"); ok {
		c, err := strconv.ParseInt(n, 10, 64)
		if err != nil || c < 1 || c > maxCount {
			return Budget{}, fmt.Errorf("%s %q: want a count of inputs from 1x to %dx, or a duration from %s to %s", what, s, maxCount, minDuration, maxDuration)
		}
		return Budget{Count: c}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < minDuration || d > maxDuration {
		return Budget{}, fmt.Errorf("%s %q: want a count of inputs from 1x to %dx, or a duration from %s to %s", what, s, maxCount, minDuration, maxDuration)
	}
	return Budget{Duration: d}, nil
}

// Flag is the budget as go test's -fuzztime takes it.
func (b Budget) Flag() string {
	if b.Count > 0 {
		return strconv.FormatInt(b.Count, 10) + "x"
	}
	return b.Duration.String()
}

// Timed reports whether the budget is a duration, the only kind under
// which the boundary race can happen.
func (b Budget) Timed() bool { return b.Count == 0 }
