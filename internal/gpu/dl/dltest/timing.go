package dltest

import (
	"fmt"
	"strings"
	"testing"
)

// TimingAttempts is how many times Timing runs a check before it reports
// the check's failures.
const TimingAttempts = 3

// Timing runs check, a run of the fakes whose results depend on the wall
// clock (the asynchronous fake driver's host cost per call, its GPU that
// works while the host queues), and reports what check found wrong only if
// every one of TimingAttempts runs found something: a busy machine keeps
// the host's threads off their CPUs, which only ever makes the host late,
// so one clean run shows the code keeps the device busy, and a run that
// is wrong three times is wrong. Under the race detector, whose slowdown of
// the host is its own, the checks' findings are logged, not failures (the
// code still runs under it, which is what the detector checks).
// check reports with errorf; it may call t.Fatal for what timing cannot
// explain (an error from the driver).
func Timing(t testing.TB, check func(errorf func(format string, args ...any))) {
	t.Helper()
	found := attempts(TimingAttempts, check, func(attempt int, found []string) {
		t.Logf("attempt %d of %d: %s; again (a busy machine only delays the host)", attempt, TimingAttempts, strings.Join(found, "; "))
	})
	switch {
	case len(found) == 0:
	case RaceDetector:
		t.Logf("under the race detector, not checked: %s", strings.Join(found, "; "))
	default:
		for _, f := range found {
			t.Error(f)
		}
	}
}

// attempts runs check until a run finds nothing or n runs found something,
// telling retry about each run but the last that found something; it
// returns the last run's findings (none: a clean run).
func attempts(n int, check func(errorf func(format string, args ...any)), retry func(attempt int, found []string)) []string {
	for attempt := 1; ; attempt++ {
		var found []string
		check(func(format string, args ...any) { found = append(found, fmt.Sprintf(format, args...)) })
		if len(found) == 0 || attempt >= n || RaceDetector {
			return found
		}
		retry(attempt, found)
	}
}
