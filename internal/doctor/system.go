package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// System is the real machine. Libs, when set, is where the GPU libraries
// are looked for instead of the system's folders (tests point it at fake
// libraries).
type System struct {
	Libs *dl.Env
}

// Run runs name with args, killing it after timeout.
func (System) Run(ctx context.Context, timeout time.Duration, name string, args ...string) ([]byte, []byte, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &out, max: maxSMIBytes + 1}
	cmd.Stderr = &limitedBuffer{b: &errOut, max: 64 << 10}
	killGroup(cmd)                  // a timeout ends the program and anything it started
	cmd.WaitDelay = 2 * time.Second // a child that keeps the pipes open cannot hold doctor
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return out.Bytes(), errOut.Bytes(), fmt.Errorf("%s did not finish within %s: %w", name, timeout, ErrTimeout)
	}
	return out.Bytes(), errOut.Bytes(), err
}

// limitedBuffer keeps the first max bytes written and discards the rest.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// LookPath finds a program on PATH.
func (System) LookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return p, nil
}

// Getenv reads the process environment.
func (System) Getenv(key string) string { return os.Getenv(key) }

// Glob expands a pattern on the real file system.
func (System) Glob(pattern string) ([]string, error) { return filepath.Glob(pattern) }

// Home is the user's home folder.
func (System) Home() string {
	h, _ := os.UserHomeDir()
	return h
}

// Candidates lists where a library may be: the GPU bindings' own search
// (dl.Candidates), so doctor reports the files bench would load.
func (s System) Candidates(lib string) []string { return dl.Candidates(dl.Lib(lib), s.libEnv()) }

// Load opens lib with the GPU bindings' loader, reads its version and
// closes it again; like the bindings, it passes over files built for a
// newer CUDA than the driver's (cuDriverGetVersion). None of the version
// calls initialises the library or touches a GPU.
func (s System) Load(lib string) (Loaded, error) {
	env := s.libEnv()
	if dl.Lib(lib) != dl.CUDA && dl.Lib(lib) != dl.NVML {
		env.DriverCUDA = driverCUDA(env)
	}
	l, err := dl.OpenEnv(dl.Lib(lib), env)
	if err != nil {
		var oe *dl.OpenError
		if errors.As(err, &oe) {
			var failed, tooNew []string
			for _, a := range oe.Tried {
				switch {
				case a.TooOld != nil:
					tooNew = append(tooNew, a.Path+": "+a.Err)
				case a.Err != "not present":
					failed = append(failed, a.Path+": "+a.Err)
				}
			}
			switch {
			case len(failed) > 0:
				return Loaded{}, errors.New(strings.Join(append(failed, tooNew...), "; "))
			case len(tooNew) > 0:
				return Loaded{}, fmt.Errorf("%w: %s", ErrDriverTooOld, strings.Join(tooNew, "; "))
			}
			return Loaded{}, fmt.Errorf("%s: %w", lib, ErrNotFound)
		}
		return Loaded{}, err
	}
	defer l.Close()
	v, _ := l.Version()
	out := Loaded{Path: l.Path, Version: v}
	for _, a := range l.Tried {
		if a.TooOld != nil {
			out.Skipped = append(out.Skipped, a.Path+": "+a.Err)
		}
	}
	return out, nil
}

// globAll is Glob without its (pattern syntax) error.
func globAll(e Env, pattern string) []string {
	m, err := e.Glob(pattern)
	if err != nil {
		return nil
	}
	return m
}

// LookupEnv tells an unset variable from an empty one.
func (System) LookupEnv(key string) (string, bool) { return os.LookupEnv(key) }
