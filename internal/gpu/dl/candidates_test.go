package dl

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// fakeEnv answers Glob from a fixed list of existing folders.
func fakeEnv(vars map[string]string, dirs ...string) Env {
	return Env{
		Getenv: func(k string) string { return vars[k] },
		Glob: func(p string) ([]string, error) {
			var m []string
			for _, d := range dirs {
				if ok, _ := path.Match(p, d); ok {
					m = append(m, d)
				}
			}
			return m, nil
		},
		Home: "/home/u",
		Arch: "x86_64",
	}
}

func TestCandidatesDriverLibraries(t *testing.T) {
	env := fakeEnv(map[string]string{"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/usr/local/nvidia/lib::rel/dir:/opt/x/stubs"},
		"/usr/local/cuda-13.0")
	got := Candidates(NVML, env)
	want := []string{
		"libnvidia-ml.so.1",
		"/usr/local/nvidia/lib64/libnvidia-ml.so.1",
		"/usr/local/nvidia/lib/libnvidia-ml.so.1",
		"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
		"/usr/lib64/libnvidia-ml.so.1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Candidates(nvml):\n got %q\nwant %q", got, want)
	}
}

func TestCandidatesCublasOrder(t *testing.T) {
	env := fakeEnv(map[string]string{"VIRTUAL_ENV": "/srv/venv"},
		"/usr/local/cuda-12.4", "/usr/local/cuda-13.0", "/usr/local/cuda-12.10", "/usr/local/cuda-13",
		"/usr/local/cuda-backup",
		"/srv/venv/lib/python3.9/site-packages", "/srv/venv/lib/python3.12/site-packages",
		"/opt/conda/envs/pytorch", "/usr/local/lib/python3.11/dist-packages")
	got := Candidates(CUBLAS, env)
	// Relative order of the files that matter.
	order := []string{
		"libcublas.so.13",
		"libcublas.so.12",
		"/usr/local/nvidia/lib64/libcublas.so.13",
		"/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13",
		"/usr/local/cuda/lib64/libcublas.so.13",
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13",
		"/usr/local/cuda-13/targets/x86_64-linux/lib/libcublas.so.13",
		"/usr/local/cuda-12.10/targets/x86_64-linux/lib/libcublas.so.12",
		"/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcublas.so.12",
		"/srv/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13",
		"/srv/venv/lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.12",
		"/srv/venv/lib/python3.9/site-packages/nvidia/cu13/lib/libcublas.so.13",
		"/opt/conda/lib/libcublas.so.13",
		"/opt/conda/envs/pytorch/lib/libcublas.so.13",
		"/usr/local/lib/python3.11/dist-packages/nvidia/cu13/lib/libcublas.so.13",
		"/usr/lib/python3/dist-packages/nvidia/cublas/lib/libcublas.so.12",
	}
	last := -1
	for _, w := range order {
		i := slices.Index(got, w)
		if i < 0 {
			t.Errorf("missing candidate %s", w)
			continue
		}
		if i <= last {
			t.Errorf("candidate %s at %d, want after %s", w, i, order[max(0, slices.Index(order, w)-1)])
		}
		last = i
	}
	for _, g := range got {
		if strings.Contains(g, "cuda-backup") {
			t.Errorf("unversioned toolkit folder %s is a candidate", g)
		}
	}
	if t.Failed() {
		t.Logf("got:\n%s", strings.Join(got, "\n"))
	}
}

func TestCandidatesNeverStubsNorDuplicates(t *testing.T) {
	env := fakeEnv(map[string]string{
		"LD_LIBRARY_PATH": "/usr/local/cuda/lib64/stubs:/usr/local/cuda/lib64:/usr/local/cuda/lib64/",
		"CUDA_HOME":       "/usr/local/cuda/targets/x86_64-linux/lib/stubs/..",
	})
	for _, lib := range Libs() {
		got := Candidates(lib, env)
		if len(got) == 0 {
			t.Errorf("%s: no candidates", lib)
		}
		seen := map[string]bool{}
		for _, g := range got {
			if strings.Contains(g, "/stubs/") {
				t.Errorf("%s: stub candidate %s", lib, g)
			}
			if seen[g] {
				t.Errorf("%s: duplicate candidate %s", lib, g)
			}
			seen[g] = true
		}
	}
}

func TestCandidatesTable(t *testing.T) {
	tests := []struct {
		lib       Lib
		env       Env
		first     string // first candidate
		contains  string
		notAnyHas string
	}{
		{NCCL, fakeEnv(nil, "/usr/lib/python3.12/site-packages"), "libnccl.so.2",
			"/usr/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", ""},
		{CUDNN, fakeEnv(map[string]string{"CONDA_PREFIX": "/c/env"}, "/c/env/lib/python3.10/site-packages"), "libcudnn.so.9",
			"/c/env/lib/python3.10/site-packages/nvidia/cudnn/lib/libcudnn.so.8", ""},
		{CUDA, fakeEnv(nil, "/usr/local/cuda-13.0"), "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "cuda-13"},
		{CUDART, Env{Arch: "aarch64", NoLoaderNames: true}, "/usr/local/nvidia/lib64/libcudart.so.13",
			"/usr/local/cuda/targets/sbsa-linux/lib/libcudart.so.12", "x86_64"},
		{CUBLAS, fakeEnv(nil, "/home/u/.local/lib/python3.12/site-packages"), "libcublas.so.13",
			"/home/u/.local/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13", ""},
		{Lib("opencl"), Env{}, "", "", ""},
	}
	for _, tt := range tests {
		got := Candidates(tt.lib, tt.env)
		first := ""
		if len(got) > 0 {
			first = got[0]
		}
		if first != tt.first {
			t.Errorf("%s: first candidate %q, want %q", tt.lib, first, tt.first)
		}
		if tt.contains != "" && !slices.Contains(got, tt.contains) {
			t.Errorf("%s: no candidate %s in %q", tt.lib, tt.contains, got)
		}
		for _, g := range got {
			if tt.notAnyHas != "" && strings.Contains(g, tt.notAnyHas) {
				t.Errorf("%s: candidate %s contains %q", tt.lib, g, tt.notAnyHas)
			}
		}
	}
}

func TestCandidatesOnlyDirs(t *testing.T) {
	env := fakeEnv(map[string]string{"LD_LIBRARY_PATH": "/elsewhere"})
	env.Dirs = []string{"/a", "/b/stubs"}
	env.NoLoaderNames = true
	got := Candidates(CUBLAS, env)
	want := []string{"/a/libcublas.so.13", "/a/libcublas.so.12"}
	if !slices.Equal(got, want) {
		t.Errorf("Candidates with Dirs = %q, want %q", got, want)
	}
}
