package workload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Runner runs workloads with one Python interpreter.
type Runner struct {
	Python string // the interpreter; FindPython chooses one
	// Sampler, when set, is read every Interval while the workload runs (NVML
	// on a GPU node); its readings are summarised in Result.Telemetry.
	Sampler  gpu.Sampler
	Interval time.Duration // 0: 200 ms
	Stderr   func(line string)
}

// Run writes the embedded script to a temporary file, runs it with spec's
// arguments and returns its result. A result with OK false is returned with
// a nil error: the workload ran and said why it failed (an error is for
// gpuscout not being able to run it at all).
func (r *Runner) Run(ctx context.Context, spec Spec) (*Result, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "gpuscout-workload-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "train_step.py")
	if err := os.WriteFile(path, script, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, r.Python, append([]string{path}, spec.Args()...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stop := r.sample()
	runErr := cmd.Run()
	tel := stop()
	res, perr := Parse(&stdout)
	if perr != nil {
		if runErr != nil {
			return nil, fmt.Errorf("%s %s: %v%s", r.Python, spec.Model, runErr, tail(stderr.String()))
		}
		return nil, fmt.Errorf("%s %s: %v%s", r.Python, spec.Model, perr, tail(stderr.String()))
	}
	if !res.OK && res.Error == "" && runErr != nil {
		res.Error = runErr.Error() + tail(stderr.String())
	}
	res.Telemetry = tel
	return res, nil
}

// tail is the last lines of a script's stderr, for an error message.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 6 {
		lines = lines[len(lines)-6:]
	}
	return "\n  " + strings.Join(lines, "\n  ")
}

// sample starts sampling r.Sampler; the returned func stops it and
// summarises what it read (nil without a sampler or a reading).
func (r *Runner) sample() func() *Telemetry {
	if r.Sampler == nil {
		return func() *Telemetry { return nil }
	}
	every := r.Interval
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var got []gpu.Sample
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if s, err := r.Sampler.Sample(); err == nil {
					got = append(got, s)
				}
			}
		}
	}()
	return func() *Telemetry {
		close(done)
		wg.Wait()
		return Summarise(got)
	}
}

// Summarise reduces samples to their mean and spread of utilisation, the most
// memory used and the mean power; nil for no samples. Readings a device
// could not take (NaN, negative) are left out of each figure.
func Summarise(samples []gpu.Sample) *Telemetry {
	if len(samples) == 0 {
		return nil
	}
	t := &Telemetry{Samples: len(samples)}
	var util, power []float64
	for _, s := range samples {
		if s.UtilGPU >= 0 && !math.IsNaN(s.UtilGPU) {
			util = append(util, s.UtilGPU)
		}
		if s.PowerW >= 0 && !math.IsNaN(s.PowerW) {
			power = append(power, s.PowerW)
		}
		t.MemUsedMaxBytes = max(t.MemUsedMaxBytes, s.MemUsedBytes)
	}
	t.UtilMean, t.UtilStdDev = meanStd(util)
	t.PowerMeanW, _ = meanStd(power)
	return t
}

func meanStd(v []float64) (mean, std float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

// ErrNoPython says no interpreter was found.
var ErrNoPython = errors.New("no python3 found on PATH (install Python 3, activate your environment, or set GPUSCOUT_PYTHON)")

// Python is the interpreter gpuscout runs PyTorch with — the workloads, and
// doctor's PyTorch checks — decided here only: $GPUSCOUT_PYTHON when set,
// else python3 on PATH (the one the user's own training runs with).
func Python(getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	if p := getenv("GPUSCOUT_PYTHON"); p != "" {
		return lookPath(p)
	}
	p, err := lookPath("python3")
	if err != nil {
		return "", ErrNoPython
	}
	return p, nil
}
