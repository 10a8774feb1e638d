package cuda

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

func TestMain(m *testing.M) {
	// The fakes' GPUs are on no NUMA node of this machine's: an empty sysfs
	// (TestNUMAPlacement makes its own).
	dir, err := os.MkdirTemp("", "gpuscout-sysfs-")
	if err != nil {
		panic(err)
	}
	sysfsRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	dltest.Cleanup()
	os.Exit(code)
}

// fakes are the fake libcuda, libcublas and libcublasLt (and libnvidia-ml)
// with their controls bound.
type fakes struct {
	env       dl.Env
	set       func(key string, v int64) int32
	cudaBad   func(buf *byte, n int32) int32
	tids      func(dev int32, first *int32) int32
	live      func(kind int32) int32
	blasBad   func(buf *byte, n int32) int32
	blasLast  func(buf *byte, n int32) int32
	blasLive  func() int32
	ltBad     func(buf *byte, n int32) int32
	ltLast    func(buf *byte, n int32) int32
	ltLive    func(kind int32) int32
	ltSet     func(key string, v int32) int32
	withBLAS  bool
	checkBads bool
}

// newFakes builds and preloads the fakes (cudaFlags for libcuda; withBLAS
// brings libcublas and libcublasLt, which ship together), resets them and,
// at cleanup, fails the test if they saw a bad argument.
func newFakes(t *testing.T, withBLAS, withNVML bool, cudaFlags ...string) *fakes {
	t.Helper()
	dirs := []string{dltest.Build(t, "testdata/fakecuda.c", "libcuda.so.1", cudaFlags...)}
	if withBLAS {
		dirs = append(dirs, dltest.Build(t, "testdata/fakecublas.c", "libcublas.so.13"),
			dltest.Build(t, "testdata/fakecublaslt.c", "libcublasLt.so.13"))
	}
	if withNVML {
		dirs = append(dirs, dltest.Build(t, "../nvml/testdata/fakenvml.c", "libnvidia-ml.so.1"))
	}
	f := &fakes{env: dltest.Env(dirs...), withBLAS: withBLAS}
	lib, err := dl.OpenEnv(dl.CUDA, f.env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Bind([]dl.Symbol{dl.Sym(&f.set, "fake_cuda_set"), dl.Sym(&f.cudaBad, "fake_cuda_bad"),
		dl.Sym(&f.tids, "fake_cuda_tids"), dl.Sym(&f.live, "fake_cuda_live")}); err != nil {
		t.Fatal(err)
	}
	if withBLAS {
		blib, err := dl.OpenEnv(dl.CUBLAS, f.env)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := blib.Bind([]dl.Symbol{dl.Sym(&f.blasBad, "fake_cublas_bad"), dl.Sym(&f.blasLast, "fake_cublas_last"),
			dl.Sym(&f.blasLive, "fake_cublas_live")}); err != nil {
			t.Fatal(err)
		}
		llib, err := dl.OpenEnv(dl.CUBLASLt, f.env)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := llib.Bind([]dl.Symbol{dl.Sym(&f.ltBad, "fake_cublaslt_bad"), dl.Sym(&f.ltLast, "fake_cublaslt_last"),
			dl.Sym(&f.ltLive, "fake_cublaslt_live"), dl.Sym(&f.ltSet, "fake_cublaslt_set")}); err != nil {
			t.Fatal(err)
		}
		f.ltSet("reset", 0)
	}
	f.set("reset", 0)
	t.Cleanup(func() {
		buf := make([]byte, 256)
		if n := f.cudaBad(&buf[0], int32(len(buf))); n != 0 {
			t.Errorf("the fake libcuda saw %d bad calls; last: %s", n, cString(buf))
		}
		if withBLAS {
			if n := f.blasBad(&buf[0], int32(len(buf))); n != 0 {
				t.Errorf("the fake libcublas saw %d bad calls; last: %s", n, cString(buf))
			}
			if n := f.ltBad(&buf[0], int32(len(buf))); n != 0 {
				t.Errorf("the fake libcublasLt saw %d bad calls; last: %s", n, cString(buf))
			}
		}
	})
	return f
}

func (f *fakes) open(t *testing.T, opts Options) []*Device {
	t.Helper()
	opts.Env = &f.env
	if opts.Exit == nil {
		opts.Exit = func(msg string) { t.Errorf("watchdog fired: %s", msg) }
	}
	devs, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*Device, len(devs))
	for i, d := range devs {
		out[i] = d.(*Device)
	}
	t.Cleanup(func() {
		for _, d := range out {
			if err := d.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	})
	return out
}

func (f *fakes) last() string {
	buf := make([]byte, 512)
	f.blasLast(&buf[0], int32(len(buf)))
	return cString(buf)
}

// The recorded H200, through the driver API and NVML together.
func TestInfoH200(t *testing.T) {
	f := newFakes(t, true, true)
	d := f.open(t, Options{})[0]
	got := d.Info()
	libs := got.Libraries
	got.Libraries = nil
	want := gpu.Info{Name: "NVIDIA H200", UUID: "GPU-8a89bb26-423b-7217-aa80-469f70fa0196",
		MemoryBytes: 143771 << 20, MemoryFreeBytes: 149560000000, Driver: "580.159.04", Runtime: "13.0", Multiprocs: 132, ComputeCap: "9.0",
		ClockMHz: 345, MaxClockMHz: 1980, MemClockMHz: 3201, PowerLimitW: 700, PCIeGen: 5, PCIeWidth: 16,
		ECC: "enabled", MIG: "disabled", Virtualized: "PASSTHROUGH", NUMANode: -1, BusID: "00000000:00:06.0",
		Architecture: "Hopper",
		NUMABinding:  "the GPU's NUMA node is unknown (NVML and sysfs name none: one node, or firmware that does not say); host memory placed as the kernel chose"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Info:\n got %+v\nwant %+v", got, want)
	}
	for _, k := range []string{"cuda", "cublas", "nvml"} {
		if !strings.HasPrefix(libs[k], "/") {
			t.Errorf("Libraries[%s] = %q, want the file that loaded", k, libs[k])
		}
	}
	if libs["cublas_version"] != "13.1.0" {
		t.Errorf("cublas_version = %q, want 13.1.0", libs["cublas_version"])
	}
	s, err := d.Sample()
	if err != nil || s.PowerW != 80.056 || s.SMClockMHz != 345 {
		t.Errorf("Sample = %+v, %v", s, err)
	}
	if w, err := d.MemBusWidthBits(); err != nil || w != 6016 {
		t.Errorf("MemBusWidthBits = %d, %v; want 6016", w, err)
	}
}

func TestInfoWithoutNVML(t *testing.T) {
	f := newFakes(t, false, false)
	d := f.open(t, Options{NoNVML: true})[0]
	got := d.Info()
	if got.MemoryBytes != 150109880320 || got.BusID != "0000:00:06.0" || got.Driver != "" ||
		got.MaxClockMHz != 1980 || got.MemClockMHz != 3201 || got.ECC != "enabled" || got.Name != "NVIDIA H200" {
		t.Errorf("Info without NVML = %+v", got)
	}
	if _, err := d.Sample(); !errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("Sample without NVML: err = %v, want gpu.ErrUnsupported", err)
	}
	// Without cuBLAS a product names what is missing.
	a, _ := d.Alloc(64)
	if err := d.Gemm(gpu.FP32, 2, 2, 2, a, a, a); err == nil || !strings.Contains(err.Error(), "needs cuBLAS") ||
		!errors.Is(err, dl.ErrNotFound) {
		t.Errorf("Gemm without cuBLAS: err = %v", err)
	}
	d.Free(a)
}

func TestMemory(t *testing.T) {
	f := newFakes(t, false, false)
	d := f.open(t, Options{NoNVML: true})[0]
	const n = 1 << 12
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + 3)
	}
	a, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Upload(a, src); err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(b, a, n); err != nil {
		t.Fatal(err)
	}
	host, err := d.HostAlloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Download(host, b); err != nil {
		t.Fatal(err)
	}
	if string(host) != string(src) {
		t.Error("upload → copy → download did not give the bytes back")
	}
	if err := d.Fill32(a, 0x3f800000, n/4); err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := d.Download(host, a); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 4 {
		if w := binary.LittleEndian.Uint32(host[i:]); w != 0x3f800000 {
			t.Fatalf("word %d = %#x after Fill32, want 0x3f800000", i/4, w)
		}
	}
	if err := d.HostFree(host); err != nil {
		t.Error(err)
	}
	if err := d.HostFree(make([]byte, 8)); err == nil {
		t.Error("HostFree of Go memory succeeded")
	}
	for _, p := range []gpu.Ptr{a, b} {
		if err := d.Free(p); err != nil {
			t.Error(err)
		}
	}
	_, err = d.Alloc(200 << 30)
	var ce *Error
	if !errors.As(err, &ce) || ce.Name != "CUDA_ERROR_OUT_OF_MEMORY" || ce.Message != "out of memory" ||
		!strings.HasPrefix(err.Error(), "GPU 0: cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory; fix: ") {
		t.Errorf("Alloc(200 GiB): err = %v, want CUDA_ERROR_OUT_OF_MEMORY", err)
	}
	for _, err := range []error{first(d.Alloc(0)), d.Copy(a, b, -1), d.Fill32(a, 0, -1), first(d.HostAlloc(-5))} {
		if err == nil {
			t.Error("a bad size was accepted")
		}
	}
}

func first[T any](_ T, err error) error { return err }

func putF32(b []byte, v []float32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
}

func TestGemm(t *testing.T) {
	f := newFakes(t, true, false)
	d := f.open(t, Options{NoNVML: true})[0]
	const m, n, k = 3, 2, 4
	r := rand.New(rand.NewPCG(1, 2))
	av, bv := make([]float32, m*k), make([]float32, k*n)
	for i := range av {
		av[i] = float32(r.IntN(9) - 4) // small integers: exact in bf16, fp32 and fp64
	}
	for i := range bv {
		bv[i] = float32(r.IntN(9) - 4)
	}
	want := make([]float64, m*n) // column-major C = A·B
	for j := range n {
		for i := range m {
			for l := range k {
				want[j*m+i] += float64(av[l*m+i]) * float64(bv[j*k+l])
			}
		}
	}
	tests := []struct {
		dt   gpu.DType
		args string
	}{
		{gpu.FP32, "atype=0 lda=3 btype=0 ldb=4 beta=0 ctype=0 ldc=3 compute=68 algo=-1"},
		{gpu.TF32, "atype=0 lda=3 btype=0 ldb=4 beta=0 ctype=0 ldc=3 compute=77 algo=-1"},
		{gpu.BF16, "atype=14 lda=3 btype=14 ldb=4 beta=0 ctype=14 ldc=3 compute=68 algo=-1"},
		{gpu.FP16, "atype=2 lda=3 btype=2 ldb=4 beta=0 ctype=2 ldc=3 compute=68 algo=-1"},
		{gpu.FP64, "atype=1 lda=3 btype=1 ldb=4 beta=0 ctype=1 ldc=3 compute=70 algo=-1"},
	}
	for _, tt := range tests {
		es := tt.dt.ElemBytes()
		enc := func(v []float32) []byte {
			b := make([]byte, len(v)*es)
			for i, x := range v {
				switch tt.dt {
				case gpu.FP64:
					binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(float64(x)))
				case gpu.BF16:
					binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(x)>>16))
				case gpu.FP16:
					// the fake does not compute fp16: any bytes do
				default:
					putF32(b[4*i:], []float32{x})
				}
			}
			return b
		}
		pa, _ := d.Alloc(int64(m * k * es))
		pb, _ := d.Alloc(int64(k * n * es))
		pc, _ := d.Alloc(int64(m * n * es))
		if err := d.Upload(pa, enc(av)); err != nil {
			t.Fatal(err)
		}
		if err := d.Upload(pb, enc(bv)); err != nil {
			t.Fatal(err)
		}
		if err := d.Gemm(tt.dt, m, n, k, pa, pb, pc); err != nil {
			t.Fatalf("%s: %v", tt.dt, err)
		}
		if got, want := f.last(), "transa=0 transb=0 m=3 n=2 k=4 alpha=1 "+tt.args; got != want {
			t.Errorf("%s: cublasGemmEx got\n %s\nwant\n %s", tt.dt, got, want)
		}
		out := make([]byte, m*n*es)
		if err := d.Download(out, pc); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			var got float64
			switch tt.dt {
			case gpu.FP64:
				got = math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:]))
			case gpu.BF16:
				got = float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(out[2*i:])) << 16))
			case gpu.FP16:
				continue
			default:
				got = float64(math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])))
			}
			if got != want[i] {
				t.Errorf("%s: C[%d] = %v, want %v", tt.dt, i, got, want[i])
			}
		}
		for _, p := range []gpu.Ptr{pa, pb, pc} {
			d.Free(p)
		}
	}
	if err := d.Gemm(gpu.FP32, 0, 16, 16, 1, 1, 1); err == nil || !strings.Contains(err.Error(), "m = 0 is not in 1..") {
		t.Errorf("m = 0: err = %v", err)
	}
}

func TestTimeMeasuresQueuedWork(t *testing.T) {
	f := newFakes(t, true, false)
	d := f.open(t, Options{NoNVML: true})[0]
	p, _ := d.Alloc(64 * 64 * 4)
	f.set("gemm_us", 3000)
	dur, err := d.Time(func() error { return d.Gemm(gpu.FP32, 64, 64, 1, p, p, p) })
	if err != nil {
		t.Fatal(err)
	}
	if dur < 3*time.Millisecond || dur > time.Second {
		t.Errorf("Time of a 3 ms product = %s", dur)
	}
	wantErr := errors.New("queued nothing")
	if _, err := d.Time(func() error { return wantErr }); !errors.Is(err, wantErr) {
		t.Errorf("Time's own error lost: %v", err)
	}
	d.Free(p)
}

// Every call for a GPU, from however many goroutines, runs on that GPU's one
// thread, which has its context current (the fake fails any call from a
// thread without one).
func TestOneThreadPerDevice(t *testing.T) {
	f := newFakes(t, true, false)
	f.set("gpus", 2)
	devs := f.open(t, Options{NoNVML: true})
	if len(devs) != 2 {
		t.Fatalf("%d devices, want 2", len(devs))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				d := devs[(g+i)%2]
				p, err := d.Alloc(1024)
				if err != nil {
					t.Error(err)
					return
				}
				if err := d.Fill32(p, uint32(i), 256); err != nil {
					t.Error(err)
				}
				if err := d.Gemm(gpu.FP32, 16, 16, 1, p, p, p); err != nil {
					t.Error(err)
				}
				if err := d.Free(p); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	var tid [2]int32
	for i := range 2 {
		if n := f.tids(int32(i), &tid[i]); n != 1 {
			t.Errorf("GPU %d: calls came from %d threads, want 1", i, n)
		}
	}
	if tid[0] == tid[1] {
		t.Errorf("both GPUs used thread %d, want one each", tid[0])
	}
}

func TestTimeRegionRunsOnTheDeviceThread(t *testing.T) {
	f := newFakes(t, true, false)
	f.set("gpus", 2)
	devs := f.open(t, Options{NoNVML: true})
	d, other := devs[0], devs[1]
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // another goroutine using d meanwhile waits its turn
		defer wg.Done()
		for range 20 {
			p, err := d.Alloc(64)
			if err != nil {
				t.Error(err)
				return
			}
			d.Free(p)
		}
	}()
	for range 20 {
		_, err := d.Time(func() error {
			p, err := d.Alloc(4096) // inside the region: runs at once on d's thread
			if err != nil {
				return err
			}
			if err := d.Fill32(p, 7, 1024); err != nil {
				return err
			}
			q, err := other.Alloc(64) // another GPU's thread, from d's
			if err != nil {
				return err
			}
			if err := other.Free(q); err != nil {
				return err
			}
			return d.Free(p)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	var tid [2]int32
	for i := range 2 {
		if n := f.tids(int32(i), &tid[i]); n != 1 {
			t.Errorf("GPU %d: calls came from %d threads, want 1", i, n)
		}
	}
	if tid[0] == tid[1] {
		t.Error("both GPUs used one thread")
	}
}

func TestWatchdogNamesTheHungCall(t *testing.T) {
	f := newFakes(t, false, false)
	msgs := make(chan string, 4)
	d := f.open(t, Options{NoNVML: true, CallTimeout: 40 * time.Millisecond, Exit: func(m string) { msgs <- m }})[0]
	// A 1 s hang against a 40 ms deadline: the watchdog fires well inside it
	// even when a busy machine runs its goroutine late.
	f.set("hang_ms", 1000)
	if _, err := d.Time(func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	f.set("hang_ms", 0)
	select {
	case m := <-msgs:
		for _, want := range []string{"GPU 0: cuEventSynchronize has not returned after 40ms", "hung"} {
			if !strings.Contains(m, want) {
				t.Errorf("watchdog message %q lacks %q", m, want)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the watchdog did not fire for a 1 s call with a 40 ms deadline")
	}
	if len(msgs) != 0 {
		t.Errorf("the watchdog fired %d more times for one hung call", len(msgs))
	}
}

func TestWatchdogGuardsCuInit(t *testing.T) {
	f := newFakes(t, false, false)
	msgs := make(chan string, 4)
	f.set("init_ms", 1000) // 25 times the deadline: it fires in time on a busy machine
	devs, err := Open(Options{Env: &f.env, NoNVML: true, CallTimeout: 40 * time.Millisecond, Exit: func(m string) { msgs <- m }})
	f.set("init_ms", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		d.Close()
	}
	select {
	case m := <-msgs:
		if !strings.Contains(m, "CUDA: cuInit has not returned after 40ms") {
			t.Errorf("watchdog message %q", m)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the watchdog did not fire for a 1 s cuInit with a 40 ms deadline")
	}
}

func TestCloseReleasesEverything(t *testing.T) {
	f := newFakes(t, true, false)
	before := [5]int32{}
	for k := 1; k <= 4; k++ {
		before[k] = f.live(int32(k))
	}
	devs, err := Open(Options{Env: &f.env, NoNVML: true})
	if err != nil {
		t.Fatal(err)
	}
	d := devs[0].(*Device)
	if _, err := d.HostAlloc(100); err != nil { // left for Close to free
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 4; k++ {
		if got := f.live(int32(k)); got != before[k] && k != 3 { // 3: device memory goes with the context
			t.Errorf("live objects of kind %d: %d after Close, %d before Open", k, got, before[k])
		}
	}
	if n := f.blasLive(); n != 0 {
		t.Errorf("%d cuBLAS handles alive after Close", n)
	}
	if _, err := d.Alloc(16); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("Alloc after Close: err = %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestDriverVariants(t *testing.T) {
	// An older driver without cuEventElapsedTime_v2, and without a required
	// symbol: one build shows both.
	dir := dltest.Build(t, "testdata/fakecuda.c", "libcuda.so.1", "-DNO_ELAPSED_V2", "-DNO_MEMSET")
	env := dltest.Env(dir)
	_, err := Open(Options{Env: &env, NoNVML: true})
	var me *dl.MissingError
	if !errors.As(err, &me) || len(me.Missing) != 1 || me.Missing[0] != "cuMemsetD32Async" {
		t.Errorf("without cuMemsetD32Async: err = %v", err)
	}
	lib, err := dl.OpenEnv(dl.CUDA, env)
	if err != nil {
		t.Fatal(err)
	}
	var fs driverFuncs
	b, _ := lib.Bind(fs.table())
	if got := b.Names["cuEventElapsedTime_v2"]; got != "cuEventElapsedTime" {
		t.Errorf("elapsed time bound as %q, want the plain name on an older driver", got)
	}

	f := newFakes(t, false, false)
	f.set("nogpu", 1)
	_, err = Open(Options{Env: &f.env, NoNVML: true})
	f.set("nogpu", 0)
	if !NoGPU(err) || !strings.HasPrefix(err.Error(), "cuInit: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected; fix: check CUDA_VISIBLE_DEVICES") {
		t.Errorf("no GPU: err = %v, want cuInit: CUDA_ERROR_NO_DEVICE (100), the driver's message, a fix, and NoGPU", err)
	}
	env = dltest.Env(t.TempDir())
	if _, err = Open(Options{Env: &env}); !NoGPU(err) {
		t.Errorf("no driver: err = %v, want NoGPU", err)
	}
}

func TestOptionsAndNames(t *testing.T) {
	if _, err := chooseDevices([]int{0, 2}, 2); err == nil || err.Error() != "GPU 2 does not exist: this machine has GPUs 0..1" {
		t.Errorf("out of range: %v", err)
	}
	if _, err := chooseDevices([]int{1, 1}, 2); err == nil {
		t.Error("a GPU chosen twice was accepted")
	}
	if got, err := chooseDevices(nil, 3); err != nil || !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("all = %v, %v", got, err)
	}
	if _, err := Open(Options{CallTimeout: -time.Second}); err == nil || !strings.Contains(err.Error(), "call timeout -1s is not in 0..1h0m0s") {
		t.Errorf("negative timeout: %v", err)
	}
	names := []struct{ got, want string }{
		{Result(0).String(), "CUDA_SUCCESS"}, {Result(100).String(), "CUDA_ERROR_NO_DEVICE"},
		{Result(34).String(), "CUDA_ERROR_STUB_LIBRARY"}, {Result(803).String(), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
		{Result(12345).String(), "CUDA_ERROR_12345"}, {Status(15).String(), "CUBLAS_STATUS_NOT_SUPPORTED"},
		{Status(13).String(), "CUBLAS_STATUS_EXECUTION_FAILED"},
		{formatUUID([16]byte{0x8a, 0x89, 0xbb, 0x26, 0x42, 0x3b, 0x72, 0x17, 0xaa, 0x80, 0x46, 0x9f, 0x70, 0xfa, 0x01, 0x96}),
			"GPU-8a89bb26-423b-7217-aa80-469f70fa0196"},
	}
	for _, n := range names {
		if n.got != n.want {
			t.Errorf("got %s, want %s", n.got, n.want)
		}
	}
	if err := blasErr(0, "cublasGemmEx", 15); !errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("CUBLAS_STATUS_NOT_SUPPORTED does not match gpu.ErrUnsupported: %v", err)
	}
}

func TestPeerCopy(t *testing.T) {
	f := newFakes(t, false, true)
	f.set("gpus", 2)
	// The fake NVML has one GPU unless told: match the CUDA fake, with NVLink.
	nvlib, err := dl.OpenEnv(dl.NVML, f.env)
	if err != nil {
		t.Fatal(err)
	}
	var nvSet func(key string, v int64) int32
	if _, err := nvlib.Bind([]dl.Symbol{dl.Sym(&nvSet, "fake_nvml_set")}); err != nil {
		t.Fatal(err)
	}
	nvSet("gpus", 2)
	nvSet("nvlink", 4)
	t.Cleanup(func() { nvSet("reset", 0) })
	devs := f.open(t, Options{})
	a, b := devs[0], devs[1]
	if l, err := a.LinkTo(b); err != nil || l.Type != "NVLink" {
		t.Errorf("LinkTo = %+v, %v; want NVLink", l, err)
	}
	if b.Info().UUID != "GPU-00000000-0000-0000-0000-000000000001" || b.Info().BusID != "00000000:00:07.0" {
		t.Errorf("GPU 1 not matched to its NVML twin: %+v", b.Info())
	}
	if ok, err := a.CanAccessPeer(b); err != nil || !ok {
		t.Fatalf("CanAccessPeer = %v, %v", ok, err)
	}
	for range 2 { // the second time the driver says ALREADY_ENABLED: not an error
		if err := a.EnablePeer(b); err != nil {
			t.Fatal(err)
		}
	}
	src := []byte("peer-to-peer bytes, 32 of them!!")
	pb, _ := b.Alloc(int64(len(src)))
	pa, _ := a.Alloc(int64(len(src)))
	if err := b.Upload(pb, src); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Time(func() error { return a.CopyFromPeer(pa, b, pb, int64(len(src))) }); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(src))
	if err := a.Download(got, pa); err != nil {
		t.Fatal(err)
	}
	if string(got) != string(src) {
		t.Errorf("peer copy gave %q", got)
	}
	if err := a.CopyFromPeer(pa, b, pb, -1); err == nil {
		t.Error("a negative size was accepted")
	}
	a.Free(pa)
	b.Free(pb)
}

func TestNCCLAllReduce(t *testing.T) {
	f := newFakes(t, false, false)
	ncclDir := dltest.Build(t, "testdata/fakenccl.c", "libnccl.so.2")
	f.env.Dirs = append(f.env.Dirs, ncclDir)
	f.set("gpus", 2)
	devs := f.open(t, Options{NoNVML: true})
	lib, err := dl.OpenEnv(dl.NCCL, f.env)
	if err != nil {
		t.Fatal(err)
	}
	var bad func(buf *byte, n int32) int32
	var live func() int32
	if _, err := lib.Bind([]dl.Symbol{dl.Sym(&bad, "fake_nccl_bad"), dl.Sym(&live, "fake_nccl_live")}); err != nil {
		t.Fatal(err)
	}
	c, err := OpenComm(devs)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != "2.27.3" {
		t.Errorf("Version = %q, want 2.27.3", c.Version())
	}
	const count = 1024
	var bufs []gpu.Ptr
	for i, d := range devs {
		p, err := d.Alloc(count * 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fill32(p, math.Float32bits(float32(i+1)), count); err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, p)
	}
	if _, err := c.AllReduce(gpu.FP32, bufs, bufs, count, 0, 1); err != nil {
		t.Fatal(err)
	}
	for i, d := range devs {
		out := make([]byte, count*4)
		if err := d.Download(out, bufs[i]); err != nil {
			t.Fatal(err)
		}
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*(count-1):])); got != 3 {
			t.Errorf("GPU %d: after the all-reduce of 1 and 2: %v, want 3", i, got)
		}
	}
	if _, err := c.AllReduce(gpu.FP8, bufs, bufs, count, 0, 1); !errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("fp8 all-reduce: err = %v", err)
	}
	if _, err := c.AllReduce(gpu.FP32, bufs[:1], bufs, count, 0, 1); err == nil {
		t.Error("one buffer for two GPUs was accepted")
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if n := live(); n != 0 {
		t.Errorf("%d communicators alive after Close", n)
	}
	buf := make([]byte, 256)
	if n := bad(&buf[0], int32(len(buf))); n != 0 {
		t.Errorf("the fake NCCL saw %d bad calls; last: %s", n, cString(buf))
	}
	for _, d := range devs {
		d.Free(bufs[d.ord])
	}
}

func TestBusBandwidth(t *testing.T) {
	tests := []struct {
		bytes int64
		n     int
		t     time.Duration
		want  float64
	}{
		{1 << 30, 8, time.Second, float64(1<<30) * 2 * 7 / 8}, // nccl-tests: busbw = algbw × 2(n−1)/n
		{1e9, 2, 100 * time.Millisecond, 1e10},
		{1e9, 1, time.Second, 0},
	}
	for _, tt := range tests {
		if got := BusBandwidth(tt.bytes, tt.n, tt.t); math.Abs(got-tt.want) > 1e-6*tt.want {
			t.Errorf("BusBandwidth(%d, %d, %s) = %v, want %v", tt.bytes, tt.n, tt.t, got, tt.want)
		}
	}
}
