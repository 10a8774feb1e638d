package doctor

import (
	"context"
	"errors"
	"time"
)

// Env is everything doctor reads from the machine, so that every rule can
// be tested on a fake machine. System is the real one.
type Env interface {
	// Run runs a program with a time limit and returns what it wrote. A
	// program that is not installed gives an error wrapping ErrNotFound; one
	// that ran out of time, one wrapping ErrTimeout.
	Run(ctx context.Context, timeout time.Duration, name string, args ...string) (stdout, stderr []byte, err error)
	// LookPath finds a program on PATH (ErrNotFound when absent).
	LookPath(name string) (string, error)
	Getenv(key string) string
	// Glob expands a filepath.Glob pattern; a pattern without wildcards
	// matches the file when it exists.
	Glob(pattern string) ([]string, error)
	// Candidates lists the files that may hold a library (the loader's
	// names, then files in the folders searched: LD_LIBRARY_PATH, driver,
	// CUDA toolkit and PyTorch wheel folders; never stubs/), in the order
	// the GPU bindings try them. lib is one of cuda, cudart, cublas,
	// cublasLt, cudnn, nccl.
	Candidates(lib string) []string
	// Home is the user's home folder ("" when unknown).
	Home() string
	// Load opens a library the way the GPU bindings do and asks it for its
	// version, then closes it: a file built for a newer CUDA release than
	// the driver supports is passed over (Skipped says which and why). A
	// library that is nowhere gives an error wrapping ErrNotFound; one whose
	// every file is too new for the driver, one wrapping ErrDriverTooOld;
	// one that is present but does not load, the loader's message.
	Load(lib string) (Loaded, error)
	// GPURuntime opens the GPUs as bench does and reads their state
	// (Runtime); nil when there is no driver library or the machine cannot
	// say (a Fake without one).
	GPURuntime(ctx context.Context) *Runtime
}

// Loaded is a library that loaded: the file (symlinks resolved) and the
// version the library reports ("13.1.0"; for libcuda the driver API
// version, "13.0"); Version is empty when the library has no version call.
// Skipped lists the files passed over as too new for the driver.
type Loaded struct {
	Path, Version string
	Skipped       []string
}

// ErrDriverTooOld: a library is present, but every file of it is built for
// a newer CUDA release than the driver supports.
var ErrDriverTooOld = errors.New("built for a newer CUDA than the driver supports")

// ErrNotFound: a program is not installed.
var ErrNotFound = errors.New("not found")

// ErrTimeout: a program ran longer than doctor waits.
var ErrTimeout = errors.New("timed out")

// Time limits for the programs doctor runs. nvidia-smi answers in well under
// a second on a healthy node and hangs on a wedged driver; the first
// `import torch` on a cold disk can take tens of seconds.
const (
	smiTimeout    = 20 * time.Second
	pythonTimeout = 90 * time.Second
	dmesgTimeout  = 10 * time.Second
)
