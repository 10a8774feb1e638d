package cuda

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
	"github.com/gpuscout/gpuscout/internal/gpu/host"
)

// On the fake's virtual clock each operation takes a set time, so what
// Time returns is a hand calculation (fakecuda.c's table).
func TestVirtualClock(t *testing.T) {
	f := newFakes(t, true, false)
	f.set("vclock", 1)
	d := f.open(t, Options{NoNVML: true})[0]
	const n = 64
	var bufs []gpu.Ptr
	for range 3 {
		p, err := d.Alloc(n * n * 8)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, p)
		defer d.Free(p)
	}
	a, b, c := bufs[0], bufs[1], bufs[2]
	for _, tc := range []struct {
		what string
		op   func() error
		want time.Duration
	}{
		{"32 KiB device copy at 2048 B/ns", func() error { return d.Copy(a, b, 1<<15) }, 16 * time.Nanosecond},
		{"fp32 64³ at 256 FLOP/ns", func() error { return d.Gemm(gpu.FP32, n, n, n, a, b, c) }, 2048 * time.Nanosecond},
		{"tf32 64³ at 1024 FLOP/ns", func() error { return d.Gemm(gpu.TF32, n, n, n, a, b, c) }, 512 * time.Nanosecond},
		{"bf16 then fp16 64³ at 2048 FLOP/ns", func() error {
			if err := d.Gemm(gpu.BF16, n, n, n, a, b, c); err != nil {
				return err
			}
			return d.Gemm(gpu.FP16, n, n, n, a, b, c)
		}, 512 * time.Nanosecond},
		{"fp64 64³ at 128 FLOP/ns", func() error { return d.Gemm(gpu.FP64, n, n, n, a, b, c) }, 4096 * time.Nanosecond},
		{"a fill of 1024 words", func() error { return d.Fill32(a, 1, 1024) }, 1001 * time.Nanosecond},
	} {
		got, err := d.Time(tc.op)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.what, got, err, tc.want)
		}
	}
}

// fakeNVML sets the fake NVML's GPU count and NVLink links.
func fakeNVML(t *testing.T, env dl.Env, gpus, links int64) {
	t.Helper()
	lib, err := dl.OpenEnv(dl.NVML, env)
	if err != nil {
		t.Fatal(err)
	}
	var set func(key string, v int64) int32
	if _, err := lib.Bind([]dl.Symbol{dl.Sym(&set, "fake_nvml_set")}); err != nil {
		t.Fatal(err)
	}
	set("gpus", gpus)
	set("nvlink", links)
	t.Cleanup(func() { set("reset", 0) })
}

// The gpu.Peer view of a CUDA GPU: the link type alone, peer copies timed
// on the virtual clock (2 µs + n/256 ns with access, 10 µs + n/32 without),
// and devices of another kind refused by name.
func TestPeerInterface(t *testing.T) {
	f := newFakes(t, false, true)
	f.set("gpus", 3)
	f.set("vclock", 1)
	fakeNVML(t, f.env, 3, 0)
	devs := f.open(t, Options{})
	var a, b gpu.Peer = devs[0], devs[1]
	if l, err := a.PeerLink(b); err != nil || l != "NODE" {
		t.Errorf("PeerLink without NVLink = %q, %v; want NODE (the fake's PCIe topology)", l, err)
	}
	pa, _ := a.Alloc(1 << 20)
	pb, _ := b.Alloc(1 << 20)
	defer a.Free(pa)
	defer b.Free(pb)
	staged, err := devs[0].Time(func() error { return a.CopyFromPeer(pa, b, pb, 1<<20) })
	if err != nil || staged != 10000*time.Nanosecond+(1<<20)/32 {
		t.Errorf("staged peer copy: %v, %v; want 42.768µs", staged, err)
	}
	if err := a.EnablePeer(b); err != nil {
		t.Fatal(err)
	}
	direct, err := devs[0].Time(func() error { return a.CopyFromPeer(pa, b, pb, 1<<20) })
	if err != nil || direct != 2000*time.Nanosecond+(1<<20)/256 {
		t.Errorf("direct peer copy: %v, %v; want 6.096µs", direct, err)
	}
	cpu := host.New(host.Config{Threads: 1})
	defer cpu.Close()
	for name, err := range map[string]error{
		"CanAccessPeer": func() error { _, err := a.CanAccessPeer(cpu); return err }(),
		"EnablePeer":    a.EnablePeer(cpu),
		"CopyFromPeer":  a.CopyFromPeer(pa, cpu, 4096, 4),
		"PeerLink":      func() error { _, err := a.PeerLink(cpu); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "a peer must be a CUDA GPU, not *host.Device") {
			t.Errorf("%s with the CPU device: %v", name, err)
		}
	}
}

// The gpu.Comm over NCCL: out-of-place fp32 sums checked, the time of one
// all-reduce from the virtual clock (5 µs + 2(r−1)/r · n/128 ns), buffers
// and communicators freed by Close.
func TestCollective(t *testing.T) {
	f := newFakes(t, false, false)
	f.env.Dirs = append(f.env.Dirs, dltest.Build(t, "testdata/fakenccl.c", "libnccl.so.2"))
	f.set("gpus", 3)
	f.set("vclock", 1)
	devs := f.open(t, Options{NoNVML: true})
	gd := make([]gpu.Device, len(devs))
	for i, d := range devs {
		gd[i] = d
	}
	c, err := OpenCollective(gd)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range ncclSettings {
		if _, ok := os.LookupEnv(name); ok {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	if c.Devices() != 3 || c.Describe() != "NCCL 2.27.3" {
		t.Errorf("Devices %d, Describe %q", c.Devices(), c.Describe())
	}
	t.Setenv("NCCL_ALGO", "Ring")
	t.Setenv("NCCL_NVLS_ENABLE", "0")
	if got := c.Describe(); got != "NCCL 2.27.3, NCCL_ALGO=Ring, NCCL_NVLS_ENABLE=0" {
		t.Errorf("Describe with settings = %q", got)
	}
	for _, tc := range []struct {
		bytes int64
		iters int
		want  time.Duration
	}{
		{8, 4, 5000 * time.Nanosecond},        // 5000 + 4/3·8/128 = 5000.08
		{1 << 20, 3, 15923 * time.Nanosecond}, // 5000 + 4/3·1048576/128 = 15922.67
		{64, 1, 5001 * time.Nanosecond},       // 5000.67; smaller than the buffers: no regrowth
	} {
		got, err := c.AllReduce(gpu.FP32, tc.bytes, 0, tc.iters)
		if err != nil || got < tc.want-time.Nanosecond || got > tc.want+time.Nanosecond {
			t.Errorf("AllReduce(%d B × %d) = %v, %v; want %v ± 1 ns", tc.bytes, tc.iters, got, err, tc.want)
		}
	}
	if _, err := c.AllReduce(gpu.FP32, 6, 0, 1); err == nil || !strings.Contains(err.Error(), "want a positive multiple of fp32's 4 bytes") {
		t.Errorf("6 bytes of fp32: %v", err)
	}
	if _, err := c.AllReduce(gpu.FP8, 8, 0, 1); !errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("fp8: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := f.live(3); n != 0 { // DEVMEM
		t.Errorf("%d device allocations alive after Close", n)
	}
	cpu := host.New(host.Config{Threads: 1})
	defer cpu.Close()
	if _, err := OpenCollective([]gpu.Device{devs[0], cpu}); !errors.Is(err, gpu.ErrUnsupported) || !strings.Contains(err.Error(), "device 1 is a *host.Device, not a CUDA GPU") {
		t.Errorf("with the CPU device: %v", err)
	}
	// Without libnccl.so.2 the all-reduce is not measurable: ErrNoCollective.
	f.env.Dirs = f.env.Dirs[:1]
	devs2 := f.open(t, Options{NoNVML: true})
	if _, err := OpenCollective([]gpu.Device{devs2[0], devs2[1]}); !errors.Is(err, gpu.ErrNoCollective) {
		t.Errorf("without NCCL: %v, want ErrNoCollective", err)
	}
}
