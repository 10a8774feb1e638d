package cuda

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// pickable is a bound library a libPicker chooses among (*blas, *blasLt).
type pickable interface {
	comparable
	library() *dl.Library
	describe() string
	builtFor() int // the CUDA major release it is built for; 0 when unknown
}

// pickerFixes are what a libPicker's error tells to do when no library
// starts: none found, one found that does not start, or only ones built
// for a newer CUDA than the driver's (tooNew, given the driver's CUDA
// major release).
type pickerFixes struct {
	missing, noStart string
	tooNew           func(major int) string
}

// libPicker chooses the one library of a kind (cuBLAS, cuBLASLt) that the
// GPUs use. Candidates built for a newer CUDA release than the driver's
// are skipped before they load (dl.Env's DriverCUDA); one that loads but
// does not start (its handle's creation fails) is dropped for the next
// candidate, so a working older soname on disk is still found. Nothing is
// swallowed: every library passed over is remembered with why.
type libPicker[T pickable] struct {
	lib   dl.Lib
	name  string // "cuBLAS"
	env   dl.Env
	cands []string
	bind  func(*dl.Library) (T, error)
	fixes pickerFixes

	mu      sync.Mutex
	started bool
	cur     T
	openErr error    // why no further library loaded
	notes   []string // the libraries passed over, and why
	// tooNew: a library was passed over for being built for a newer CUDA
	// than the driver's.
	tooNew bool
}

// prefer puts path first among the candidates, before the first library
// is loaded: the cuBLASLt beside the cuBLAS in use. "" changes nothing.
func (p *libPicker[T]) prefer(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || path == "" {
		return
	}
	p.cands = append([]string{path}, slices.DeleteFunc(p.cands, func(c string) bool { return c == path })...)
}

// current is the library to try, the zero T when none is left.
func (p *libPicker[T]) current() T {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		p.started = true
		p.load(0)
	}
	return p.cur
}

// drop records that b could not start (why) and moves on to the next
// candidate after it, unless another GPU already did.
func (p *libPicker[T]) drop(b T, why error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != b {
		return
	}
	p.notes = append(p.notes, fmt.Sprintf("%s could not start: %v", b.describe(), why))
	if !dl.Runs(b.builtFor(), p.env.DriverCUDA) {
		p.tooNew = true
	}
	next := len(p.cands)
	for i, c := range p.cands {
		if c == b.library().Candidate {
			next = i + 1
			break
		}
	}
	p.load(next)
}

// load opens the first candidate from index i on that loads and binds.
func (p *libPicker[T]) load(i int) {
	var zero T
	p.cur = zero
	for i <= len(p.cands) {
		lib, err := dl.OpenFrom(p.lib, p.env, p.cands[i:])
		if lib != nil {
			for _, a := range lib.Tried {
				if a.TooOld != nil {
					p.notes = append(p.notes, fmt.Sprintf("%s skipped: %s", a.Path, a.Err))
					p.tooNew = true
				}
			}
		}
		if err != nil {
			var oe *dl.OpenError
			if errors.As(err, &oe) {
				for _, a := range oe.TooOld() {
					p.notes = append(p.notes, fmt.Sprintf("%s skipped: %s", a.Path, a.Error()))
					p.tooNew = true
				}
			}
			p.openErr = err
			return
		}
		b, err := p.bind(lib)
		if err == nil {
			p.cur = b
			return
		}
		p.notes = append(p.notes, fmt.Sprintf("%s: %v", lib.Path, err))
		k := slices.Index(p.cands[i:], lib.Candidate)
		if k < 0 {
			return
		}
		i += k + 1
	}
}

// skipped lists the libraries passed over so far.
func (p *libPicker[T]) skipped() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.notes)
}

// noneError says why no library of the kind works on this GPU, with the
// fix. It matches dl.ErrNotFound when none was found at all.
func (p *libPicker[T]) noneError(driverCUDA int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	parts := slices.Clone(p.notes)
	fix := p.fixes.missing
	if len(p.notes) > 0 && !p.tooNew {
		fix = p.fixes.noStart
	}
	if p.tooNew && driverCUDA > 0 {
		major := driverCUDA / 1000
		fix = fmt.Sprintf("this driver supports CUDA %s: %s, or upgrade the NVIDIA driver (CUDA 13 needs ≥ %s; source: %s)",
			dl.CUDAVersion(driverCUDA), p.fixes.tooNew(major), dl.MinDriver(13), dl.CompatSource)
	}
	msg := "no " + p.name + " could start"
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, "; ")
	}
	if p.openErr != nil && len(p.notes) == 0 {
		return fmt.Errorf("%w; fix: %s", p.openErr, fix)
	}
	if p.openErr != nil {
		return fmt.Errorf("%s; no other %s found (%w); fix: %s", msg, p.name, p.openErr, fix)
	}
	return fmt.Errorf("%s; fix: %s", msg, fix)
}
