package dl

import (
	"fmt"
	"strings"

	"github.com/ebitengine/purego"
)

// Symbol is one entry of a binding table: a C function looked up under the
// first of Names the library exports, bound to the Go function variable Fn
// points to (a *func(...) with the C signature's Go equivalents).
type Symbol struct {
	Names []string // alternates, preferred first: {"cuEventElapsedTime_v2", "cuEventElapsedTime"}
	Fn    any
	// Optional symbols may be absent: Fn's variable is left nil and the
	// caller treats the feature as unsupported.
	Optional bool
}

// Sym is a required Symbol.
func Sym(fn any, names ...string) Symbol { return Symbol{Names: names, Fn: fn} }

// OptSym is an optional Symbol.
func OptSym(fn any, names ...string) Symbol { return Symbol{Names: names, Fn: fn, Optional: true} }

// Bound says what Bind found: for each symbol (by its first name), the name
// it was bound under, and the optional ones that are absent.
type Bound struct {
	Names           map[string]string
	MissingOptional []string
}

// MissingError lists the required symbols a library lacks; each entry joins
// the alternates tried with "|".
type MissingError struct {
	Lib     Lib
	Path    string
	Missing []string
}

// Error names the library and every missing symbol.
func (e *MissingError) Error() string {
	return fmt.Sprintf("%s (%s) lacks required symbols: %s", e.Lib, e.Path, strings.Join(e.Missing, ", "))
}

// Bind looks up every symbol of table with dlsym, one by one, and binds the
// ones found (purego.RegisterFunc; never RegisterLibFunc, which panics on a
// missing symbol). Every symbol found is bound even when others are missing;
// the error, a *MissingError, names every missing required one.
func (l *Library) Bind(table []Symbol) (Bound, error) {
	b := Bound{Names: map[string]string{}}
	var missing []string
	for _, s := range table {
		if len(s.Names) == 0 {
			return b, fmt.Errorf("%s: a binding table entry has no name", l.Lib)
		}
		name, addr := "", uintptr(0)
		for _, n := range s.Names {
			if a, err := purego.Dlsym(l.handle, n); err == nil && a != 0 {
				name, addr = n, a
				break
			}
		}
		if addr == 0 {
			if s.Optional {
				b.MissingOptional = append(b.MissingOptional, strings.Join(s.Names, "|"))
			} else {
				missing = append(missing, strings.Join(s.Names, "|"))
			}
			continue
		}
		if err := register(s.Fn, addr); err != nil {
			return b, fmt.Errorf("%s: binding %s: %v", l.Lib, name, err)
		}
		b.Names[s.Names[0]] = name
	}
	if len(missing) > 0 {
		return b, &MissingError{Lib: l.Lib, Path: l.Path, Missing: missing}
	}
	return b, nil
}

// register turns RegisterFunc's panic on an unusable function type into an
// error (a programming error, but never a crash).
func register(fn any, addr uintptr) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	purego.RegisterFunc(fn, addr)
	return nil
}

// Has reports whether the library exports name.
func (l *Library) Has(name string) bool {
	a, err := purego.Dlsym(l.handle, name)
	return err == nil && a != 0
}
