// Package doctor checks a GPU node's software stack: the NVIDIA driver and
// the CUDA version it supports, the GPUs and their modes (MIG,
// virtualisation, ECC, persistence), the vendor libraries (cuBLAS, cuDNN,
// NCCL, the CUDA runtime) and their versions, Python, conda or venv, and the
// PyTorch build. Gather reads the machine through an Env (System is the real
// one; tests use fakes), Rules turns the facts into named checks with a
// status, a detail and a fix, and Run does both. No GPU is not an error: the
// driver check is then "missing" and nothing fails.
package doctor

import (
	"context"
	"fmt"
)

// Status is a check's outcome.
type Status string

// The statuses, as the JSON contract spells them.
const (
	StatusOK      Status = "ok"
	StatusWarn    Status = "warn"
	StatusFail    Status = "fail"
	StatusMissing Status = "missing" // not present on this machine; not a failure
)

// Check is one finding: a stable name, the outcome, what doctor saw, and
// what to do about it (empty when nothing needs doing).
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// Report is doctor's answer.
type Report struct {
	Checks []Check `json:"checks"`
}

// Failed says whether any check failed.
func (r Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == StatusFail {
			return true
		}
	}
	return false
}

// Run gathers the facts of the machine e and applies the rules.
func Run(ctx context.Context, e Env) Report {
	return Report{Checks: Rules(Gather(ctx, e, nil))}
}

// RunProgress is Run that names each step before it starts (for a
// progress line on a terminal); progress may be nil.
func RunProgress(ctx context.Context, e Env, progress func(step string)) Report {
	return Report{Checks: Rules(Gather(ctx, e, progress))}
}

func checkf(name string, s Status, fix, format string, a ...any) Check {
	return Check{Name: name, Status: s, Detail: fmt.Sprintf(format, a...), Fix: fix}
}
