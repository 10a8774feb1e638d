package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// testAll runs every test of each built package with its fuzz binary, jobs
// at a time, as go test would (in the package's folder, count 1): the fuzz
// binary is a test binary whose package under test carries coverage
// counters, so the package need not be compiled and linked a second time
// for go-test; those in skip are tested elsewhere. It prints a line per package (and the output of a failure)
// and reports whether all passed.
func (g *goTest) testAll(ctx context.Context, jobs int, skip map[string]bool, stdout, stderr io.Writer) bool {
	dirs := make([]string, 0, len(g.built))
	for d := range g.built {
		if !skip[d] {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	type result struct {
		ok   bool
		line string
		log  string
	}
	results := make([]result, len(dirs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, jobs) {
		wg.Go(func() {
			for i := range next {
				ok, took, log := g.test(ctx, dirs[i])
				status := "ok  "
				if !ok {
					status = "FAIL"
				}
				results[i] = result{ok: ok, line: fmt.Sprintf("%s  ./%s (tests, %.1fs)", status, dirs[i], took.Seconds()), log: log}
			}
		})
	}
	for i := range dirs {
		next <- i
	}
	close(next)
	wg.Wait()
	all := true
	for _, r := range results {
		fmt.Fprintln(stdout, r.line)
		if !r.ok {
			all = false
			fmt.Fprint(stderr, r.log)
		}
	}
	return all
}

// test runs one package's tests with its fuzz binary.
func (g *goTest) test(ctx context.Context, dir string) (ok bool, took time.Duration, log string) {
	b := g.built[dir]
	if b.buildLog != "" {
		return false, 0, b.buildLog
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, b.binary, "-test.paniconexit0", "-test.count=1", "-test.timeout="+maxTestTimeout.String())
	cmd.Dir = filepath.Join(g.root, dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return err == nil, time.Since(start), out.String()
}
