// Command fuzzstep is the fuzz step of scripts/test.sh: it finds every fuzz
// target in the module, fuzzes each for a budget, two at a time, and fails
// only on a real finding.
//
// A real finding is a reproducer written under testdata/fuzz, a failing
// seed entry, a panic, a failed check, a build error. Go 1.26's fuzz
// coordinator can also fail a run with a bare "context deadline exceeded"
// when a duration budget (-fuzztime 3s) ends (golang/go#75804, fixed in Go
// 1.27); such a run wrote nothing and proves nothing. The default budget is
// therefore a count of inputs, which sets no deadline, and a duration
// budget's bare boundary failure is retried once and, if it repeats,
// reported as a flake rather than a failure.
//
// Usage:
//
//	go run ./scripts/fuzzstep [-budget 20000x|60s] [-minimize 0] [-jobs 2] [-run REGEXP] [ROOT]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// DefaultBudget is the count of inputs each target gets in make test. On
// the 2-core dev box (two targets at a time, one worker each) the 27
// targets of 2026-12-03 took 58 s in all: the slowest 9.0 s
// (rules.FuzzAnnotation), the median 3.9 s, about what 3 s each with their
// builds took before.
const DefaultBudget = "10000x"

// Main runs the step; it returns 0 when nothing failed, 1 when a target
// failed, 2 for bad flags.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fuzzstep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	budgetFlag := fs.String("budget", DefaultBudget, "inputs per target (`N`x) or a duration (60s)")
	minimize := fs.String("minimize", "0", "-fuzzminimizetime for go test (0: write a crasher as found)")
	jobs := fs.Int("jobs", 2, "targets fuzzed at once (1 to 64), each with one worker")
	only := fs.String("run", "", "fuzz only the targets whose ./dir:Name matches this regular expression")
	skipTests := fs.String("skip-tests", "", "with -tests: comma-separated ./dir of packages whose tests run elsewhere (under the race detector)")
	list := fs.Bool("list", false, "print the folders (./dir) of the packages that hold fuzz targets, and stop")
	tests := fs.Bool("tests", false, "also run every test of each fuzzed package, with its fuzz binary (scripts/test.sh then leaves those packages out of go-test)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	budget, err := ParseBudget("-budget", *budgetFlag)
	if err != nil {
		fmt.Fprintln(stderr, "fuzzstep:", err)
		return 2
	}
	if *jobs < 1 || *jobs > 64 {
		fmt.Fprintf(stderr, "fuzzstep: -jobs %d: want 1 to 64\n", *jobs)
		return 2
	}
	if *minimize != "0" {
		if _, err := ParseBudget("-minimize", *minimize); err != nil {
			fmt.Fprintln(stderr, "fuzzstep:", err)
			return 2
		}
	}
	var filter *regexp.Regexp
	if *only != "" {
		if filter, err = regexp.Compile(*only); err != nil {
			fmt.Fprintf(stderr, "fuzzstep: -run %q: %v\n", *only, err)
			return 2
		}
	}
	root := "."
	switch fs.NArg() {
	case 0:
	case 1:
		root = fs.Arg(0)
	default:
		fmt.Fprintf(stderr, "fuzzstep: want at most one module root, got %q\n", fs.Args())
		return 2
	}

	targets, err := Discover(root)
	if err != nil {
		fmt.Fprintln(stderr, "fuzzstep:", err)
		return 1
	}
	if filter != nil {
		kept := targets[:0]
		for _, t := range targets {
			if filter.MatchString(t.String()) {
				kept = append(kept, t)
			}
		}
		targets = kept
	}
	if len(targets) == 0 {
		fmt.Fprintf(stderr, "fuzzstep: no fuzz targets under %s (filter %q)\n", root, *only)
		return 1
	}
	if *list {
		for i, t := range targets {
			if i == 0 || targets[i-1].Dir != t.Dir {
				fmt.Fprintln(stdout, "./"+t.Dir)
			}
		}
		return 0
	}
	binDir, err := os.MkdirTemp("", "fuzzstep")
	if err != nil {
		fmt.Fprintln(stderr, "fuzzstep:", err)
		return 1
	}
	defer os.RemoveAll(binDir)
	g := &goTest{root: root, budget: budget, minimize: *minimize, binDir: binDir, buildJobs: *jobs}
	start := time.Now()
	if err := g.build(ctx, targets); err != nil {
		fmt.Fprintln(stderr, "fuzzstep:", err)
		return 1
	}
	fmt.Fprintf(stdout, "fuzz: built the fuzz binaries of %d packages in %.0f s\n", len(g.built), time.Since(start).Seconds())
	testsFailed := false
	if *tests {
		skip := map[string]bool{}
		for _, d := range strings.Split(*skipTests, ",") {
			if d = strings.TrimPrefix(strings.TrimSpace(d), "./"); d != "" {
				skip[d] = true
			}
		}
		testsFailed = !g.testAll(ctx, *jobs, skip, stdout, stderr)
	}
	code := report(fuzzAll(ctx, targets, *jobs, g.run), budget, stdout, stderr)
	if testsFailed && code == 0 {
		code = 1
	}
	return code
}

// fuzzAll fuzzes the targets, jobs at a time, and returns their outcomes
// in the targets' order.
func fuzzAll(ctx context.Context, targets []Target, jobs int, run runFunc) []Outcome {
	out := make([]Outcome, len(targets))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				out[i] = fuzzTarget(ctx, targets[i], run)
				out[i].elapsed = time.Since(start)
			}
		}()
	}
	for i := range targets {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// report prints a line per target (and the log of each that did not
// pass), then a summary; it returns the step's exit code.
func report(outcomes []Outcome, budget Budget, stdout, stderr io.Writer) int {
	failed, flaked := 0, 0
	for _, o := range outcomes {
		switch {
		case o.Err != nil:
			failed++
			fmt.Fprintf(stderr, "FAIL  %s: %v\n", o.Target, o.Err)
		case o.Failed():
			failed++
			last := o.Runs[len(o.Runs)-1]
			fmt.Fprint(stderr, last.Log)
			if !strings.HasSuffix(last.Log, "\n") {
				fmt.Fprintln(stderr)
			}
			fmt.Fprintf(stderr, "FAIL  %s: %s", o.Target, o.Verdict)
			if len(last.Written) > 0 {
				fmt.Fprintf(stderr, ", reproducer %s", strings.Join(last.Written, ", "))
			}
			fmt.Fprintln(stderr)
		case o.Flaked():
			flaked++
			fmt.Fprintf(stderr, "FLAKE %s: a bare \"context deadline exceeded\" at the end of the %s budget on both tries, no reproducer written: Go's fuzz coordinator race (golang/go#75804), not a finding\n", o.Target, budget.Flag())
		default:
			note := ""
			if len(o.Runs) > 1 {
				note = ", passed on retry after a boundary race"
			}
			fmt.Fprintf(stdout, "ok    %s (%s, %.1fs%s)\n", o.Target, budget.Flag(), o.elapsed.Seconds(), note)
		}
	}
	fmt.Fprintf(stdout, "fuzz: %d targets, %d passed, %d flaked, %d failed (%s each)\n",
		len(outcomes), len(outcomes)-failed-flaked, flaked, failed, budget.Flag())
	if failed > 0 {
		return 1
	}
	return 0
}
