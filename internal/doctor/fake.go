package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// Fake is a machine made of a file list, environment variables, the
// programs on PATH and what they print: doctor's tests and the CLI's use it
// in place of System.
type Fake struct {
	Files   []string              // files that exist; their folders exist too
	Env     map[string]string     // set variables (an empty value is set)
	Path    map[string]string     // program → its path on PATH
	Outputs map[string]FakeOutput // program → what it prints
	HomeDir string
	// Libraries are what Load finds, by library (cuda, cublas, ...); a
	// library not listed is not found.
	Libraries map[string]FakeLibrary
	// Runtime is what GPURuntime reports; nil: the runtime checks are
	// left out.
	Runtime *Runtime
}

// FakeLibrary is a library of a Fake: where it loads from and the version
// it reports, or why it does not load, and the files passed over as too
// new for the driver.
type FakeLibrary struct {
	Path, Version string
	Err           error
	Skipped       []string
}

// GPURuntime returns Runtime.
func (f *Fake) GPURuntime(context.Context) *Runtime { return f.Runtime }

// Load returns the library listed in Libraries, if its file is among Files.
func (f *Fake) Load(lib string) (Loaded, error) {
	l, ok := f.Libraries[lib]
	switch {
	case !ok, l.Err == nil && !slices.Contains(f.Files, l.Path):
		return Loaded{}, fmt.Errorf("%s: %w", lib, ErrNotFound)
	case l.Err != nil:
		return Loaded{}, l.Err
	}
	return Loaded{Path: l.Path, Version: l.Version, Skipped: l.Skipped}, nil
}

// FakeOutput is what a program of a Fake prints, and its error.
type FakeOutput struct {
	Stdout, Stderr string
	Err            error
}

// Run returns the program's recorded output.
func (f *Fake) Run(_ context.Context, _ time.Duration, name string, _ ...string) ([]byte, []byte, error) {
	if _, ok := f.Path[name]; !ok {
		// A program may be run by the path LookPath gave for it.
		for n, p := range f.Path {
			if p == name {
				name = n
				break
			}
		}
	}
	if _, ok := f.Path[name]; !ok {
		return nil, nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	o := f.Outputs[name]
	return []byte(o.Stdout), []byte(o.Stderr), o.Err
}

// LookPath finds a program in Path.
func (f *Fake) LookPath(name string) (string, error) {
	if p, ok := f.Path[name]; ok {
		return p, nil
	}
	return "", fmt.Errorf("%s: %w", name, ErrNotFound)
}

// Getenv reads Env.
func (f *Fake) Getenv(k string) string { return f.Env[k] }

// LookupEnv reads Env, telling unset from empty.
func (f *Fake) LookupEnv(k string) (string, bool) {
	v, ok := f.Env[k]
	return v, ok
}

// Home is HomeDir.
func (f *Fake) Home() string { return f.HomeDir }

// Candidates is the GPU bindings' search (dl.Candidates) over Files.
func (f *Fake) Candidates(lib string) []string {
	return dl.Candidates(dl.Lib(lib), dl.Env{Getenv: f.Getenv, Glob: f.Glob, Home: f.HomeDir, Arch: "x86_64"})
}

// Glob matches a pattern against Files and their folders.
func (f *Fake) Glob(pattern string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, file := range f.Files {
		for p := file; p != "/" && p != "."; p = filepath.Dir(p) {
			if seen[p] {
				continue
			}
			seen[p] = true
			if ok, err := filepath.Match(pattern, p); err != nil {
				return nil, err
			} else if ok {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
