package doctor

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpuscout/gpuscout/internal/bench/workload"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// Facts is what doctor learned about the machine; the rules read only this.
type Facts struct {
	// SMIPath is nvidia-smi on PATH; empty when it is not installed.
	SMIPath string
	// SMI is nvidia-smi's report; nil when it could not be read.
	SMI *SMI
	// SMIError says why nvidia-smi gave no report (it failed, hung, or
	// printed something unreadable); empty when it answered or is absent.
	SMIError string
	// DevNodes are the /dev/nvidia[0-9]* device files present.
	DevNodes []string
	// Libraries are the vendor libraries found, in wantedLibraries order.
	Libraries []Library
	// Python is the python3 on PATH and the PyTorch it imports.
	Python Python
	// PyEnv is the virtualenv or conda environment active, and those
	// installed but not active.
	PyEnv PyEnv
	// CUDAVisibleDevices is $CUDA_VISIBLE_DEVICES; Set says whether it is
	// set at all (an empty value hides every GPU).
	CUDAVisibleDevices    string
	CUDAVisibleDevicesSet bool
	// Runtime is what the driver and NVML said when the GPUs were opened
	// as bench opens them; nil when not probed (no libcuda).
	Runtime *Runtime
	// Kernel is the kernel log's Xid errors; nil when dmesg is not there.
	Kernel *KernelLog
}

// PyEnv describes Python environments.
type PyEnv struct {
	VirtualEnv  string // $VIRTUAL_ENV
	CondaPrefix string // $CONDA_PREFIX
	CondaEnv    string // $CONDA_DEFAULT_ENV
	// Installed lists environments found in the usual places (conda under
	// /opt/conda or the home folder, the AWS Deep Learning AMI's venv at
	// /opt/pytorch), active or not.
	Installed []PyEnvironment
}

// Active says whether a virtualenv or conda environment is activated.
func (p PyEnv) Active() bool { return p.VirtualEnv != "" || p.CondaPrefix != "" }

// PyEnvironment is one installed Python environment.
type PyEnvironment struct {
	Path     string
	Kind     string // "conda", "venv" or "pyenv"
	Name     string // the conda env's name ("base" for the root)
	HasTorch bool   // a torch package is installed in it
	Activate string // the shell command that activates it
}

// envRoot is a place Python environments are commonly installed.
type envRoot struct {
	path, kind string
}

// envRoots lists the conda installations and venvs doctor knows of, that
// exist: conda at /opt/conda (the conda-based AWS Deep Learning AMIs) and in
// the home folder, their envs, /opt/pytorch (the venv of AWS's current
// "Deep Learning OSS Nvidia Driver AMI GPU PyTorch", whose release notes
// give python_location /opt/pytorch/bin/python), and the other places the
// GPU bindings search for NVIDIA's wheels (dl.PythonEnvs): /opt/*/.venv,
// ~/.venv, pyenv's versions.
func envRoots(e Env) []envRoot {
	var condas []string
	condas = append(condas, "/opt/conda")
	if h := e.Home(); h != "" {
		for _, d := range []string{"anaconda3", "miniconda3", "miniforge3"} {
			condas = append(condas, filepath.Join(h, d))
		}
	}
	var roots []envRoot
	for _, c := range condas {
		if len(globAll(e, filepath.Join(c, "bin", "conda"))) == 0 {
			continue
		}
		roots = append(roots, envRoot{c, "conda"})
		envs := globAll(e, filepath.Join(c, "envs", "*"))
		slices.Sort(envs)
		for _, env := range envs {
			roots = append(roots, envRoot{env, "conda"})
		}
	}
	if len(globAll(e, "/opt/pytorch/bin/activate")) > 0 {
		roots = append(roots, envRoot{"/opt/pytorch", "venv"})
	}
	penv := dl.PythonEnvs(dl.Env{Getenv: e.Getenv, Glob: e.Glob, Home: e.Home()})
	for _, p := range penv {
		switch {
		case p.Kind == "venv" && p.Path != "/opt/pytorch" && len(globAll(e, filepath.Join(p.Path, "bin", "activate"))) > 0:
			roots = append(roots, envRoot{p.Path, "venv"})
		case p.Kind == "pyenv" && len(globAll(e, filepath.Join(p.Path, "bin", "python3"))) > 0:
			roots = append(roots, envRoot{p.Path, "pyenv"})
		}
	}
	return roots
}

// Gather reads the machine. It never fails: what it cannot read is recorded
// in the facts for the rules to explain. progress, when not nil, hears the
// name of each step before it starts.
func Gather(ctx context.Context, e Env, progress func(step string)) Facts {
	if progress == nil {
		progress = func(string) {}
	}
	var f Facts
	progress("nvidia-smi")
	f.DevNodes = globAll(e, "/dev/nvidia[0-9]*")
	slices.Sort(f.DevNodes)
	f.CUDAVisibleDevices = e.Getenv("CUDA_VISIBLE_DEVICES")
	f.CUDAVisibleDevicesSet = f.CUDAVisibleDevices != "" || hasEnv(e, "CUDA_VISIBLE_DEVICES")
	if p, err := e.LookPath("nvidia-smi"); err == nil {
		f.SMIPath = p
		out, errOut, err := e.Run(ctx, smiTimeout, "nvidia-smi", "-q", "-x")
		switch {
		case err != nil:
			f.SMIError = runFailure("nvidia-smi -q -x", out, errOut, err)
		default:
			s, perr := ParseSMI(out)
			if perr != nil {
				f.SMIError = perr.Error()
			} else {
				f.SMI = &s
			}
		}
	}
	progress("CUDA libraries")
	f.Libraries = findLibraries(e)
	if f.library("libcuda").Loaded {
		progress("GPU runtime (opening each GPU as bench does)")
		f.Runtime = e.GPURuntime(ctx)
	}
	if kernelLogReader(e) {
		progress("kernel log (Xid errors)")
		f.Kernel = readKernelLog(ctx, e)
	}
	progress("Python environments")
	f.PyEnv = gatherPyEnv(e)
	progress("python3 and PyTorch (import torch can take a while)")
	f.Python = gatherPython(ctx, e)
	return f
}

// hasEnv tells an empty CUDA_VISIBLE_DEVICES from an unset one, where the
// environment can (an Env with LookupEnv).
func hasEnv(e Env, key string) bool {
	if l, ok := e.(interface {
		LookupEnv(string) (string, bool)
	}); ok {
		_, set := l.LookupEnv(key)
		return set
	}
	return false
}

// runFailure describes a program that did not answer: its own message
// first (nvidia-smi prints "NVIDIA-SMI has failed because ..." on stdout).
func runFailure(what string, out, errOut []byte, err error) string {
	msg := strings.TrimSpace(string(errOut))
	if msg == "" {
		msg = strings.TrimSpace(string(out))
	}
	if errors.Is(err, ErrTimeout) || msg == "" {
		msg = strings.TrimSpace(strings.Join([]string{err.Error(), msg}, ": "))
		msg = strings.TrimSuffix(msg, ":")
	}
	return what + ": " + excerpt(firstLines(msg, 3))
}

// firstLines keeps the first n lines of a message.
func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " ")
}

// dlName maps a library key to the GPU bindings' name for it.
func dlName(key string) string {
	switch key {
	case "libcuda":
		return "cuda"
	case "cublaslt":
		return string(dl.CUBLASLt)
	}
	return key
}

// findLibraries looks for each wanted library in the folders the GPU
// bindings search, reading versions from the file names there, and in the
// CUDA toolkits' stubs folders (to say when a stub is all there is).
func findLibraries(e Env) []Library {
	var libs []Library
	for _, w := range wantedLibraries {
		var files []string
		seenDir := map[string]bool{}
		for _, c := range e.Candidates(dlName(w.key)) {
			if !filepath.IsAbs(c) {
				continue // a loader name: its folders are searched below as well
			}
			d := filepath.Dir(c)
			if seenDir[d] {
				continue
			}
			seenDir[d] = true
			files = append(files, globAll(e, filepath.Join(d, w.stem+"*"))...)
		}
		for _, pat := range []string{"/usr/local/cuda*/targets/*/lib/stubs/", "/usr/local/cuda*/lib64/stubs/"} {
			files = append(files, globAll(e, pat+w.stem+"*")...)
		}
		l := pickLibrary(w, files)
		switch got, err := e.Load(dlName(w.key)); {
		case err == nil:
			l.Path, l.APIVersion, l.Loaded, l.Skipped = got.Path, got.Version, true, got.Skipped
			if v := soVersion(got.Path, w.stem); len(v) > 0 && (l.Version == "" || better(v, parseVersion(l.Version))) {
				l.Version = shortVersion(w.key, v)
			}
		case errors.Is(err, ErrDriverTooOld):
			l.TooNew, l.LoadError = true, excerpt(strings.TrimPrefix(err.Error(), ErrDriverTooOld.Error()+": "))
		case !errors.Is(err, ErrNotFound):
			l.LoadError = excerpt(err.Error())
		}
		libs = append(libs, l)
	}
	return libs
}

// gatherPyEnv reads the active environment and the installed ones.
func gatherPyEnv(e Env) PyEnv {
	p := PyEnv{VirtualEnv: e.Getenv("VIRTUAL_ENV"), CondaPrefix: e.Getenv("CONDA_PREFIX"), CondaEnv: e.Getenv("CONDA_DEFAULT_ENV")}
	var condaBase string
	for _, r := range envRoots(e) {
		env := PyEnvironment{Path: r.path, Kind: r.kind}
		env.HasTorch = len(globAll(e, filepath.Join(r.path, "lib", "python3*", "site-packages", "torch", "__init__.py"))) > 0
		switch {
		case r.kind == "venv":
			env.Activate = "source " + filepath.Join(r.path, "bin", "activate")
		case r.kind == "pyenv":
			env.Name = filepath.Base(r.path)
			env.Activate = "pyenv shell " + env.Name
			if filepath.Base(filepath.Dir(r.path)) == "envs" {
				env.Activate = "pyenv activate " + env.Name
			}
		case filepath.Base(filepath.Dir(r.path)) == "envs" && condaBase != "":
			env.Name = filepath.Base(r.path)
			env.Activate = "source " + filepath.Join(condaBase, "bin", "activate") + " " + env.Name
		default:
			condaBase = r.path
			env.Name = "base"
			env.Activate = "source " + filepath.Join(r.path, "bin", "activate")
		}
		p.Installed = append(p.Installed, env)
	}
	return p
}

// gatherPython finds the interpreter gpuscout runs PyTorch with (the
// workloads' choice: GPUSCOUT_PYTHON, else python3 on PATH) and runs the
// PyTorch probe in it.
func gatherPython(ctx context.Context, e Env) Python {
	path, err := workload.Python(e.Getenv, e.LookPath)
	if err != nil {
		return Python{}
	}
	out, errOut, err := e.Run(ctx, pythonTimeout, path, "-c", torchProbe)
	if err != nil && len(out) == 0 {
		return Python{Path: path, ProbeError: runFailure(path, out, errOut, err)}
	}
	p, perr := ParseTorchProbe(out)
	if perr != nil {
		msg := perr.Error()
		if err != nil {
			msg = runFailure(path, out, errOut, err)
		}
		return Python{Path: path, ProbeError: msg}
	}
	p.Path = path
	return p
}
