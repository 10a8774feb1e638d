package main

import (
	"regexp"
	"strings"
)

// Verdict is what one `go test -fuzz` run of a target means for the step.
type Verdict int

const (
	// Pass: the run exited 0.
	Pass Verdict = iota
	// Finding: the fuzzer found an input that fails the target (a
	// reproducer was written under testdata/fuzz, a seed entry failed):
	// a real failure, never retried.
	Finding
	// Boundary: the run failed with nothing but "context deadline
	// exceeded" at the end of a -fuzztime duration and wrote no reproducer:
	// the Go fuzz coordinator's race (golang/go#75804, fixed in Go 1.27),
	// not the code under test. Retried once.
	Boundary
	// Broken: any other failure (a build error, a test binary that would
	// not start, an unrecognised message): a real failure, never retried.
	Broken
)

func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Finding:
		return "finding"
	case Boundary:
		return "boundary"
	case Broken:
		return "broken"
	}
	return "unknown"
}

// Run is what one run of a target left behind: its exit status, its
// combined output and the files that appeared in the target's corpus
// folder (testdata/fuzz/FuzzName) while it ran.
type Run struct {
	ExitCode int
	Log      string
	Written  []string
}

var (
	// failLine opens a target's failure report: "--- FAIL: FuzzX (3.03s)".
	failLine = regexp.MustCompile(`^--- FAIL: (Fuzz\S*) \([0-9.]+s\)$`)
	// packageFail is go test's last line for a failed package.
	packageFail = regexp.MustCompile(`^FAIL\s+\S+\s+[0-9.]+s$`)
)

// Classify says what a finished run of fuzz target name means. Only a run
// whose whole failure report is the bare boundary message, with no
// reproducer written, is a Boundary; a run that wrote a reproducer is a
// Finding whatever its log says; anything else that failed is Broken or a
// Finding, never excused.
func Classify(name string, r Run) Verdict {
	if r.ExitCode == 0 {
		return Pass
	}
	if len(r.Written) > 0 ||
		strings.Contains(r.Log, "Failing input written to ") ||
		strings.Contains(r.Log, "failure while testing seed corpus entry") {
		return Finding
	}
	if bareDeadline(name, r.Log) {
		return Boundary
	}
	return Broken
}

// bareDeadline reports whether the log's failure report for name says
// "context deadline exceeded" and nothing else: after the "--- FAIL" line
// come only that message (indented, as testing writes it) and go test's
// closing lines ("FAIL", "exit status 1", "FAIL <pkg> <secs>"). A panic, a
// t.Error line, a second failing test or a build error makes it false.
func bareDeadline(name, log string) bool {
	lines := strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n")
	fails, deadlines := 0, 0
	inReport := false
	for _, raw := range lines {
		line := strings.TrimRight(raw, " \t")
		if m := failLine.FindStringSubmatch(line); m != nil {
			if m[1] != name {
				return false // another target failed: not this race
			}
			fails++
			inReport = true
			continue
		}
		if strings.HasPrefix(line, "--- FAIL:") || strings.HasPrefix(line, "panic:") ||
			strings.HasPrefix(line, "fatal error:") || strings.Contains(line, "[build failed]") {
			return false
		}
		if !inReport {
			continue // the fuzzer's progress lines, go's downloads
		}
		switch {
		case line == "":
		case strings.TrimSpace(line) == "context deadline exceeded" && strings.HasPrefix(raw, " "):
			deadlines++
		case line == "FAIL", strings.HasPrefix(line, "exit status "), packageFail.MatchString(line):
		default:
			return false // anything else in the report is a message of the target's
		}
	}
	return fails == 1 && deadlines == 1
}
