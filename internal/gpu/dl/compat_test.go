package dl

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Environments a GPU image installs but does not activate: the AWS Deep
// Learning AMI's /opt/pytorch, a project's /opt/<app>/.venv, ~/.venv, pyenv
// versions. A node with a driver and pip-installed PyTorch but no toolkit
// has its only cuBLAS and NCCL there. (Today's search misses all four.)
func TestCandidatesInstalledPythonEnvs(t *testing.T) {
	env := fakeEnv(map[string]string{"VIRTUAL_ENV": "/srv/active"},
		"/srv/active/lib/python3.12/site-packages",
		"/opt/pytorch/lib/python3.12/site-packages",
		"/opt/vllm/.venv", "/opt/vllm/.venv/lib/python3.11/site-packages",
		"/home/u/.venv/lib/python3.10/site-packages",
		"/home/u/.pyenv/versions/3.9.18", "/home/u/.pyenv/versions/3.9.18/lib/python3.9/site-packages",
		"/home/u/.pyenv/versions/3.12.4", "/home/u/.pyenv/versions/3.12.4/lib/python3.12/site-packages",
		"/home/u/.pyenv/versions/3.12.4/envs/train", "/home/u/.pyenv/versions/3.12.4/envs/train/lib/python3.12/site-packages",
	)
	for _, tc := range []struct {
		lib  Lib
		want []string // in this order
	}{
		{CUBLAS, []string{
			"/srv/active/lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.12",
			"/opt/pytorch/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13",
			"/opt/pytorch/lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.12",
			"/opt/vllm/.venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12",
			"/home/u/.venv/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.12",
			"/home/u/.pyenv/versions/3.12.4/lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.12",
			"/home/u/.pyenv/versions/3.12.4/envs/train/lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.12",
			"/home/u/.pyenv/versions/3.9.18/lib/python3.9/site-packages/nvidia/cublas/lib/libcublas.so.12",
			"/usr/lib/python3/dist-packages/nvidia/cublas/lib/libcublas.so.12",
		}},
		{NCCL, []string{
			"/opt/pytorch/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
			"/opt/vllm/.venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2",
			"/home/u/.venv/lib/python3.10/site-packages/nvidia/nccl/lib/libnccl.so.2",
			"/home/u/.pyenv/versions/3.12.4/lib/python3.12/site-packages/nvidia/cu13/lib/libnccl.so.2",
		}},
	} {
		got := Candidates(tc.lib, env)
		last := -1
		for _, w := range tc.want {
			i := slices.Index(got, w)
			switch {
			case i < 0:
				t.Errorf("%s: no candidate %s", tc.lib, w)
			case i <= last:
				t.Errorf("%s: candidate %s at %d, before the one listed above it", tc.lib, w, i)
			}
			last = max(last, i)
		}
		if t.Failed() {
			t.Logf("%s candidates:\n%s", tc.lib, strings.Join(got, "\n"))
		}
	}
	var kinds []string
	for _, e := range PythonEnvs(env) {
		kinds = append(kinds, e.Kind+" "+e.Path)
	}
	for _, want := range []string{"active /srv/active", "venv /opt/pytorch", "venv /opt/vllm/.venv", "venv /home/u/.venv",
		"pyenv /home/u/.pyenv/versions/3.12.4", "user /home/u/.local", "system /usr"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("PythonEnvs lacks %q: %q", want, kinds)
		}
	}
}

// The same on a real file tree standing in for the machine (Env.Root and
// Home injected): a driver plus pip PyTorch image, whose cuBLAS is in the
// DLAMI venv and whose NCCL is in a pyenv version, loads both for real.
func TestOpenFromInstalledVenvsOnATree(t *testing.T) {
	dir := fakeLibs(t)
	root := t.TempDir()
	lib, err := os.ReadFile(filepath.Join(dir, "full", "libcublas.so.13.1.0"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, lib, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cublas := put("opt/pytorch/lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.12")
	nccl := put("home/u/.pyenv/versions/3.11.9/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2")
	cudnn := put("opt/app/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9")
	env := Env{Root: root, Home: filepath.Join(root, "home/u"), Glob: filepath.Glob, NoLoaderNames: true, Arch: "x86_64"}
	for _, tc := range []struct {
		lib  Lib
		want string
	}{{CUBLAS, cublas}, {NCCL, nccl}, {CUDNN, cudnn}} {
		l, err := OpenEnv(tc.lib, env)
		if err != nil {
			t.Errorf("%s: %v", tc.lib, err)
			continue
		}
		if l.Path != tc.want {
			t.Errorf("%s loaded from %s, want %s", tc.lib, l.Path, tc.want)
		}
	}
	// Nothing is searched outside the tree (the real /usr/local/cuda stays out).
	for _, c := range Candidates(CUBLAS, env) {
		if !strings.HasPrefix(c, root+"/") {
			t.Errorf("candidate %s outside Root", c)
		}
	}
}

// A CUDA 13 cuBLAS beside a CUDA 12 one on a driver that supports CUDA 12.4:
// the 13 loads but cannot run (cublasCreate fails), so Open skips it, says
// why, and takes the 12. Today's Open takes the 13 (newest soname first).
func TestOpenSkipsLibrariesTooNewForTheDriver(t *testing.T) {
	dir := fakeLibs(t)
	both := t.TempDir()
	b13, _ := os.ReadFile(filepath.Join(dir, "full", "libcublas.so.13.1.0"))
	b12, _ := os.ReadFile(filepath.Join(dir, "nov2", "libcublas.so.13")) // marker 1
	if err := os.WriteFile(filepath.Join(both, "libcublas.so.13"), b13, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(both, "libcublas.so.12"), b12, 0o755); err != nil {
		t.Fatal(err)
	}
	env := dirEnv(both)
	env.DriverCUDA = 12040
	lib, err := OpenEnv(CUBLAS, env)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(lib.Path) != "libcublas.so.12" {
		t.Errorf("loaded %s on a CUDA 12.4 driver, want libcublas.so.12", lib.Path)
	}
	if len(lib.Tried) != 1 || lib.Tried[0].TooOld == nil || lib.Tried[0].TooOld.Built != 13 {
		t.Errorf("Tried = %+v, want libcublas.so.13 skipped as built for CUDA 13", lib.Tried)
	}
	// With CUDA 13 the newest is taken, as before.
	env.DriverCUDA = 13000
	if lib, err := OpenEnv(CUBLAS, env); err != nil || filepath.Base(lib.Path) != "libcublas.so.13" {
		t.Errorf("on a CUDA 13.0 driver: %v, %v; want libcublas.so.13", lib, err)
	}
	// Only the 13: not found, and the error says why, with NVIDIA's floor.
	only := filepath.Join(dir, "full")
	env = dirEnv(only)
	env.DriverCUDA = 12040
	_, err = OpenEnv(CUBLAS, env)
	var oe *OpenError
	if !errors.As(err, &oe) || len(oe.TooOld()) != 1 {
		t.Fatalf("err = %v, want an OpenError with one candidate too new", err)
	}
	if want := "built for CUDA 13, which needs a driver supporting CUDA 13 (Linux driver ≥ 580); this driver supports CUDA 12.4"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
}

func TestBuiltFor(t *testing.T) {
	for _, tc := range []struct {
		lib  Lib
		path string
		want int
	}{
		{CUBLAS, "libcublas.so.13", 13},
		{CUBLAS, "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcublas.so.12", 12},
		{CUBLASLt, "/x/libcublasLt.so.12.9.1.4", 12},
		{CUDART, "/x/libcudart.so.13", 13},
		{NCCL, "libnccl.so.2", 0},
		{NCCL, "/v/lib/python3.12/site-packages/nvidia/cu13/lib/libnccl.so.2", 13},
		{NCCL, "/v/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", 0},
		{NCCL, "/usr/local/cuda-12.8/lib64/libnccl.so.2", 12},
		{CUDNN, "/usr/local/cuda-13.0/lib64/libcudnn.so.9", 13},
		{CUDNN, "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", 0},
	} {
		if got := BuiltFor(tc.lib, tc.path); got != tc.want {
			t.Errorf("BuiltFor(%s, %s) = %d, want %d", tc.lib, tc.path, got, tc.want)
		}
	}
	for _, tc := range []struct {
		built, driver int
		want          bool
	}{{13, 12040, false}, {12, 12040, true}, {12, 13000, true}, {11, 12020, true}, {13, 13000, true}, {0, 12000, true}, {13, 0, true}} {
		if got := Runs(tc.built, tc.driver); got != tc.want {
			t.Errorf("Runs(%d, %d) = %v, want %v", tc.built, tc.driver, got, tc.want)
		}
	}
	if MinDriver(13) != "580" || MinDriver(12) != "525" || MinDriver(99) != "" {
		t.Errorf("MinDriver: 13 → %q, 12 → %q, 99 → %q", MinDriver(13), MinDriver(12), MinDriver(99))
	}
}
