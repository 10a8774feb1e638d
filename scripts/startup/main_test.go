package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestMedianAndReport(t *testing.T) {
	ms := time.Millisecond
	times := [][]time.Duration{{3 * ms, 2 * ms, 100 * ms}, {5 * ms, 4 * ms, 6 * ms}}
	if got := median(times[1]); got != 5*ms {
		t.Errorf("median = %v, want 5ms", got)
	}
	got := report([]string{"version"}, times)
	for _, want := range []string{"hello-world           3.000 ms", "version               5.000 ms  1.7× hello-world"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

// A command that fails is an error naming it, not a figure.
func TestMeasureRunsEachRoundAndFails(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	times, err := measure([][]string{{exe, "-test.run=^$"}}, 3)
	if err != nil || len(times[0]) != 3 {
		t.Fatalf("%d times, %v; want 3 and no error", len(times[0]), err)
	}
	if _, err := measure([][]string{{exe, "-test.run=^$"}, {"/nonexistent/gpuscout", "version"}}, 1); err == nil || !strings.Contains(err.Error(), "/nonexistent/gpuscout version") {
		t.Errorf("error %v; want one naming the command", err)
	}
}
