package cuda

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// node is the fakes of one machine: libcuda, the CUDA 13 and CUDA 12
// cuBLAS (with12), NVML, with the controls a test needs.
type node struct {
	env     dl.Env
	cuda    func(key string, v int64) int32
	visible func(list string) int32
	ctxRC   func(gpu, rc int32) int32
	nvml    func(key string, v int64) int32
	nvGPU   func(gpu int32, key string, v int64) int32
	blas13  func(key string, v int32) int32
	bad     []func(buf *byte, n int32) int32
}

func newNode(t *testing.T, gpus int64, with12 bool) *node {
	t.Helper()
	dirs := []string{
		dltest.Build(t, "testdata/fakecuda.c", "libcuda.so.1"),
		dltest.Build(t, "testdata/fakecublas.c", "libcublas.so.13"),
		dltest.Build(t, "../nvml/testdata/fakenvml.c", "libnvidia-ml.so.1"),
	}
	if with12 {
		dirs = append(dirs, dltest.Build(t, "testdata/fakecublas.c", "libcublas.so.12", "-DCUDA_MAJOR=12"))
	}
	n := &node{env: dltest.Env(dirs...)}
	bind := func(dir, file string, syms ...dl.Symbol) {
		t.Helper()
		e := dltest.Env(dir)
		lib, err := dl.OpenFrom(dl.CUBLAS, e, []string{dir + "/" + file})
		if file == "libcuda.so.1" {
			lib, err = dl.OpenEnv(dl.CUDA, e)
		} else if file == "libnvidia-ml.so.1" {
			lib, err = dl.OpenEnv(dl.NVML, e)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lib.Bind(syms); err != nil {
			t.Fatal(err)
		}
	}
	var cudaBad, nvBad, b13Bad func(buf *byte, n int32) int32
	bind(dirs[0], "libcuda.so.1", dl.Sym(&n.cuda, "fake_cuda_set"), dl.Sym(&n.visible, "fake_cuda_visible"),
		dl.Sym(&n.ctxRC, "fake_cuda_ctx_rc"), dl.Sym(&cudaBad, "fake_cuda_bad"))
	bind(dirs[1], "libcublas.so.13", dl.Sym(&n.blas13, "fake_cublas_set"), dl.Sym(&b13Bad, "fake_cublas_bad"))
	bind(dirs[2], "libnvidia-ml.so.1", dl.Sym(&n.nvml, "fake_nvml_set"), dl.Sym(&n.nvGPU, "fake_nvml_gpu"), dl.Sym(&nvBad, "fake_nvml_bad"))
	n.bad = []func(buf *byte, n int32) int32{cudaBad, nvBad, b13Bad}
	if with12 {
		var b12Bad func(buf *byte, n int32) int32
		bind(dirs[3], "libcublas.so.12", dl.Sym(&b12Bad, "fake_cublas_bad"))
		n.bad = append(n.bad, b12Bad)
	}
	reset := func() {
		n.cuda("reset", 0)
		n.nvml("reset", 0)
		n.blas13("reset", 0)
	}
	reset()
	n.cuda("gpus", gpus)
	n.nvml("gpus", gpus)
	t.Cleanup(func() {
		buf := make([]byte, 256)
		for i, bad := range n.bad {
			if k := bad(&buf[0], int32(len(buf))); k != 0 {
				t.Errorf("fake library %d saw %d bad calls; last: %s", i, k, cString(buf))
			}
		}
		reset()
	})
	return n
}

func (n *node) open(t *testing.T, opts Options) []gpu.Device {
	t.Helper()
	if opts.Env == nil {
		opts.Env = &n.env
	}
	if opts.Exit == nil {
		opts.Exit = func(msg string) { t.Errorf("watchdog fired: %s", msg) }
	}
	devs, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, d := range devs {
			if err := d.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	})
	return devs
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// Issue 26, item 1: one GPU that cannot be opened (another job holds it in
// EXCLUSIVE_PROCESS mode: CUDA_ERROR_DEVICE_UNAVAILABLE; another broken by
// an Xid: CUDA_ERROR_UNKNOWN) no longer makes Open give up on every GPU:
// each is in the list as a gpu.Unopened naming the cause and the fix, the
// others open and work.
func TestOpenReportsEachGPU(t *testing.T) {
	n := newNode(t, 4, false)
	n.ctxRC(1, 46)
	n.nvGPU(1, "compute_mode", int64(nvml.ComputeExclusiveProcess))
	n.nvGPU(1, "procs", 1)
	n.ctxRC(3, 999)
	devs := n.open(t, Options{})
	if len(devs) != 4 {
		t.Fatalf("%d devices, want all 4 listed", len(devs))
	}
	for i, d := range devs {
		err := gpu.OpenError(d)
		switch i {
		case 0, 2:
			if err != nil {
				t.Fatalf("GPU %d: %v", i, err)
			}
			p, err := d.Alloc(64)
			if err != nil {
				t.Errorf("GPU %d does not work beside the unopened ones: %v", i, err)
			}
			d.Free(p)
		case 1:
			if err == nil {
				t.Fatal("GPU 1 (held exclusively) opened")
			}
			mustContain(t, "GPU 1's error", err.Error(), "GPU 1 could not be opened",
				"cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICE_UNAVAILABLE (46): CUDA-capable device(s) is/are busy or unavailable",
				"Exclusive_Process compute mode and process 4342 (python3, 512 MiB) holds it", "sudo nvidia-smi -i 1 -c DEFAULT")
			if in := d.Info(); in.Name != "NVIDIA H200" || in.UUID != "GPU-00000000-0000-0000-0000-000000000001" || in.Index != 1 {
				t.Errorf("unopened GPU 1 described as %+v", in)
			}
			if _, err := d.Alloc(64); err == nil {
				t.Error("an unopened GPU allocated memory")
			}
		case 3:
			mustContain(t, "GPU 3's error", err.Error(), "CUDA_ERROR_UNKNOWN (999): unknown error", "Xid", "sudo nvidia-smi -r -i 3")
		}
	}
}

// The driver names its codes (cuGetErrorName, cuGetErrorString) and doctor
// and bench say the fix: 802 on an HGX node without the fabric manager. A
// driver without the two symbols falls back to gpuscout's table.
func TestDriverErrorNamesAndFabricManager(t *testing.T) {
	n := newNode(t, 1, false)
	n.cuda("init_rc", 802)
	_, err := Open(Options{Env: &n.env, NoNVML: true})
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != 802 {
		t.Fatalf("err = %v, want cuInit's 802", err)
	}
	mustContain(t, "cuInit's error", err.Error(), "cuInit: CUDA_ERROR_SYSTEM_NOT_READY (802): system not yet initialized",
		"fix: start nvidia-fabricmanager (HGX/NVSwitch systems)", "systemctl enable --now nvidia-fabricmanager")
	if NoGPU(err) {
		t.Error("a driver that is not ready is reported as no GPU")
	}
	n.cuda("init_rc", 0)

	// A code the driver does not name: its number, and no invented text.
	n.ctxRC(0, 12345)
	devs := n.open(t, Options{NoNVML: true})
	if err := gpu.OpenError(devs[0]); err == nil || !strings.Contains(err.Error(), "cuDevicePrimaryCtxRetain: CUDA_ERROR_12345 (12345)") {
		t.Errorf("unknown code: %v", err)
	}

	old := dltest.Env(dltest.Build(t, "testdata/fakecuda.c", "libcuda.so.1", "-DNO_ERROR_NAMES"))
	lib, err := dl.OpenEnv(dl.CUDA, old)
	if err != nil {
		t.Fatal(err)
	}
	var set func(string, int64) int32
	if _, err := lib.Bind([]dl.Symbol{dl.Sym(&set, "fake_cuda_set")}); err != nil {
		t.Fatal(err)
	}
	set("init_rc", 802)
	defer set("reset", 0)
	_, err = Open(Options{Env: &old, NoNVML: true})
	if err == nil || !strings.HasPrefix(err.Error(), "cuInit: CUDA_ERROR_SYSTEM_NOT_READY (802); fix: start nvidia-fabricmanager") {
		t.Errorf("without cuGetErrorName: %v", err)
	}
}

// Issue 26, item 2: a CUDA 13 cuBLAS beside a CUDA 12 one on a 550-branch
// driver (CUDA 12.4). Today's code loads libcublas.so.13, cublasCreate
// fails and every GEMM says "gemm needs cuBLAS"; now the CUDA 12 one is
// chosen and the 13 is reported as skipped, with why.
func TestCuBLASMatchesTheDriver(t *testing.T) {
	n := newNode(t, 1, true)
	n.cuda("driver", 12040)
	d := n.open(t, Options{NoNVML: true})[0].(*Device)
	if v := d.Info().Libraries["cublas_version"]; v != "12.9.1" {
		t.Errorf("cuBLAS %q on a CUDA 12.4 driver, want the CUDA 12 one (12.9.1)", v)
	}
	if err := d.BLASError(); err != nil {
		t.Fatal(err)
	}
	p, _ := d.Alloc(4 * 4 * 4)
	if err := d.Gemm(gpu.FP32, 4, 4, 4, p, p, p); err != nil {
		t.Errorf("Gemm: %v", err)
	}
	d.Free(p)
	skipped := strings.Join(d.BLASSkipped(), "\n")
	mustContain(t, "BLASSkipped", skipped, "libcublas.so.13 skipped: built for CUDA 13, which needs a driver supporting CUDA 13 (Linux driver ≥ 580); this driver supports CUDA 12.4")
}

// A cuBLAS whose cublasCreate fails for a reason its name does not show:
// the next one on the machine is used, and the failure is kept.
func TestCuBLASFallsBackWhenCreateFails(t *testing.T) {
	n := newNode(t, 2, true)
	n.blas13("create_rc", 1)
	devs := n.open(t, Options{NoNVML: true})
	for _, g := range devs {
		d := g.(*Device)
		if v := d.Info().Libraries["cublas_version"]; v != "12.9.1" {
			t.Errorf("GPU %d: cuBLAS %q, want the fallback 12.9.1", d.ord, v)
		}
		mustContain(t, "BLASSkipped", strings.Join(d.BLASSkipped(), "\n"),
			"libcublas.so.13 (cuBLAS 13.1.0) could not start: GPU 0: cublasCreate_v2: CUBLAS_STATUS_NOT_INITIALIZED (1)")
	}
}

// Only a CUDA 13 cuBLAS on a CUDA 12 driver: GEMMs say so, with the fix,
// instead of a bare "needs cuBLAS".
func TestCuBLASTooNewIsExplained(t *testing.T) {
	n := newNode(t, 1, false)
	n.cuda("driver", 12040)
	d := n.open(t, Options{NoNVML: true})[0].(*Device)
	p, _ := d.Alloc(64)
	defer d.Free(p)
	err := d.Gemm(gpu.FP32, 2, 2, 2, p, p, p)
	if err == nil {
		t.Fatal("a GEMM ran with a cuBLAS too new for the driver")
	}
	mustContain(t, "Gemm's error", err.Error(), "gemm needs cuBLAS", "built for CUDA 13", "this driver supports CUDA 12.4",
		"install a cuBLAS for CUDA 12 (pip install nvidia-cublas-cu12", "upgrade the NVIDIA driver (CUDA 13 needs ≥ 580")
	if !strings.Contains(d.Info().Libraries["cublas_error"], "built for CUDA 13") {
		t.Errorf("Info.Libraries[cublas_error] = %q", d.Info().Libraries["cublas_error"])
	}
}

// A CUDA 13 NCCL on a CUDA 12 driver fails ncclCommInitAll (its CUDA
// runtime is linked in); the next NCCL (a CUDA 12 build) is used, and the
// failure keeps NCCL's own words.
func TestNCCLMatchesTheDriver(t *testing.T) {
	n := newNode(t, 2, true)
	nccl13 := dltest.Build(t, "testdata/fakenccl.c", "libnccl.so.2")
	nccl12 := dltest.Build(t, "testdata/fakenccl.c", "libnccl.so.2", "-DCUDA_MAJOR=12")
	n.cuda("driver", 12040)
	only13 := n.env
	only13.Dirs = append(slices.Clone(n.env.Dirs), nccl13)
	devs := n.open(t, Options{NoNVML: true, Env: &only13})
	cds := []*Device{devs[0].(*Device), devs[1].(*Device)}
	_, err := OpenComm(cds)
	if err == nil {
		t.Fatal("a CUDA 13 NCCL initialised on a CUDA 12.4 driver")
	}
	mustContain(t, "OpenComm's error", err.Error(), "ncclCommInitAll: ncclUnhandledCudaError (1): Cuda failure 35 'CUDA driver version is insufficient for CUDA runtime version'",
		"install NCCL for CUDA 12 (pip install nvidia-nccl-cu12)")
	// Where the folder says CUDA 13 (the cu13 wheel), it is not even loaded.
	wheel := t.TempDir() + "/site-packages/nvidia/cu13/lib"
	if err := os.MkdirAll(wheel, 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(nccl13 + "/libnccl.so.2"); err != nil || os.WriteFile(wheel+"/libnccl.so.2", b, 0o755) != nil {
		t.Fatal(err)
	}
	saved := cds[0].env.Dirs
	cds[0].env.Dirs = append(slices.Clone(n.env.Dirs), wheel)
	_, err = OpenComm(cds)
	if err == nil || errors.Is(err, dl.ErrNotFound) {
		t.Fatalf("a cu13 wheel's NCCL on a CUDA 12.4 driver: %v, want a failure (not a missing library)", err)
	}
	mustContain(t, "OpenComm's error", err.Error(), wheel+"/libnccl.so.2 skipped: built for CUDA 13", "fix: install NCCL for CUDA 12 (pip install nvidia-nccl-cu12)")
	cds[0].env.Dirs = saved
	for _, d := range cds {
		d.env.Dirs = append(d.env.Dirs, nccl12)
	}
	c, err := OpenComm(cds)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !strings.HasPrefix(c.Library(), nccl12) {
		t.Errorf("NCCL from %s, want the CUDA 12 build in %s", c.Library(), nccl12)
	}
	mustContain(t, "Skipped", strings.Join(c.Skipped(), "\n"), nccl13+"/libnccl.so.2 (NCCL 2.27.3): ncclCommInitAll")
}

// The driver ordinal is not a CUdevice: the fake's handles differ from the
// ordinals and it counts a call given an ordinal as bad (newNode's cleanup
// fails the test). Peer checks take two handles.
func TestCUdeviceHandles(t *testing.T) {
	n := newNode(t, 2, false)
	devs := n.open(t, Options{})
	a, b := devs[0].(*Device), devs[1].(*Device)
	if a.dev == a.ord || b.dev == b.ord {
		t.Fatalf("handles %d, %d equal the ordinals: the fake cannot tell them apart", a.dev, b.dev)
	}
	if ok, err := a.CanAccessPeer(b); err != nil || !ok {
		t.Errorf("CanAccessPeer = %v, %v", ok, err)
	}
	if w, err := a.MemBusWidthBits(); err != nil || w != 6016 {
		t.Errorf("MemBusWidthBits = %d, %v", w, err)
	}
}

// Free memory at open (cuMemGetInfo) is what plans size from.
func TestFreeMemory(t *testing.T) {
	n := newNode(t, 1, false)
	n.cuda("free", 40<<30)
	d := n.open(t, Options{NoNVML: true})[0]
	if got := d.Info().MemoryFreeBytes; got != 40<<30 {
		t.Errorf("MemoryFreeBytes = %d, want 40 GiB", got)
	}
}

// Other processes on a GPU (NVML), this one left out.
func TestOtherProcesses(t *testing.T) {
	n := newNode(t, 2, false)
	n.nvGPU(1, "procs", 2)
	devs := n.open(t, Options{})
	if ps, err := devs[0].(*Device).OtherProcesses(); err != nil || len(ps) != 0 {
		t.Errorf("GPU 0: %v, %v; want none", ps, err)
	}
	ps, err := devs[1].(*Device).OtherProcesses()
	if err != nil {
		t.Fatal(err)
	}
	if got := gpu.DescribeProcesses(ps); got != "4342 (python3, 512 MiB), 4343 (python3)" {
		t.Errorf("GPU 1's processes: %s", got)
	}
	noNV := n.open(t, Options{NoNVML: true})[0].(*Device)
	if _, err := noNV.OtherProcesses(); !errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("without NVML: %v, want gpu.ErrUnsupported", err)
	}
}

// In a container NVML may list this process under its host PID, not
// os.Getpid(): the process that appeared while Open created the context is
// this one, not a program to wait for (else bench would refuse every GPU).
func TestOtherProcessesInAContainer(t *testing.T) {
	n := newNode(t, 2, false)
	n.nvGPU(1, "procs", 1)
	n.nvml("ctx_pid", 99999)
	for _, g := range n.open(t, Options{}) {
		ps, err := g.(*Device).OtherProcesses()
		if err != nil || slices.ContainsFunc(ps, func(p gpu.Process) bool { return p.PID == 99999 }) {
			t.Errorf("GPU %d: %v, %v; this process (host PID 99999) counted as another", g.Info().Index, ps, err)
		}
		if want := g.Info().Index; len(ps) != want {
			t.Errorf("GPU %d: %d other processes, want %d", want, len(ps), want)
		}
	}
}

// Under MIG, CUDA sees the instance, not the GPU: its UUID is the
// instance's ("MIG-…"), its memory and SMs its share. Matching by UUID finds
// the MIG device in NVML (today's code matched the bus id and took the
// whole GPU's UUID and 141 GB); telemetry is read from the GPU (a MIG handle
// answers few queries), processes from the instance.
func TestMIGInstance(t *testing.T) {
	n := newNode(t, 1, false)
	n.cuda("mig", 1)
	n.nvGPU(0, "mig", 1)
	n.nvGPU(0, "procs", 1)
	d := n.open(t, Options{})[0].(*Device)
	in := d.Info()
	if in.UUID != "MIG-b3a15e0d-9c4f-5e1a-8f2c-000000000000" || in.MIG != "enabled" || in.MemoryBytes != 17716740096 ||
		in.Multiprocs != 16 || in.Name != "NVIDIA H200 MIG 1g.18gb" || in.PCIeGen != 5 || in.Driver != "580.159.04" {
		t.Errorf("MIG instance described as %+v", in)
	}
	if s, err := d.Sample(); err != nil || s.PowerW != 80.056 {
		t.Errorf("Sample = %+v, %v", s, err)
	}
	if ps, err := d.OtherProcesses(); err != nil || len(ps) != 1 {
		t.Errorf("OtherProcesses = %v, %v", ps, err)
	}
}

// Issue 26, item 11: bench workload's cuda:N is CUDA's numbering, which
// CUDA_VISIBLE_DEVICES changes and NVML ignores. With CUDA_VISIBLE_DEVICES=1
// (the fake driver does what the real one does at cuInit), cuda:0 is the
// second GPU: SamplerFor finds it by UUID, where NVML's index 0 (today's
// choice in the CLI) is the first GPU.
func TestSamplerForFollowsCUDANumbering(t *testing.T) {
	n := newNode(t, 2, false)
	n.visible("1")
	opts := Options{Env: &n.env, Exit: func(m string) { t.Error(m) }}
	id, err := Identify(0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if id.UUID != "GPU-00000000-0000-0000-0000-000000000001" || id.BusID != "0000:00:07.0" {
		t.Errorf("cuda:0 under CUDA_VISIBLE_DEVICES=1 is %+v, want the second GPU", id)
	}
	s, closeS, err := SamplerFor(0, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer closeS()
	nd := s.(*nvml.Device)
	if u, _ := nd.UUID(); u != id.UUID || nd.Index() != 1 {
		t.Errorf("SamplerFor(0) is NVML GPU %d (%s), want index 1 (%s)", nd.Index(), u, id.UUID)
	}
	nv, err := nvml.OpenEnv(n.env)
	if err != nil {
		t.Fatal(err)
	}
	defer nv.Close()
	byIndex, _ := nv.Device(0)
	if u, _ := byIndex.UUID(); u == id.UUID {
		t.Error("NVML index 0 is cuda:0 here: the fake does not tell the numberings apart")
	}
	if _, err := Identify(1, opts); err == nil || !strings.Contains(err.Error(), "CUDA sees 1") {
		t.Errorf("Identify(1) with one visible GPU: %v", err)
	}
}

// Probe returns the watchdog's message when a driver call hangs, instead of
// waiting for it or ending the process (doctor reports it as a check).
func TestProbeReportsAHang(t *testing.T) {
	n := newNode(t, 1, false)
	n.cuda("init_ms", 1000)
	finished := make(chan int, 1)
	hung := Probe(context.Background(), Options{Env: &n.env, NoNVML: true, CallTimeout: 40 * time.Millisecond},
		func(devs []gpu.Device, err error) { finished <- len(devs) })
	if !strings.Contains(hung, "CUDA: cuInit has not returned after 40ms") {
		t.Errorf("Probe of a hanging cuInit: %q", hung)
	}
	select { // the hung call returns in the end, and the inspection runs then
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Fatal("the probe's goroutine never finished")
	}
	n.cuda("init_ms", 0)
	if hung := Probe(context.Background(), Options{Env: &n.env, NoNVML: true}, func(devs []gpu.Device, err error) {
		if err != nil || len(devs) != 1 {
			t.Errorf("Probe's Open: %d devices, %v", len(devs), err)
		}
	}); hung != "" {
		t.Errorf("a healthy probe reported %q", hung)
	}
}
