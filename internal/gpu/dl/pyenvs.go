package dl

import (
	"path/filepath"
	"slices"
	"strings"
)

// PythonEnv is a Python environment whose site-packages may hold NVIDIA's
// pip wheels (nvidia/cu13/lib, nvidia/cublas/lib, ...) or whose lib folder
// may hold conda's CUDA packages.
type PythonEnv struct {
	Path string
	// Kind says where it was found: "active" ($VIRTUAL_ENV, $CONDA_PREFIX),
	// "conda", "venv" (installed, not active), "pyenv", "user" (~/.local) or
	// "system" (/usr/local, /usr).
	Kind string
}

// PythonEnvs lists the Python environments whose libraries gpuscout
// searches, in search order: the active virtualenv and conda env; conda's
// base and named envs (/opt/conda, ~/miniconda3, ~/anaconda3,
// ~/miniforge3); the venvs that images install but do not activate —
// /opt/pytorch (the AWS Deep Learning AMI's PyTorch venv), /opt/*/.venv and
// /opt/*/venv, ~/.venv; pyenv's versions ($PYENV_ROOT or ~/.pyenv, newest
// first, and their pyenv-virtualenv envs); then ~/.local, /usr/local and
// /usr. A driver plus pip-installed PyTorch, without a CUDA toolkit, has its
// cuBLAS and NCCL only in such a venv. Folders that do not exist are listed
// too (Candidates' files there are simply not present), except those found
// by a wildcard.
func PythonEnvs(env Env) []PythonEnv {
	var out []PythonEnv
	seen := map[string]bool{}
	add := func(kind string, paths ...string) {
		for _, p := range paths {
			if p == "" || !filepath.IsAbs(p) {
				continue
			}
			p = filepath.Clean(p)
			if seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, PythonEnv{Path: p, Kind: kind})
		}
	}
	for _, k := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		add("active", env.getenv(k))
	}
	conda := []string{env.sys("/opt/conda")}
	if env.Home != "" {
		for _, d := range []string{"miniconda3", "anaconda3", "miniforge3"} {
			conda = append(conda, filepath.Join(env.Home, d))
		}
	}
	for _, c := range conda {
		add("conda", c)
		envs := env.glob(filepath.Join(c, "envs", "*"))
		slices.Sort(envs)
		add("conda", envs...)
	}
	add("venv", env.sys("/opt/pytorch"))
	for _, name := range []string{".venv", "venv"} {
		m := env.glob(env.sys(filepath.Join("/opt", "*", name)))
		slices.Sort(m)
		add("venv", m...)
	}
	if env.Home != "" {
		add("venv", filepath.Join(env.Home, ".venv"))
	}
	for _, v := range pyenvVersions(env) {
		add("pyenv", v)
	}
	if env.Home != "" {
		add("user", filepath.Join(env.Home, ".local"))
	}
	add("system", env.sys("/usr/local"), env.sys("/usr"))
	return out
}

// pyenvVersions lists $PYENV_ROOT/versions/* (or ~/.pyenv's), newest
// version first, each followed by its pyenv-virtualenv envs.
func pyenvVersions(env Env) []string {
	root := env.getenv("PYENV_ROOT")
	if root == "" || !filepath.IsAbs(root) {
		if env.Home == "" {
			return nil
		}
		root = filepath.Join(env.Home, ".pyenv")
	}
	vs := env.glob(filepath.Join(root, "versions", "*"))
	sortNewestFirst(vs, func(p string) string {
		// 3.12.4 and 3.13.0t (free-threaded) sort as versions; miniforge3-24.3.0-0 and the like after them.
		return strings.TrimSuffix(filepath.Base(p), "t")
	})
	var out []string
	for _, v := range vs {
		out = append(out, v)
		envs := env.glob(filepath.Join(v, "envs", "*"))
		slices.Sort(envs)
		out = append(out, envs...)
	}
	return out
}
