package doctor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

func TestMain(m *testing.M) { dltest.Main(m) }

// gpuNode is the recorded H200 node (h200Env) whose GPU libraries are the
// fake libcuda, libcublas, libcublasLt and libnvidia-ml of internal/gpu, reached through
// the real bindings (System with Libs): doctor sees what bench would.
type gpuNode struct {
	*Fake
	sys System
}

func (n gpuNode) Load(lib string) (Loaded, error)         { return n.sys.Load(lib) }
func (n gpuNode) Candidates(lib string) []string          { return n.sys.Candidates(lib) }
func (n gpuNode) GPURuntime(ctx context.Context) *Runtime { return n.sys.GPURuntime(ctx) }
func (n gpuNode) LookupEnv(k string) (string, bool)       { return n.Fake.LookupEnv(k) }
func (n gpuNode) Glob(pattern string) ([]string, error)   { return n.glob(pattern) }
func (n gpuNode) glob(pattern string) ([]string, error)   { return globBoth(n.Fake, pattern) }
func globBoth(f *Fake, pattern string) ([]string, error) {
	a, err := f.Glob(pattern)
	if err != nil {
		return nil, err
	}
	b, _ := filepath.Glob(pattern) // the fake libraries' real folders
	return append(a, b...), nil
}

// fakeControls are the fakes' settings.
type fakeControls struct {
	cuda   func(key string, v int64) int32
	ctxRC  func(gpu, rc int32) int32
	nvml   func(key string, v int64) int32
	nvGPU  func(gpu int32, key string, v int64) int32
	blas13 func(key string, v int32) int32
	lt13   func(key string, v int32) int32
}

// newGPUNode builds the fakes: libcuda, NVML, a CUDA 13 cuBLAS and
// cuBLASLt, and (with cu12) CUDA 12 ones.
func newGPUNode(t *testing.T, gpus int64, cu12 bool) (gpuNode, *fakeControls) {
	t.Helper()
	dirs := []string{
		dltest.Build(t, "../gpu/cuda/testdata/fakecuda.c", "libcuda.so.1"),
		dltest.Build(t, "../gpu/nvml/testdata/fakenvml.c", "libnvidia-ml.so.1"),
		dltest.Build(t, "../gpu/cuda/testdata/fakecublas.c", "libcublas.so.13"),
		dltest.Build(t, "../gpu/cuda/testdata/fakecublaslt.c", "libcublasLt.so.13"),
	}
	if cu12 {
		dirs = append(dirs, dltest.Build(t, "../gpu/cuda/testdata/fakecublas.c", "libcublas.so.12", "-DCUDA_MAJOR=12"),
			dltest.Build(t, "../gpu/cuda/testdata/fakecublaslt.c", "libcublasLt.so.12", "-DCUDA_MAJOR=12"))
	}
	c := &fakeControls{}
	bind := func(lib dl.Lib, dir string, syms ...dl.Symbol) {
		t.Helper()
		l, err := dl.OpenEnv(lib, dltest.Env(dir))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Bind(syms); err != nil {
			t.Fatal(err)
		}
	}
	bind(dl.CUDA, dirs[0], dl.Sym(&c.cuda, "fake_cuda_set"), dl.Sym(&c.ctxRC, "fake_cuda_ctx_rc"))
	bind(dl.NVML, dirs[1], dl.Sym(&c.nvml, "fake_nvml_set"), dl.Sym(&c.nvGPU, "fake_nvml_gpu"))
	bind(dl.CUBLAS, dirs[2], dl.Sym(&c.blas13, "fake_cublas_set"))
	bind(dl.CUBLASLt, dirs[3], dl.Sym(&c.lt13, "fake_cublaslt_set"))
	reset := func() {
		c.cuda("reset", 0)
		c.nvml("reset", 0)
		c.blas13("reset", 0)
		c.lt13("reset", 0)
	}
	reset()
	t.Cleanup(reset)
	c.cuda("gpus", gpus)
	c.nvml("gpus", gpus)
	env := dltest.Env(dirs...)
	return gpuNode{Fake: h200Env(t), sys: System{Libs: &env}}, c
}

// Issue 26's diagnosis gaps: on each failure a fake driver reproduces,
// doctor names the cause and the fix.
func TestRuntimeChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gpus   int64
		cu12   bool
		setup  func(c *fakeControls)
		want   map[string]want
		failed bool
	}{
		{name: "healthy H200", gpus: 1, want: map[string]want{
			"cuda-init":     {status: StatusOK, detail: "the CUDA driver starts (driver API 13.0) and sees 1 GPU"},
			"gpu-open":      {status: StatusOK, detail: "every GPU opens (a CUDA context on GPU 0)"},
			"compute-mode":  {status: StatusOK, detail: "Default compute mode on every GPU"},
			"gpu-processes": {status: StatusOK, detail: "no other program computes on the GPUs"},
			"clocks":        {status: StatusOK, detail: "no slowdown active (clock-event reasons: gpu_idle)"},
			"remapped-rows": {status: StatusOK, detail: "no memory rows remapped, none pending (1 GPU)"},
			"cublas":        {status: StatusOK, detail: "cuBLAS 13.1.0 at"},
			"cublaslt":      {status: StatusOK, detail: "cuBLASLt 13.1.0 at"},
		}},
		{name: "HGX without the fabric manager: cuInit 802", gpus: 1, failed: true,
			setup: func(c *fakeControls) { c.cuda("init_rc", 802) },
			want: map[string]want{
				"cuda-init": {status: StatusFail, detail: "cuInit: CUDA_ERROR_SYSTEM_NOT_READY (802): system not yet initialized",
					fix: "start nvidia-fabricmanager (HGX/NVSwitch systems): sudo systemctl enable --now nvidia-fabricmanager"},
				"gpu-open": {absent: true},
			}},
		{name: "one GPU held exclusively, one broken by an Xid", gpus: 3, failed: true,
			setup: func(c *fakeControls) {
				c.ctxRC(1, 46)
				c.nvGPU(1, "compute_mode", 3)
				c.nvGPU(1, "procs", 1)
				c.ctxRC(2, 999)
			},
			want: map[string]want{
				"gpu-open": {status: StatusFail,
					detail: "GPU 1 could not be opened: GPU 1: cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICE_UNAVAILABLE (46): CUDA-capable device(s) is/are busy or unavailable; GPU 2 could not be opened: GPU 2: cuDevicePrimaryCtxRetain: CUDA_ERROR_UNKNOWN (999): unknown error; GPU 0 open and bench measures them",
					fix:    "GPU 1: the GPU is in Exclusive_Process compute mode and process 4342 (python3, 512 MiB) holds it: wait for it to finish, leave this GPU out (CUDA_VISIBLE_DEVICES), or, if no job needs it exclusively, sudo nvidia-smi -i 1 -c DEFAULT; GPU 2: the driver failed without saying why: look for Xid errors"},
				"compute-mode":  {status: StatusWarn, detail: "GPU 1 in Exclusive_Process compute mode", fix: "sudo nvidia-smi -i GPU-00000000-0000-0000-0000-000000000001 -c DEFAULT"},
				"gpu-processes": {status: StatusWarn, detail: "GPU 1: PID 4342 (python3, 512 MiB)", fix: "bench --allow-busy"},
			}},
		{name: "CUDA 13 cuBLAS only, on a CUDA 12.4 driver", gpus: 1,
			setup: func(c *fakeControls) { c.cuda("driver", 12040) },
			want: map[string]want{
				"cublas": {status: StatusWarn, detail: "built for CUDA 13, which needs a driver supporting CUDA 13 (Linux driver ≥ 580); this driver supports CUDA 12.4",
					fix: "install the CUDA 12 build (pip install nvidia-cublas-cu12"},
				"cublaslt": {status: StatusWarn, detail: "only built for a newer CUDA than the driver supports, so bench's FP8 products cannot run",
					fix: "install the CUDA 12 build (pip install nvidia-cublas-cu12, or the CUDA 12 toolkit's libcublas, which brings libcublasLt)"},
				"cuda-init": {status: StatusOK, detail: "driver API 12.4"},
			}},
		{name: "CUDA 13 and 12 cuBLAS on a CUDA 12.4 driver", gpus: 1, cu12: true,
			setup: func(c *fakeControls) { c.cuda("driver", 12040) },
			want: map[string]want{
				"cublas":   {status: StatusOK, detail: "cuBLAS 12.9.1 at"},
				"cublaslt": {status: StatusOK, detail: "cuBLASLt 12.9.1 at"},
			}},
		{name: "a cuBLAS that loads but cannot start", gpus: 1,
			setup: func(c *fakeControls) { c.blas13("create_rc", 1) },
			want: map[string]want{
				"cublas":   {status: StatusWarn, detail: "but on GPU 0 no cuBLAS could start: ", fix: "reinstall cuBLAS"},
				"cublaslt": {status: StatusOK, detail: "cuBLASLt 13.1.0 at"},
			}},
		{name: "a cuBLASLt that loads but cannot start", gpus: 1,
			setup: func(c *fakeControls) { c.lt13("create_rc", 1) },
			want: map[string]want{
				"cublaslt": {status: StatusWarn, detail: "but on GPU 0 no cuBLASLt could start: ", fix: "a cuBLASLt that loads but whose cublasLtCreate fails is broken or mismatched: reinstall cuBLAS"},
				"cublas":   {status: StatusOK, detail: "cuBLAS 13.1.0 at"},
			}},
		{name: "busy GPU", gpus: 2,
			setup: func(c *fakeControls) { c.nvGPU(0, "procs", 2) },
			want: map[string]want{
				"gpu-processes": {status: StatusWarn, detail: "GPU 0: PID 4242 (python3, 512 MiB), 4243 (python3)", fix: "ps -o pid,user,cmd -p 4242,4243"},
				"gpu-open":      {status: StatusOK},
			}},
		{name: "thermal slowdown and power cap now", gpus: 1,
			setup: func(c *fakeControls) { c.nvml("reasons", 0x40|0x4) },
			want: map[string]want{
				"clocks": {status: StatusWarn, detail: "GPU 0: sw_power_cap: power capped", fix: "check cooling"},
			}},
		{name: "a remapping pending", gpus: 1,
			setup: func(c *fakeControls) { c.nvGPU(0, "remap_unc", 2); c.nvGPU(0, "remap_pending", 1) },
			want: map[string]want{
				"remapped-rows": {status: StatusWarn, detail: "a remapping waits for a GPU reset on GPU 0; rows remapped after uncorrectable errors (GPU 0: 2)",
					fix: "sudo nvidia-smi -r -i GPU-8a89bb26-423b-7217-aa80-469f70fa0196"},
			}},
		{name: "a remapping failed", gpus: 1, failed: true,
			setup: func(c *fakeControls) { c.nvGPU(0, "remap_failure", 1) },
			want: map[string]want{
				"remapped-rows": {status: StatusFail, detail: "a row remapping failed on GPU 0", fix: "replace the GPU"},
			}},
		{name: "MIG instance", gpus: 1,
			setup: func(c *fakeControls) { c.cuda("mig", 1); c.nvGPU(0, "mig", 1) },
			want: map[string]want{
				"gpu-open":      {status: StatusOK},
				"remapped-rows": {absent: true}, // NVML does not report it under MIG
				"clocks":        {status: StatusOK},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node, c := newGPUNode(t, tc.gpus, tc.cu12)
			if tc.setup != nil {
				tc.setup(c)
			}
			r := Run(context.Background(), node)
			checkReport(t, r, tc.want, tc.failed)
		})
	}
}

// checkReport compares a report with what each check must say: each
// check reported once, every one not ok or missing with a fix, the wanted
// ones as wanted, and Failed as failed.
func checkReport(t *testing.T, r Report, wants map[string]want, failed bool) {
	t.Helper()
	got := map[string]Check{}
	for _, c := range r.Checks {
		if _, dup := got[c.Name]; dup {
			t.Errorf("check %q reported twice", c.Name)
		}
		got[c.Name] = c
		if c.Status != StatusOK && c.Status != StatusMissing && c.Fix == "" {
			t.Errorf("%s is %s without a fix: %s", c.Name, c.Status, c.Detail)
		}
	}
	for name, w := range wants {
		c, ok := got[name]
		if w.absent {
			if ok {
				t.Errorf("%s: reported (%s: %s), want absent", name, c.Status, c.Detail)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not reported", name)
			continue
		}
		if c.Status != w.status || !strings.Contains(c.Detail, w.detail) || !strings.Contains(c.Fix, w.fix) {
			t.Errorf("%s:\n got %s: %q\n     fix %q\nwant %s, detail containing %q, fix containing %q", name, c.Status, c.Detail, c.Fix, w.status, w.detail, w.fix)
		}
	}
	if r.Failed() != failed {
		t.Errorf("Failed() = %v, want %v", r.Failed(), failed)
		for _, c := range r.Checks {
			t.Logf("%-14s %-7s %s", c.Name, c.Status, c.Detail)
		}
	}
}

// A CUDA 13 NCCL (the cu13 wheel's) on a CUDA 12.4 driver: doctor says
// bench's all-reduce cannot use it, and what to install. A CUDA 12 one is
// fine. (Today's doctor says NCCL is ok either way.)
func TestNCCLAgainstTheDriver(t *testing.T) {
	nccl := "/opt/pytorch/lib/python3.12/site-packages/nvidia/cu13/lib/libnccl.so.2"
	f := h200Env(t)
	setDriver(f, "550.54.15", "12.4")
	f.Files = append(f.Files, nccl)
	f.Libraries["cuda"] = FakeLibrary{Path: "/usr/local/nvidia/lib64/libcuda.so.580.159.04", Version: "12.4"}
	f.Libraries["nccl"] = FakeLibrary{Path: nccl, Version: "2.27.3"}
	f.Libraries["cublas"] = FakeLibrary{Path: "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublas.so.13.1.0.3", Version: "13.1.0"}
	r := Run(context.Background(), f)
	checkReport(t, r, map[string]want{
		"nccl":   {status: StatusWarn, detail: "built for CUDA 13, but the driver supports CUDA 12.4", fix: "pip install nvidia-nccl-cu12"},
		"cublas": {status: StatusWarn, detail: "cuBLAS 13.1.0 at", fix: "upgrade the NVIDIA driver to 580 or newer"},
	}, true)
}

// The kernel log's Xid errors, named and with the fix; a log doctor may
// not read says how to read it.
func TestXidFromTheKernelLog(t *testing.T) {
	f := h200Env(t)
	f.Path["dmesg"] = "/usr/bin/dmesg"
	f.Outputs["dmesg"] = FakeOutput{Stdout: strings.Join([]string{
		"[  12.3] nvidia: module loaded",
		"[ 812.1] NVRM: Xid (PCI:0000:00:06): 48, pid=4242, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU",
		"[ 812.2] NVRM: Xid (PCI:0000:00:06): 48, pid=4242, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU",
		"[ 900.0] NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x505648=0x0",
	}, "\n")}
	r := Run(context.Background(), f)
	checkReport(t, r, map[string]want{
		"xid": {status: StatusFail, detail: "Xid 48 on GPU 0 (0000:00:06) (double-bit ECC error, 2 times): pid=4242, name=python3, An uncorrectable double bit error",
			fix: "Xid 48: reset the GPU (sudo nvidia-smi -r -i 0, with no programs on it) or reboot"},
	}, true)
	if c := findCheck(r, "xid"); !strings.Contains(c.Detail, "Xid 13 on the GPU at 0000:3b:00 (graphics engine exception)") {
		t.Errorf("xid detail: %s", c.Detail)
	}

	f.Outputs["dmesg"] = FakeOutput{Stderr: "dmesg: read kernel buffer failed: Operation not permitted", Err: os.ErrPermission}
	r = Run(context.Background(), f)
	checkReport(t, r, map[string]want{"xid": {status: StatusMissing, detail: "Operation not permitted", fix: "sudo gpuscout doctor"}}, false)

	f.Outputs["dmesg"] = FakeOutput{Stdout: "[ 1.0] nothing of note\n"}
	checkReport(t, Run(context.Background(), f), map[string]want{"xid": {status: StatusOK, detail: "no Xid errors in the kernel log (dmesg)"}}, false)
}

func findCheck(r Report, name string) Check {
	i := slices.IndexFunc(r.Checks, func(c Check) bool { return c.Name == name })
	if i < 0 {
		return Check{}
	}
	return r.Checks[i]
}

// Environments installed but not activated that the GPU bindings now
// search (/opt/*/.venv, ~/.venv, pyenv versions) are named when they hold
// the PyTorch python3 lacks.
func TestInstalledEnvironmentsListed(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  want
	}{
		{[]string{"/opt/vllm/.venv/bin/activate", "/opt/vllm/.venv/lib/python3.11/site-packages/torch/__init__.py"},
			want{status: StatusWarn, detail: "venv /opt/vllm/.venv", fix: "source /opt/vllm/.venv/bin/activate"}},
		{[]string{"/home/u/.venv/bin/activate", "/home/u/.venv/lib/python3.12/site-packages/torch/__init__.py"},
			want{status: StatusWarn, detail: "venv /home/u/.venv", fix: "source /home/u/.venv/bin/activate"}},
		{[]string{"/home/u/.pyenv/versions/3.12.4/bin/python3", "/home/u/.pyenv/versions/3.12.4/lib/python3.12/site-packages/torch/__init__.py"},
			want{status: StatusWarn, detail: `pyenv "3.12.4" (/home/u/.pyenv/versions/3.12.4)`, fix: "pyenv shell 3.12.4"}},
	} {
		f := cpuEnv(t)
		f.HomeDir = "/home/u"
		f.Files = append(f.Files, tc.files...)
		checkReport(t, Run(context.Background(), f), map[string]want{"python-env": tc.want}, false)
	}
}

// A driver call that hangs while the GPUs are opened fails cuda-init with
// the watchdog's message and what to do (the Fake stands in for the probe).
func TestRuntimeHung(t *testing.T) {
	f := h200Env(t)
	f.Runtime = &Runtime{Hung: "gpuscout: GPU 0: cuDevicePrimaryCtxRetain has not returned after 30s: the GPU driver is hung"}
	checkReport(t, Run(context.Background(), f), map[string]want{
		"cuda-init": {status: StatusFail, detail: "cuDevicePrimaryCtxRetain has not returned after 30s", fix: "look for Xid errors"},
		"gpu-open":  {absent: true},
	}, true)
}
