// Package dl finds and opens NVIDIA's vendor libraries (NVML, the CUDA
// driver, cuBLAS, NCCL, cuDNN) at run time with purego, so gpuscout builds
// with CGO_ENABLED=0 and runs on machines without them. It knows where the
// libraries live (Candidates), opens the first that loads (Open) and binds
// symbols one by one, with alternate names, reporting a missing one by name
// instead of panicking (Bind). The bindings in internal/gpu/* use it.
package dl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Library is an opened vendor library.
type Library struct {
	Lib Lib
	// Path is the file that loaded, with symlinks resolved where possible
	// (/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04).
	Path string
	// Candidate is the name or file Open passed to dlopen.
	Candidate string
	// Companions are files loaded first from the same folder (libcublasLt
	// for libcublas).
	Companions []string
	// Tried lists the candidates that did not load, in order.
	Tried  []Attempt
	handle uintptr
}

// Attempt is one candidate that did not load and why.
type Attempt struct {
	Path string
	Err  string // dlopen's message, "not present", or why it was skipped
	// TooOld is set when the candidate was skipped because it is built for
	// a newer CUDA major release than the driver supports (Env.DriverCUDA).
	TooOld *DriverTooOld
}

// OpenError says that no candidate of a library loaded.
type OpenError struct {
	Lib   Lib
	Tried []Attempt
}

// Error lists the candidates that failed to load and why, and how many
// were not present.
func (e *OpenError) Error() string {
	var failed []string
	absent := 0
	for _, a := range e.Tried {
		if a.Err == notPresent {
			absent++
			continue
		}
		failed = append(failed, a.Path+": "+a.Err)
	}
	msg := fmt.Sprintf("%s: no library loaded (%d candidates", e.Lib, len(e.Tried))
	if absent > 0 {
		msg += fmt.Sprintf(", %d not present", absent)
	}
	msg += ")"
	if len(failed) > 0 {
		msg += "; " + strings.Join(failed, "; ")
	}
	return msg
}

const notPresent = "not present"

// ErrNotFound is what an OpenError matches with errors.Is: the library is not
// on this machine (or none of its files loads).
var ErrNotFound = errors.New("library not found")

// Is makes errors.Is(err, ErrNotFound) true for an OpenError.
func (e *OpenError) Is(target error) bool { return target == ErrNotFound }

// TooOld lists the candidates skipped because the driver is too old for
// them (present on the machine, but built for a newer CUDA major release).
func (e *OpenError) TooOld() []*DriverTooOld {
	var out []*DriverTooOld
	for _, a := range e.Tried {
		if a.TooOld != nil {
			out = append(out, a.TooOld)
		}
	}
	return out
}

// Open loads lib from the first of its Candidates (SystemEnv) that dlopen
// accepts.
func Open(lib Lib) (*Library, error) { return OpenEnv(lib, SystemEnv()) }

// OpenEnv is Open with an injected environment. With env.DriverCUDA set,
// a candidate built for a newer CUDA major release than the driver's
// (BuiltFor) is skipped, recorded in Tried with the reason.
func OpenEnv(lib Lib, env Env) (*Library, error) {
	return OpenFrom(lib, env, Candidates(lib, env))
}

// OpenFrom is OpenEnv over a given list of candidates (a suffix of
// Candidates' list, to go on after one that loaded but did not work).
func OpenFrom(lib Lib, env Env, cands []string) (*Library, error) {
	sp, ok := specs[lib]
	if !ok {
		return nil, fmt.Errorf("library %q is not one of %s", lib, libNames())
	}
	var tried []Attempt
	for _, c := range cands {
		abs := filepath.IsAbs(c)
		if abs {
			if _, err := os.Stat(c); err != nil {
				tried = append(tried, Attempt{Path: c, Err: notPresent})
				continue
			}
		}
		if built := BuiltFor(lib, c); !Runs(built, env.DriverCUDA) {
			// A loader name may not be on this machine at all: ask the
			// loader before calling it too new.
			if abs || loaderHas(c) {
				old := &DriverTooOld{Lib: lib, Path: c, Built: built, DriverCUDA: env.DriverCUDA}
				tried = append(tried, Attempt{Path: c, Err: old.Error(), TooOld: old})
			} else {
				tried = append(tried, Attempt{Path: c, Err: notPresent})
			}
			continue
		}
		var comps []string
		if sp.companion != "" {
			comps = openCompanion(lib, sp.companion, c)
		}
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			msg := err.Error()
			if !abs && strings.Contains(msg, "No such file") {
				msg = notPresent
			}
			tried = append(tried, Attempt{Path: c, Err: msg})
			continue
		}
		path := loadedPath(h, c)
		if isStub(path) {
			// The loader's own search (LD_LIBRARY_PATH) or a symlink led to a
			// link-time stub, which fails at run time (CUDA_ERROR_STUB_LIBRARY).
			purego.Dlclose(h)
			tried = append(tried, Attempt{Path: c, Err: "is a link-time stub (" + path + "), not the library"})
			continue
		}
		return &Library{Lib: lib, Path: path, Candidate: c, Companions: comps, Tried: tried, handle: h}, nil
	}
	return nil, &OpenError{Lib: lib, Tried: tried}
}

// openCompanion loads the companion with the same version suffix from the
// same folder as cand (or by loader name), RTLD_GLOBAL, so cand resolves its
// symbols there rather than elsewhere. A failure is not an error: cand may
// find its own.
func openCompanion(lib, comp Lib, cand string) []string {
	base := filepath.Base(cand)
	prefix := "lib" + string(lib) + ".so"
	if !strings.HasPrefix(base, prefix) {
		return nil
	}
	name := "lib" + string(comp) + ".so" + strings.TrimPrefix(base, prefix)
	if filepath.IsAbs(cand) {
		name = filepath.Join(filepath.Dir(cand), name)
		if _, err := os.Stat(name); err != nil {
			return nil
		}
	}
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil
	}
	return []string{loadedPath(h, name)}
}

// loaderHas says whether the loader finds a library by name (it is opened
// and closed again without running anything of it that matters).
func loaderHas(name string) bool {
	h, err := purego.Dlopen(name, purego.RTLD_LAZY|purego.RTLD_LOCAL)
	if err != nil {
		return false
	}
	purego.Dlclose(h)
	return true
}

func libNames() string {
	var s []string
	for _, l := range Libs() {
		s = append(s, string(l))
	}
	return strings.Join(s, ", ")
}

// Handle is the dlopen handle, for purego.Dlsym.
func (l *Library) Handle() uintptr { return l.handle }

// Close unloads the library. Libraries with live state (an initialised NVML
// or CUDA context) must be shut down first.
func (l *Library) Close() error {
	if l == nil || l.handle == 0 {
		return nil
	}
	err := purego.Dlclose(l.handle)
	l.handle = 0
	return err
}

var (
	dlinfoOnce sync.Once
	dlinfoFn   uintptr
)

// loadedPath asks the loader which file a handle is (dlinfo's link map
// names it) and resolves symlinks; it falls back to the candidate.
func loadedPath(h uintptr, cand string) string {
	dlinfoOnce.Do(func() {
		dlinfoFn, _ = purego.Dlsym(purego.RTLD_DEFAULT, "dlinfo")
	})
	name := ""
	if dlinfoFn != 0 {
		const rtldDILinkmap = 2
		var lm *linkMap
		r, _, _ := purego.SyscallN(dlinfoFn, h, rtldDILinkmap, uintptr(unsafe.Pointer(&lm)))
		if r == 0 && lm != nil {
			name = goString(lm.name)
		}
	}
	if name == "" {
		name = cand
	}
	if real, err := filepath.EvalSymlinks(name); err == nil {
		return real
	}
	return name
}

// linkMap is the head of glibc's struct link_map.
type linkMap struct {
	addr uintptr // l_addr
	name *byte   // l_name
}

// goString copies a NUL-terminated C string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
		if n > 4096 {
			break
		}
	}
	return string(unsafe.Slice(p, n))
}
