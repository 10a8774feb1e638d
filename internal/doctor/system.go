package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// System is the real machine.
type System struct{}

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

// Candidates lists where a library may be.
func (s System) Candidates(lib string) []string { return systemCandidates(s, lib) }

// systemCandidates is a search of the usual folders: LD_LIBRARY_PATH, the
// driver folders, CUDA toolkits and the PyTorch/NVIDIA pip wheel folders of
// the Python prefixes present.
func systemCandidates(e Env, lib string) []string {
	stem := "lib" + lib + ".so"
	arch := "x86_64"
	if runtime.GOARCH == "arm64" {
		arch = "aarch64"
	}
	var dirs []string
	for d := range strings.SplitSeq(e.Getenv("LD_LIBRARY_PATH"), ":") {
		if filepath.IsAbs(d) {
			dirs = append(dirs, filepath.Clean(d))
		}
	}
	dirs = append(dirs, "/usr/local/nvidia/lib64", "/usr/lib/"+arch+"-linux-gnu", "/usr/lib64")
	if lib != "cuda" {
		for _, root := range append([]string{"/usr/local/cuda"}, globAll(e, "/usr/local/cuda-*")...) {
			dirs = append(dirs, filepath.Join(root, "targets", arch+"-linux", "lib"), filepath.Join(root, "targets", "sbsa-linux", "lib"), filepath.Join(root, "lib64"))
		}
		var prefixes []string
		for _, k := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
			if v := e.Getenv(k); filepath.IsAbs(v) {
				prefixes = append(prefixes, v)
			}
		}
		for _, r := range envRoots(e) {
			prefixes = append(prefixes, r.path)
		}
		if h := e.Home(); h != "" {
			prefixes = append(prefixes, filepath.Join(h, ".local"))
		}
		prefixes = append(prefixes, "/usr/local", "/usr")
		for _, p := range prefixes {
			dirs = append(dirs, filepath.Join(p, "lib"))
			for _, sp := range globAll(e, filepath.Join(p, "lib", "python3*", "*-packages")) {
				dirs = append(dirs, globAll(e, filepath.Join(sp, "nvidia", "*", "lib"))...)
				dirs = append(dirs, filepath.Join(sp, "torch", "lib"))
			}
		}
	}
	var out []string
	for _, d := range dirs {
		p := filepath.Join(d, stem)
		if !slices.Contains(out, p) && !inStubs(p) {
			out = append(out, p)
		}
	}
	return out
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
