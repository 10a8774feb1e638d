package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"time"
)

// Outcome is a target's result after at most one retry.
type Outcome struct {
	Target  Target
	Verdict Verdict // of the last run
	Runs    []Run   // each run, in order (two when the first was a Boundary)
	Err     error   // the run could not be started at all

	elapsed time.Duration
}

// Failed reports whether the outcome fails the step: a finding, a broken
// run, or a run that could not start. A boundary race seen twice is a flake,
// reported, not a failure.
func (o Outcome) Failed() bool {
	return o.Err != nil || o.Verdict == Finding || o.Verdict == Broken
}

// Flaked reports whether the target hit the boundary race on both tries.
func (o Outcome) Flaked() bool { return o.Err == nil && o.Verdict == Boundary }

// runFunc runs one target once; tests replace it with recorded runs.
type runFunc func(ctx context.Context, t Target) (Run, error)

// fuzzTarget runs t and, when the run is a Boundary, once more: a real
// finding is reported at once and never retried.
func fuzzTarget(ctx context.Context, t Target, run runFunc) Outcome {
	o := Outcome{Target: t}
	for try := 0; try < 2; try++ {
		r, err := run(ctx, t)
		if err != nil {
			o.Err = err
			return o
		}
		o.Runs = append(o.Runs, r)
		o.Verdict = Classify(t.Name, r)
		if o.Verdict != Boundary {
			return o
		}
	}
	return o
}

// goTest runs `go test -fuzz` for one target in the module at root and
// records what it wrote into the target's corpus folder.
type goTest struct {
	root     string
	budget   Budget
	minimize string // -fuzzminimizetime
}

func (g goTest) run(ctx context.Context, t Target) (Run, error) {
	dir := t.CorpusDir(g.root)
	before, err := listFiles(dir)
	if err != nil {
		return Run{}, err
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-fuzz", "^"+t.Name+"$",
		"-fuzztime", g.budget.Flag(), "-fuzzminimizetime", g.minimize, "-parallel", "1", t.Package())
	cmd.Dir = g.root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	r := Run{Log: out.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.ExitCode = exit.ExitCode()
		if r.ExitCode < 0 { // killed by a signal
			r.ExitCode = 128
		}
	default:
		return Run{}, fmt.Errorf("go test %s: %w", t, err)
	}
	after, err := listFiles(dir)
	if err != nil {
		return Run{}, err
	}
	for name := range after {
		if !before[name] {
			r.Written = append(r.Written, name)
		}
	}
	sort.Strings(r.Written)
	return r, nil
}

// listFiles names the files in dir; a folder that does not exist is empty.
func listFiles(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names, nil
}
