package dltest

import (
	"fmt"
	"testing"
)

// A check that finds something in every run reports the last run's
// findings; one clean run is enough; a clean first run is not repeated.
func TestAttempts(t *testing.T) {
	for _, tc := range []struct {
		failing, want, runs int // failing: runs that find something before a clean one
	}{{0, 0, 1}, {1, 0, 2}, {2, 0, 3}, {5, 1, 3}} {
		runs, retries := 0, 0
		found := attempts(3, func(errorf func(string, ...any)) {
			runs++
			if runs <= tc.failing {
				errorf("run %d slow", runs)
			}
		}, func(int, []string) { retries++ })
		if RaceDetector && tc.failing > 0 {
			tc.want, tc.runs = 1, 1 // under the detector the first run's findings are only logged
		}
		if len(found) != tc.want || runs != tc.runs || (tc.want == 1 && found[0] != fmt.Sprintf("run %d slow", runs)) {
			t.Errorf("%d failing runs: %d runs, found %v; want %d runs and %d finding(s)", tc.failing, runs, found, tc.runs, tc.want)
		}
		if retries != runs-1 {
			t.Errorf("%d failing runs: %d retries for %d runs", tc.failing, retries, runs)
		}
	}
}
