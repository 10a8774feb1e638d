package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClassifyRecordedLogs classifies real logs (testdata/README.md): only
// the bare boundary failure with nothing written is excused; a crasher, a
// failed check, a failing seed entry and a build error fail the step.
func TestClassifyRecordedLogs(t *testing.T) {
	boundary := readLog(t, "boundary.log")
	tests := []struct {
		name   string
		target string
		run    Run
		want   Verdict
	}{
		{"pass", "FuzzFine", Run{Log: readLog(t, "pass.log")}, Pass},
		{"boundary race, nothing written", "FuzzParseMatcher", Run{ExitCode: 1, Log: boundary}, Boundary},
		{"boundary race in a make test run", "FuzzSpotAdvisor", Run{ExitCode: 1, Log: readLog(t, "boundary2.log")}, Boundary},
		{"boundary log but a reproducer appeared", "FuzzParseMatcher", Run{ExitCode: 1, Log: boundary, Written: []string{"0123abcd"}}, Finding},
		{"planted panic", "FuzzPanic", Run{ExitCode: 1, Log: readLog(t, "panic.log"), Written: []string{"d4a19f14dc8fdded"}}, Finding},
		// The log alone says a reproducer was written (say it was there before).
		{"planted panic, file not new", "FuzzPanic", Run{ExitCode: 1, Log: readLog(t, "panic.log")}, Finding},
		{"failed check", "FuzzCheck", Run{ExitCode: 1, Log: readLog(t, "check.log"), Written: []string{"2083bdf8710c0a20"}}, Finding},
		{"failing seed entry", "FuzzSeed", Run{ExitCode: 1, Log: readLog(t, "seed.log")}, Finding},
		{"build error", "FuzzBroken", Run{ExitCode: 1, Log: readLog(t, "build.log")}, Broken},
		{"exit 1 and no output", "FuzzX", Run{ExitCode: 1}, Broken},
		{"killed by a signal", "FuzzParseMatcher", Run{ExitCode: 128, Log: "fuzz: elapsed: 3s, execs: 10 (3/sec)\nsignal: killed\n"}, Broken},

		// Variations of the boundary log that must not be excused.
		{"boundary of another target", "FuzzAnnotation", Run{ExitCode: 1, Log: boundary}, Broken},
		{"a message besides the deadline", "FuzzParseMatcher", Run{ExitCode: 1,
			Log: strings.Replace(boundary, "    context deadline exceeded\n", "    context deadline exceeded\n    matcher.go:12: wrong\n", 1)}, Broken},
		{"the deadline as the target's own message", "FuzzParseMatcher", Run{ExitCode: 1,
			Log: strings.Replace(boundary, "    context deadline exceeded\n", "    rules_test.go:40: context deadline exceeded\n", 1)}, Broken},
		{"a nested failing subtest", "FuzzParseMatcher", Run{ExitCode: 1,
			Log: strings.Replace(boundary, "    context deadline exceeded\n", "    --- FAIL: FuzzParseMatcher (0.00s)\n    context deadline exceeded\n", 1)}, Broken},
		{"a panic after the report", "FuzzParseMatcher", Run{ExitCode: 1, Log: boundary + "panic: test timed out after 10m0s\n"}, Broken},
		{"two deadline messages", "FuzzParseMatcher", Run{ExitCode: 1,
			Log: strings.Replace(boundary, "    context deadline exceeded\n", "    context deadline exceeded\n    context deadline exceeded\n", 1)}, Broken},
		{"no FAIL line", "FuzzParseMatcher", Run{ExitCode: 1, Log: "    context deadline exceeded\nFAIL\n"}, Broken},
		{"CRLF line ends", "FuzzParseMatcher", Run{ExitCode: 1, Log: strings.ReplaceAll(boundary, "\n", "\r\n")}, Boundary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(tc.target, tc.run); got != tc.want {
				t.Errorf("Classify(%s) = %s, want %s\nlog:\n%s", tc.target, got, tc.want, tc.run.Log)
			}
		})
	}
}

// scripted answers each run of a target with the next recorded run.
func scripted(t *testing.T, runs ...Run) (runFunc, *int) {
	calls := 0
	return func(_ context.Context, tg Target) (Run, error) {
		if calls >= len(runs) {
			t.Fatalf("%s run %d times, want at most %d", tg, calls+1, len(runs))
		}
		calls++
		return runs[calls-1], nil
	}, &calls
}

// TestRetryOnlyTheBoundary: a boundary failure is retried once; a finding
// never is; a boundary twice is a flake that does not fail the step.
func TestRetryOnlyTheBoundary(t *testing.T) {
	boundary := Run{ExitCode: 1, Log: readLog(t, "boundary.log")}
	pass := Run{Log: "PASS\n"}
	panicked := Run{ExitCode: 1, Log: readLog(t, "panic.log"), Written: []string{"d4a19f14dc8fdded"}}
	target := Target{Dir: "internal/agent/rules", Name: "FuzzParseMatcher"}
	tests := []struct {
		name          string
		runs          []Run
		wantRuns      int
		wantVerdict   Verdict
		failed, flake bool
	}{
		{"pass", []Run{pass}, 1, Pass, false, false},
		{"boundary then pass", []Run{boundary, pass}, 2, Pass, false, false},
		{"boundary twice", []Run{boundary, boundary}, 2, Boundary, false, true},
		{"finding is not retried", []Run{panicked}, 1, Finding, true, false},
		{"boundary then finding", []Run{boundary, panicked}, 2, Finding, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run, calls := scripted(t, tc.runs...)
			o := fuzzTarget(t.Context(), target, run)
			if *calls != tc.wantRuns || o.Verdict != tc.wantVerdict || o.Failed() != tc.failed || o.Flaked() != tc.flake {
				t.Errorf("runs %d, verdict %s, failed %v, flaked %v; want %d, %s, %v, %v",
					*calls, o.Verdict, o.Failed(), o.Flaked(), tc.wantRuns, tc.wantVerdict, tc.failed, tc.flake)
			}
		})
	}
}

// TestReportExitCode: the step's exit code and summary for a mix of
// outcomes; a flake is named with the race and does not fail the step.
func TestReportExitCode(t *testing.T) {
	boundary := Run{ExitCode: 1, Log: readLog(t, "boundary.log")}
	ok := Outcome{Target: Target{"a", "FuzzA"}, Verdict: Pass, Runs: []Run{{}}}
	flake := Outcome{Target: Target{"b", "FuzzParseMatcher"}, Verdict: Boundary, Runs: []Run{boundary, boundary}}
	found := Outcome{Target: Target{"c", "FuzzPanic"}, Verdict: Finding,
		Runs: []Run{{ExitCode: 1, Log: readLog(t, "panic.log"), Written: []string{"d4a19f14dc8fdded"}}}}
	budget := Budget{Duration: 3e9}

	var out, errOut strings.Builder
	if code := report([]Outcome{ok, flake}, budget, &out, &errOut); code != 0 {
		t.Errorf("pass + flake: exit %d, want 0", code)
	}
	if !strings.Contains(errOut.String(), "FLAKE ./b:FuzzParseMatcher") || !strings.Contains(errOut.String(), "golang/go#75804") {
		t.Errorf("flake not reported with its cause:\n%s", errOut.String())
	}
	if !strings.Contains(out.String(), "fuzz: 2 targets, 1 passed, 1 flaked, 0 failed (3s each)") {
		t.Errorf("summary:\n%s", out.String())
	}

	out.Reset()
	errOut.Reset()
	if code := report([]Outcome{ok, found, flake}, budget, &out, &errOut); code != 1 {
		t.Errorf("with a finding: exit %d, want 1", code)
	}
	for _, want := range []string{"panic: planted crasher", "FAIL  ./c:FuzzPanic: finding, reproducer d4a19f14dc8fdded"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("finding's report lacks %q:\n%s", want, errOut.String())
		}
	}
}
