package doctor

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Library is a vendor library doctor looked for and what it found.
type Library struct {
	Key     string   // "cublas": the check's name
	Name    string   // what a user knows it as: "cuBLAS"
	Path    string   // the best file found; empty when none
	Version string   // from the file name: libcublas.so.13.1.0.3 → "13.1"; empty when the name has none
	Stubs   []string // files found only in stubs/ folders (link-time stubs that fail at run time)
	// Loaded: the GPU bindings' loader opened it (Path is then the file it
	// loaded); APIVersion is the version the library itself reports.
	Loaded     bool
	APIVersion string
	// LoadError is the loader's message when files exist but none loads.
	LoadError string
	// TooNew: the files found are all built for a newer CUDA release than
	// the driver supports (LoadError says which and why).
	TooNew bool
	// Skipped are the files passed over as too new for the driver before
	// the one that loaded.
	Skipped []string
}

// ShownVersion is the version to report: the library's own answer where it
// gave one, else the file name's. libcuda reports the driver API version,
// so its file name (the driver version) stays.
func (l Library) ShownVersion() string {
	if l.APIVersion != "" && l.Key != "libcuda" {
		return l.APIVersion
	}
	return l.Version
}

// Found reports whether a usable (non-stub) file was found.
func (l Library) Found() bool { return l.Path != "" }

// wantedLibrary is a library doctor looks for: the loader name and the file
// name stem its versions share.
type wantedLibrary struct {
	key, name, stem string
}

// wantedLibraries are the libraries doctor reports, in report order.
var wantedLibraries = []wantedLibrary{
	{"libcuda", "CUDA driver (libcuda)", "libcuda.so"},
	{"cudart", "CUDA runtime (cudart)", "libcudart.so"},
	{"cublas", "cuBLAS", "libcublas.so"},
	// cuBLASLt ships with cuBLAS; bench's FP8 products run through it.
	{"cublaslt", "cuBLASLt", "libcublasLt.so"},
	{"cudnn", "cuDNN", "libcudnn.so"},
	{"nccl", "NCCL", "libnccl.so"},
}

// soVersion reads the version a shared library's file name carries after
// ".so.": libcublas.so.13.1.0.3 → [13 1 0 3]; nil when there is none.
func soVersion(file, stem string) []int {
	rest, ok := strings.CutPrefix(filepath.Base(file), stem)
	if !ok || rest == "" {
		return nil
	}
	rest, ok = strings.CutPrefix(rest, ".")
	if !ok {
		return nil
	}
	var v []int
	for _, p := range strings.Split(rest, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 1_000_000 {
			return nil
		}
		v = append(v, n)
	}
	if len(v) > 6 {
		return nil
	}
	return v
}

// shortVersion writes major.minor (or major alone when that is all the name
// says): [13 1 0 3] → "13.1". libcuda's file name is the driver version
// (libcuda.so.580.159.04), written in full.
func shortVersion(key string, v []int) string {
	if len(v) == 0 {
		return ""
	}
	n := min(len(v), 2)
	if key == "libcuda" {
		n = len(v)
	}
	parts := make([]string, n)
	for i := range n {
		parts[i] = strconv.Itoa(v[i])
		if key == "libcuda" && i == 2 && v[i] < 10 {
			parts[i] = "0" + parts[i] // 580.159.04 keeps its leading zero
		}
	}
	return strings.Join(parts, ".")
}

// inStubs says whether a path lies in a stubs folder.
func inStubs(path string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "stubs")
}

// pickLibrary chooses, among the files found for one library, the one with
// the longest (most precise) version, preferring the first folder searched
// when versions tie; stubs are set apart.
func pickLibrary(w wantedLibrary, files []string) Library {
	l := Library{Key: w.key, Name: w.name}
	var best []int
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		v := soVersion(f, w.stem)
		if v == nil && filepath.Base(f) != w.stem {
			continue // libcublasLt.so.13 is not libcublas
		}
		if inStubs(f) {
			l.Stubs = append(l.Stubs, f)
			continue
		}
		if l.Path == "" || better(v, best) {
			l.Path, best = f, v
		}
	}
	l.Version = shortVersion(w.key, best)
	return l
}

// better says whether version a says more than b, or is newer at the same
// precision.
func better(a, b []int) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return slices.Compare(a, b) > 0
}
