package cuda

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
)

// asyncFakes are the fakes in their real-time mode (fakecuda.c's "async"):
// calls cost the host callNS, work runs after what is queued before it,
// events read when their stream reaches them.
func asyncFakes(t *testing.T, gpus int64, callNS, scale int64, withNCCL bool) (*fakes, []*Device) {
	t.Helper()
	f := newFakes(t, true, false)
	if withNCCL {
		f.env.Dirs = append(f.env.Dirs, dltest.Build(t, "testdata/fakenccl.c", "libnccl.so.2"))
	}
	f.set("gpus", gpus)
	f.set("async", 1)
	f.set("call_ns", callNS)
	f.set("scale", scale)
	t.Cleanup(func() { f.set("reset", 0) })
	return f, f.open(t, Options{NoNVML: true})
}

// busyFraction binds fake_cuda_busy and fake_cuda_now.
func busyClock(t *testing.T, env dl.Env) (busy func(dev int32, a, b float64) float64, now func() float64) {
	t.Helper()
	lib, err := dl.OpenEnv(dl.CUDA, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Bind([]dl.Symbol{dl.Sym(&busy, "fake_cuda_busy"), dl.Sym(&now, "fake_cuda_now")}); err != nil {
		t.Fatal(err)
	}
	return busy, now
}

// An 8-byte all-reduce over four GPUs takes 5 ms of GPU time (5000.08 ns ×
// 1000); each driver call and each rank's launch costs the host 250 µs. The
// time of one all-reduce must be the GPUs' 5 ms: recording each GPU's start
// event through its own thread before handing the all-reduces to NCCL's
// (the old way) counted four records, the hand-offs and a group launch,
// about 2 ms, in the first of four all-reduces: 10% high.
func TestAllReduceTimesOnlyTheGPUs(t *testing.T) {
	_, devs := asyncFakes(t, 4, 250_000, 1000, true)
	c, err := OpenComm(devs)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var bufs []gpu.Ptr
	for i, d := range devs {
		p, err := d.Alloc(8)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fill32(p, math.Float32bits(float32(i+1)), 2); err != nil {
			t.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, p)
		defer d.Free(p)
	}
	const want = 5000080 * time.Nanosecond // (5000 + 2·3/4·8/128) × 1000
	// A host that falls behind (a busy machine keeps the spinning threads
	// off their CPUs) only adds time: the best of three tries is the GPUs'.
	for _, iters := range []int{4, 10} {
		dltest.Timing(t, func(errorf func(string, ...any)) {
			best := time.Hour
			for range 3 {
				got, err := c.AllReduce(gpu.FP32, bufs, bufs, 2, 3, iters)
				if err != nil {
					t.Fatal(err)
				}
				if got < want-want/100 {
					t.Errorf("all-reduce of 8 B × %d: %v, less than the GPUs' %v", iters, got, want)
				}
				best = min(best, got)
			}
			if math.Abs(float64(best-want)) > 0.015*float64(want) {
				errorf("all-reduce of 8 B × %d after 3 warm-up: at best %v per all-reduce, want %v ± 1.5%% (the GPUs' time alone)", iters, best, want)
			}
		})
	}
	// Without a warm-up the start events are recorded on idle streams: the
	// host's queueing of the first all-reduce is counted, as it must be.
	got, err := c.AllReduce(gpu.FP32, bufs, bufs, 2, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got < want+750*time.Microsecond {
		t.Errorf("one all-reduce from idle: %v; want at least the 5 ms and the 4 × 250 µs launch", got)
	}
	out := make([]byte, 4)
	if err := devs[3].Download(out, bufs[3]); err != nil {
		t.Fatal(err)
	}
}

// A sustained run keeps the GPU busy: with 100 µs of host cost per call
// and 1 ms products, timing one product at a time (record, queue, record,
// wait) leaves the GPU idle a third of the time; Pipeline queues the next
// batch before it waits for the last, so the GPU never waits for the host,
// and each batch's time is its products' (3 × 1 ms).
func TestPipelineKeepsTheGPUBusy(t *testing.T) {
	f, devs := asyncFakes(t, 1, 100_000, 8000, false)
	d := devs[0]
	const n = 32 // fp32 32³ at 256 FLOP/ns × 8000: 2.048 ms
	p, err := d.Alloc(n * n * 4)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(p)
	busy, now := busyClock(t, f.env)
	product := func() error { return d.Gemm(gpu.FP32, n, n, n, p, p, p) }

	batch := func() error {
		for range 3 {
			if err := product(); err != nil {
				return err
			}
		}
		return nil
	}
	dltest.Timing(t, func(errorf func(string, ...any)) {
		t0 := now()
		for range 20 {
			if _, err := d.Time(product); err != nil {
				t.Fatal(err)
			}
		}
		t1 := now()
		oneByOne := busy(0, t0, t1) / (t1 - t0)
		t0 = now()
		times, err := d.Pipeline(batch, func(done int) bool { return done < 20 })
		if err != nil {
			t.Fatal(err)
		}
		t1 = now()
		pipelined := busy(0, t0, t1) / (t1 - t0)
		// more said yes up to done 19, with pipelineDepth batches queued beyond
		if len(times) != 20+pipelineDepth {
			t.Errorf("%d batch times, want %d", len(times), 20+pipelineDepth)
		}
		// Each batch is its three products' GPU time (a host that fell
		// behind, on a busy machine, may leave a gap in a few).
		exact := 0
		for _, tm := range times {
			if want := 3 * 2048 * time.Microsecond; math.Abs(float64(tm-want)) <= 1e-3*float64(want) {
				exact++
			}
		}
		if exact < len(times)*3/4 {
			errorf("%d of %d batches took their products' 6.144 ms: %v", exact, len(times), times)
		}
		if pipelined < 0.85 {
			errorf("the GPU was busy %.0f%% of a pipelined run, want at least 85%%", 100*pipelined)
		}
		if oneByOne > pipelined-0.1 {
			errorf("one product at a time kept the GPU busy %.0f%%, pipelined %.0f%%: the fake shows no host cost", 100*oneByOne, 100*pipelined)
		}
	})
	// A batch that fails stops the run with its error.
	calls := 0
	_, err = d.Pipeline(func() error {
		calls++
		if calls == 3 {
			return d.Gemm(gpu.FP32, 0, n, n, p, p, p)
		}
		return product()
	}, func(int) bool { return true })
	if err == nil || !strings.Contains(err.Error(), "m = 0") {
		t.Errorf("a failing batch: %v", err)
	}
}

// A hung driver call runs gpu.OnHang's hooks before the watchdog ends the
// process: bench writes what it measured there.
func TestWatchdogRunsHangHooks(t *testing.T) {
	f := newFakes(t, false, false)
	var mu sync.Mutex
	var order []string
	exited := make(chan struct{}, 4)
	d := f.open(t, Options{NoNVML: true, CallTimeout: 40 * time.Millisecond, Exit: func(m string) {
		mu.Lock()
		order = append(order, "exit")
		mu.Unlock()
		exited <- struct{}{}
	}})[0]
	remove := gpu.OnHang(func(msg string) {
		mu.Lock()
		order = append(order, "hook: "+msg)
		mu.Unlock()
	})
	defer remove()
	f.set("hang_ms", 1000)
	if _, err := d.Time(func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	f.set("hang_ms", 0)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the watchdog did not fire")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 2 || !strings.HasPrefix(order[0], "hook: gpuscout: GPU 0: cuEventSynchronize has not returned after 40ms") || order[1] != "exit" {
		t.Errorf("watchdog: %q; want the hook with the message, then the exit", order)
	}
}

// The GPU's NUMA node comes from sysfs where NVML names none (as in most
// VMs: the fake NVML answers NOT_SUPPORTED), and the thread that drives the
// GPU, which allocates its pinned host buffers, is bound to that node's
// CPUs with its memory preferred there.
func TestNUMAPlacement(t *testing.T) {
	root := t.TempDir()
	write := func(path, s string) {
		t.Helper()
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bus/pci/devices/0000:00:06.0/numa_node", "0\n")
	write("bus/pci/devices/0000:00:07.0/numa_node", "-1\n")
	write("devices/system/node/node0/cpulist", "0\n")
	old := sysfsRoot
	sysfsRoot = root
	defer func() { sysfsRoot = old }()
	f := newFakes(t, false, true)
	f.set("gpus", 2)
	fakeNVML(t, f.env, 2, 0)
	devs := f.open(t, Options{})
	in := devs[0].Info()
	if in.NUMANode != 0 || !strings.HasPrefix(in.NUMABinding, "the GPU's thread bound to NUMA node 0's CPUs 0") {
		t.Errorf("GPU 0: NUMA node %d, %q", in.NUMANode, in.NUMABinding)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", devs[0].w.tid.Load()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "Cpus_allowed_list:\t0\n") {
		t.Errorf("GPU 0's thread may run on:\n%s", status)
	}
	if in := devs[1].Info(); in.NUMANode != -1 || !strings.HasPrefix(in.NUMABinding, "the GPU's NUMA node is unknown") {
		t.Errorf("GPU 1: NUMA node %d, %q", in.NUMANode, in.NUMABinding)
	}
	for _, tc := range []struct{ in, want string }{
		{"00000000:00:06.0", "0000:00:06.0"}, {"0000:3B:00.0", "0000:3b:00.0"}, {"0001:c1:00.1", "0001:c1:00.1"}, {"nonsense", ""},
	} {
		if got, _ := sysfsBusID(tc.in); got != tc.want {
			t.Errorf("sysfsBusID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if cpus, err := parseCPUList("0-3,8,10-11\n"); err != nil || cpuList(cpus) != "0-3,8,10-11" || len(cpus) != 7 {
		t.Errorf("parseCPUList: %v %v", cpus, err)
	}
}
