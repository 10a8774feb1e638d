package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeEnv is a machine made of a file list, environment variables, the
// programs on PATH and what they print.
type fakeEnv struct {
	files []string          // files that exist; their folders exist too
	env   map[string]string // set variables (an empty value is set)
	path  map[string]string // program → its path on PATH
	out   map[string]fakeOut
	home  string
}

type fakeOut struct {
	stdout, stderr string
	err            error
}

func (f *fakeEnv) Run(_ context.Context, _ time.Duration, name string, _ ...string) ([]byte, []byte, error) {
	if _, ok := f.path[name]; !ok {
		return nil, nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	o := f.out[name]
	return []byte(o.stdout), []byte(o.stderr), o.err
}

func (f *fakeEnv) LookPath(name string) (string, error) {
	if p, ok := f.path[name]; ok {
		return p, nil
	}
	return "", fmt.Errorf("%s: %w", name, ErrNotFound)
}

func (f *fakeEnv) Getenv(k string) string { return f.env[k] }

func (f *fakeEnv) LookupEnv(k string) (string, bool) {
	v, ok := f.env[k]
	return v, ok
}

func (f *fakeEnv) Home() string { return f.home }

func (f *fakeEnv) Candidates(lib string) []string { return systemCandidates(f, lib) }

func (f *fakeEnv) Glob(pattern string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, file := range f.files {
		for p := file; p != "/" && p != "."; p = filepath.Dir(p) {
			if seen[p] {
				continue
			}
			seen[p] = true
			if ok, err := filepath.Match(pattern, p); err != nil {
				return nil, err
			} else if ok {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func (f *fakeEnv) remove(prefix string) {
	f.files = slices.DeleteFunc(f.files, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// h200Env is the recorded H200 node: its nvidia-smi XML, the library files
// its probe loaded (libcuda.so.580.159.04 under /usr/local/nvidia/lib64,
// cuBLAS 13.1.0.3 in the CUDA 13.0 toolkit and libcublas.so.13 in the
// PyTorch venv's nvidia/cu13 wheel folder, where that wheel also puts the
// CUDA runtime and NCCL), and PyTorch 2.11.0+cu130 in /opt/torch/.venv.
func h200Env(t *testing.T) *fakeEnv {
	wheel := "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/"
	toolkit := "/usr/local/cuda-13.0/targets/x86_64-linux/lib/"
	return &fakeEnv{
		files: []string{
			"/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm",
			"/usr/local/nvidia/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.580.159.04",
			toolkit + "libcublas.so.13", toolkit + "libcublas.so.13.1.0.3", toolkit + "libcublasLt.so.13.1.0.3",
			toolkit + "stubs/libcublas.so",
			wheel + "libcublas.so.13", wheel + "libcublasLt.so.13", wheel + "libcudart.so.13", wheel + "libnccl.so.2",
			"/opt/torch/.venv/bin/python3", "/opt/torch/.venv/bin/activate",
			"/opt/torch/.venv/lib/python3.12/site-packages/torch/__init__.py",
		},
		env:  map[string]string{"VIRTUAL_ENV": "/opt/torch/.venv", "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/usr/local/nvidia/lib"},
		path: map[string]string{"nvidia-smi": "/usr/bin/nvidia-smi", "python3": "/opt/torch/.venv/bin/python3"},
		out: map[string]fakeOut{
			"nvidia-smi": {stdout: mustRead(t, h200XML)},
			"python3":    {stdout: mustRead(t, "testdata/probe-h200-cu130.json")},
		},
		home: "/home/ubuntu",
	}
}

// cpuEnv is a machine without a GPU and without PyTorch: the development
// machine's recorded probe output.
func cpuEnv(t *testing.T) *fakeEnv {
	return &fakeEnv{
		files: []string{"/usr/bin/python3"},
		env:   map[string]string{},
		path:  map[string]string{"python3": "/usr/bin/python3"},
		out:   map[string]fakeOut{"python3": {stdout: mustRead(t, "testdata/probe-no-torch.json")}},
		home:  "/root",
	}
}

// editSMI changes the recorded XML.
func editSMI(f *fakeEnv, oldnew ...string) {
	o := f.out["nvidia-smi"]
	o.stdout = strings.NewReplacer(oldnew...).Replace(o.stdout)
	f.out["nvidia-smi"] = o
}

// editProbe changes the probe's JSON.
func editProbe(f *fakeEnv, oldnew ...string) {
	o := f.out["python3"]
	o.stdout = strings.NewReplacer(oldnew...).Replace(o.stdout)
	f.out["python3"] = o
}
