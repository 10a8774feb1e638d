package dl

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Lib names a vendor library gpuscout knows how to find.
type Lib string

// The libraries gpuscout loads. NVML and the CUDA driver come with the
// driver; the others come with a CUDA toolkit, a distribution package or a
// PyTorch/NVIDIA pip wheel.
const (
	NVML     Lib = "nvml"     // libnvidia-ml.so.1
	CUDA     Lib = "cuda"     // libcuda.so.1, the driver API
	CUBLAS   Lib = "cublas"   // libcublas.so.13 or .12 (libcublasLt loaded first)
	CUBLASLt Lib = "cublasLt" // libcublasLt.so.13 or .12
	NCCL     Lib = "nccl"     // libnccl.so.2
	CUDNN    Lib = "cudnn"    // libcudnn.so.9 or .8
	CUDART   Lib = "cudart"   // libcudart.so.13 or .12, the runtime API
)

// spec is where one library lives.
type spec struct {
	sonames []string // loader names, newest first
	// driver libraries come with the kernel driver, not a toolkit or wheel.
	driver bool
	// wheel lists the folders under site-packages/nvidia that hold it.
	wheel []string
	// companion is the library loaded from the same folder first, with the
	// same version suffix (libcublasLt before libcublas).
	companion Lib
}

var specs = map[Lib]spec{
	NVML:     {sonames: []string{"libnvidia-ml.so.1"}, driver: true},
	CUDA:     {sonames: []string{"libcuda.so.1"}, driver: true},
	CUBLAS:   {sonames: []string{"libcublas.so.13", "libcublas.so.12"}, wheel: []string{"cu13", "cublas"}, companion: CUBLASLt},
	CUBLASLt: {sonames: []string{"libcublasLt.so.13", "libcublasLt.so.12"}, wheel: []string{"cu13", "cublas"}},
	NCCL:     {sonames: []string{"libnccl.so.2"}, wheel: []string{"nccl", "cu13"}},
	CUDNN:    {sonames: []string{"libcudnn.so.9", "libcudnn.so.8"}, wheel: []string{"cudnn", "cu13"}},
	CUDART:   {sonames: []string{"libcudart.so.13", "libcudart.so.12"}, wheel: []string{"cu13", "cuda_runtime"}},
}

// Libs lists the known libraries in a stable order (driver first).
func Libs() []Lib {
	return []Lib{NVML, CUDA, CUBLAS, CUBLASLt, NCCL, CUDNN, CUDART}
}

// Env is what Candidates reads from the system, injected so tests need no
// real files. SystemEnv is the real one.
type Env struct {
	Getenv func(key string) string
	// Glob expands a filepath.Glob pattern.
	Glob func(pattern string) ([]string, error)
	Home string // the user's home folder, "" when unknown
	// Arch is the machine name used in library folders: "x86_64" or
	// "aarch64"; "" means this process's.
	Arch string
	// NoLoaderNames leaves out the bare loader names (dlopen's own search),
	// so only folders are searched: for tests with fake libraries.
	NoLoaderNames bool
	// Dirs, when not nil, are the only folders searched (no LD_LIBRARY_PATH,
	// driver, toolkit or Python folders): for tests and an explicit
	// library folder.
	Dirs []string
	// Root is the folder the well-known system folders are under
	// (/usr/local/cuda, /opt/conda, /opt/pytorch, ...); "" means "/". Tests
	// point it at a temporary tree that stands in for a machine. Folders
	// named by variables (LD_LIBRARY_PATH, VIRTUAL_ENV, ...) and those under
	// Home are taken as they are.
	Root string
	// DriverCUDA is the CUDA version the driver supports, as
	// cuDriverGetVersion gives it (12040 for 12.4); 0 when unknown. When
	// set, Open skips the candidates built for a newer CUDA major release
	// (libcublas.so.13 on a CUDA 12 driver), saying why in Tried: they load,
	// but fail at their first call.
	DriverCUDA int
}

// sys places a well-known absolute folder under Root.
func (e Env) sys(p string) string {
	if e.Root == "" {
		return p
	}
	return filepath.Join(e.Root, p)
}

// SystemEnv reads the process environment and the real file system.
func SystemEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{Getenv: os.Getenv, Glob: filepath.Glob, Home: home}
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) glob(pattern string) []string {
	if e.Glob == nil {
		return nil
	}
	m, err := e.Glob(pattern)
	if err != nil {
		return nil
	}
	return m
}

func (e Env) arch() string {
	if e.Arch != "" {
		return e.Arch
	}
	if runtime.GOARCH == "arm64" {
		return "aarch64"
	}
	return "x86_64"
}

// Candidates returns, in the order Open tries them, the files that may hold
// lib: its loader names (newest soname first), then each soname in
// LD_LIBRARY_PATH's folders, the driver folders (/usr/local/nvidia/lib64, the
// distribution's library folder), CUDA toolkit folders (/usr/local/cuda
// first, then /usr/local/cuda-X.Y newest first), conda library folders and
// PyTorch/NVIDIA pip wheel folders (site-packages/nvidia/<pkg>/lib) of the
// Python environments found (PythonEnvs: the active one, conda, the Deep
// Learning AMI's /opt/pytorch, /opt/*/.venv, ~/.venv, pyenv's versions,
// ~/.local, the system ones), newest Python first. Folders named stubs are
// never candidates: they hold link-time stubs that fail at run time. An
// unknown lib has none. Candidates does not look at DriverCUDA: Open does.
func Candidates(lib Lib, env Env) []string {
	sp, ok := specs[lib]
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" || seen[p] || isStub(p) {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	if !env.NoLoaderNames {
		for _, so := range sp.sonames {
			add(so)
		}
	}
	for _, dir := range searchDirs(sp, env) {
		for _, so := range sp.sonames {
			add(filepath.Join(dir, so))
		}
	}
	return out
}

// searchDirs lists the folders to look in for a library, in order.
func searchDirs(sp spec, env Env) []string {
	if env.Dirs != nil {
		return env.Dirs
	}
	var dirs []string
	for d := range strings.SplitSeq(env.getenv("LD_LIBRARY_PATH"), ":") {
		if d != "" && filepath.IsAbs(d) {
			dirs = append(dirs, filepath.Clean(d))
		}
	}
	arch := env.arch()
	dirs = append(dirs, env.sys("/usr/local/nvidia/lib64"), env.sys("/usr/lib/"+arch+"-linux-gnu"), env.sys("/usr/lib64"))
	if sp.driver {
		return dirs
	}
	target := "targets/" + arch + "-linux/lib"
	if arch == "aarch64" {
		target = "targets/sbsa-linux/lib"
	}
	for _, root := range toolkitRoots(env) {
		dirs = append(dirs, filepath.Join(root, target), filepath.Join(root, "lib64"))
	}
	for _, pe := range PythonEnvs(env) {
		p := pe.Path
		dirs = append(dirs, filepath.Join(p, "lib")) // conda packages put .so files here
		for _, site := range sitePackages(p, env) {
			for _, w := range sp.wheel {
				dirs = append(dirs, filepath.Join(site, "nvidia", w, "lib"))
			}
			dirs = append(dirs, filepath.Join(site, "torch", "lib")) // older wheels bundle them
		}
	}
	return dirs
}

// toolkitRoots: $CUDA_HOME/$CUDA_PATH, /usr/local/cuda (the configured
// default), then /usr/local/cuda-X.Y, newest first.
func toolkitRoots(env Env) []string {
	var roots []string
	for _, k := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := env.getenv(k); v != "" && filepath.IsAbs(v) {
			roots = append(roots, filepath.Clean(v))
		}
	}
	roots = append(roots, env.sys("/usr/local/cuda"))
	var versioned []string
	for _, m := range env.glob(env.sys("/usr/local/cuda-*")) {
		if _, ok := parseVersion(strings.TrimPrefix(filepath.Base(m), "cuda-")); ok {
			versioned = append(versioned, m)
		}
	}
	sortNewestFirst(versioned, func(p string) string { return strings.TrimPrefix(filepath.Base(p), "cuda-") })
	return append(roots, versioned...)
}

// sitePackages expands a prefix's lib/python3*/{site,dist}-packages, newest
// Python first; /usr also has Debian's lib/python3/dist-packages.
func sitePackages(prefix string, env Env) []string {
	var out []string
	for _, kind := range []string{"site-packages", "dist-packages"} {
		m := env.glob(filepath.Join(prefix, "lib", "python3*", kind))
		sortNewestFirst(m, func(s string) string {
			return strings.TrimPrefix(filepath.Base(filepath.Dir(s)), "python")
		})
		out = append(out, m...)
	}
	if prefix == env.sys("/usr") {
		out = append(out, env.sys("/usr/lib/python3/dist-packages"))
	}
	return out
}

func isStub(p string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "stubs")
}

// parseVersion reads "13", "12.4" or "3.11" into numbers.
func parseVersion(s string) ([]int, bool) {
	if s == "" {
		return nil, false
	}
	var v []int
	for f := range strings.SplitSeq(s, ".") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

// sortNewestFirst orders paths by the version key returns, newest first;
// unparsable keys go last, in name order.
func sortNewestFirst(paths []string, key func(string) string) {
	slices.SortStableFunc(paths, func(a, b string) int {
		va, oka := parseVersion(key(a))
		vb, okb := parseVersion(key(b))
		switch {
		case oka && !okb:
			return -1
		case !oka && okb:
			return 1
		case !oka && !okb:
			return strings.Compare(a, b)
		}
		if c := slices.Compare(vb, va); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}
