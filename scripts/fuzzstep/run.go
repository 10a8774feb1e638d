package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
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

// goTest fuzzes the targets of the module at root the way `go test -fuzz`
// does, but builds each package's instrumented test binary once, one
// package at a time, before any target runs: two `go test -fuzz` at once
// from a cold build cache each compile the same instrumented standard
// library, and each run relinks its binary.
type goTest struct {
	root     string
	budget   Budget
	minimize string // -fuzzminimizetime
	binDir   string // where the test binaries go
	// buildJobs is how many fuzz binaries are built at once.
	buildJobs int
	cacheDir  string // $GOCACHE/fuzz, the corpus cache go test gives fuzzers

	built map[string]built // by Target.Dir
}

// built is a package's fuzz binary, or the output of its failed build.
type built struct {
	binary     string
	importPath string
	buildLog   string // non-empty when the build failed
}

// maxTestTimeout stops a wedged fuzz binary, as go test's default -timeout does.
const maxTestTimeout = 10 * time.Minute

// build compiles the fuzz binary of every package that holds a target.
// A package that fails to build is not an error here: its targets run as
// Broken with the compiler's output, as `go test -fuzz` would report them.
func (g *goTest) build(ctx context.Context, targets []Target) error {
	gocache, err := goEnv(ctx, g.root, "GOCACHE")
	if err != nil {
		return err
	}
	g.cacheDir = filepath.Join(gocache, "fuzz")
	var dirs []string
	for _, t := range targets {
		if len(dirs) == 0 || dirs[len(dirs)-1] != t.Dir {
			dirs = append(dirs, t.Dir)
		}
	}
	paths, err := importPaths(ctx, g.root, dirs)
	if err != nil {
		return err
	}
	g.built = make(map[string]built, len(dirs))
	// Two builds at a time: a build's link runs on one core, so one build
	// after another left the other core idle for most of the step.
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, g.buildJobs) {
		wg.Go(func() {
			for i := range next {
				b := g.buildOne(ctx, i, dirs[i], paths[dirs[i]])
				mu.Lock()
				g.built[dirs[i]] = b
				mu.Unlock()
			}
		})
	}
	for i := range dirs {
		next <- i
	}
	close(next)
	wg.Wait()
	return ctx.Err()
}

// buildOne compiles one package's fuzz binary: coverage instrumentation for
// the package under test only (what `go test -fuzz` adds to every package),
// CGO_ENABLED=0 (the dependencies are then the release binary's own build,
// the smoke step's, compiled once, not a third configuration of the world),
// and no DWARF (-ldflags=-w: a fuzz binary is never debugged, and its link
// takes some 40% less).
func (g *goTest) buildOne(ctx context.Context, i int, dir, importPath string) built {
	bin := filepath.Join(g.binDir, strconv.Itoa(i)+".test")
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-gcflags="+importPath+"=-d=libfuzzer", "-ldflags=-w", "-o", bin, "./"+dir)
	cmd.Dir = g.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	b := built{binary: bin, importPath: importPath}
	if err != nil {
		b.buildLog = string(out)
		if b.buildLog == "" {
			b.buildLog = err.Error() + "\n"
		}
		b.buildLog += "FAIL\t" + importPath + " [build failed]\n"
	}
	return b
}

// run fuzzes one target with its package's binary, in the package's
// folder, and records what it wrote into the target's corpus folder.
func (g *goTest) run(ctx context.Context, t Target) (Run, error) {
	b, ok := g.built[t.Dir]
	if !ok {
		return Run{}, fmt.Errorf("%s: its package was not built", t)
	}
	if b.buildLog != "" {
		return Run{ExitCode: 1, Log: b.buildLog}, nil
	}
	dir := t.CorpusDir(g.root)
	before, err := listFiles(dir)
	if err != nil {
		return Run{}, err
	}
	cmd := exec.CommandContext(ctx, b.binary,
		"-test.paniconexit0",
		"-test.fuzzcachedir="+filepath.Join(g.cacheDir, b.importPath),
		"-test.timeout="+maxTestTimeout.String(),
		"-test.run=^$",
		"-test.fuzz=^"+t.Name+"$",
		"-test.fuzztime="+g.budget.Flag(),
		"-test.fuzzminimizetime="+g.minimize,
		"-test.parallel=1")
	cmd.Dir = filepath.Join(g.root, t.Dir)
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
		return Run{}, fmt.Errorf("%s: %w", t, err)
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

// goEnv reads one of go env's variables.
func goEnv(ctx context.Context, root, name string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", name)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" || v == "off" {
		return "", fmt.Errorf("go env %s is %q: fuzzing needs a build cache", name, v)
	}
	return v, nil
}

// importPaths maps each package folder (relative to root) to its import path.
func importPaths(ctx context.Context, root string, dirs []string) (map[string]string, error) {
	args := []string{"list", "-e", "-f", "{{.Dir}}\t{{.ImportPath}}"}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	absRoot, _ = filepath.EvalSymlinks(absRoot)
	paths := make(map[string]string, len(dirs))
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		dir, path, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		if rel, err := filepath.Rel(absRoot, dir); err == nil {
			paths[filepath.ToSlash(rel)] = path
		}
	}
	for _, d := range dirs {
		if paths[d] == "" {
			return nil, fmt.Errorf("go list gave no import path for ./%s:\n%s", d, out)
		}
	}
	return paths, nil
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
