package cuda

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// TestRealGPU drives the machine's real GPU 0 the way the research note's
// probe did (../shared/research-notes/gpu-probe-h200.md): bf16 8192³
// products, a 2 GiB device copy, 1 GiB pinned host copies. It runs only with
// GPUSCOUT_GPU_TEST=1 (a device check: `GPUSCOUT_GPU_TEST=1 go test -run
// RealGPU -v ./internal/gpu/cuda/`) and, on an H200, holds the figures to
// what the note measured on one (769 TFLOP/s, 4239 GB/s, 55 GB/s).
func TestRealGPU(t *testing.T) {
	if os.Getenv("GPUSCOUT_GPU_TEST") != "1" {
		t.Skip("set GPUSCOUT_GPU_TEST=1 to drive the real GPU")
	}
	devs, err := Open(Options{Devices: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	d := devs[0].(*Device)
	defer d.Close()
	info := d.Info()
	t.Logf("info: %+v", info)
	median := func(name string, warm, iters int, f func() error) time.Duration {
		var ds []time.Duration
		for i := range warm + iters {
			dur, err := d.Time(f)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if i >= warm {
				ds = append(ds, dur)
			}
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}

	const n = 8192
	bytes := int64(n * n * 2)
	host, err := d.HostAlloc(bytes)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < len(host); i += 2 { // random bf16 in [-1, 1): never zeros
		binary.LittleEndian.PutUint16(host[i:], uint16(math.Float32bits(float32(r.Float64()*2-1))>>16))
	}
	var p [3]gpu.Ptr
	for i := range p {
		if p[i], err = d.Alloc(bytes); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Upload(p[0], host); err != nil {
		t.Fatal(err)
	}
	if err := d.Upload(p[1], host); err != nil {
		t.Fatal(err)
	}
	gemm := median("gemm bf16", 3, 10, func() error { return d.Gemm(gpu.BF16, n, n, n, p[0], p[1], p[2]) })
	tflops := 2 * float64(n) * n * n / gemm.Seconds() / 1e12
	t.Logf("gemm bf16 %d³: median %s = %.0f TFLOP/s", n, gemm, tflops)

	h2d := median("h2d", 2, 10, func() error { return d.Upload(p[0], host) })
	d2h := median("d2h", 2, 10, func() error { return d.Download(host, p[0]) })
	t.Logf("pinned %d MiB: h2d %.1f GB/s, d2h %.1f GB/s", bytes>>20, float64(bytes)/h2d.Seconds()/1e9, float64(bytes)/d2h.Seconds()/1e9)
	for i := range p {
		d.Free(p[i])
	}
	d.HostFree(host)

	const copyBytes = 2 << 30
	a, err := d.Alloc(copyBytes)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(copyBytes)
	if err != nil {
		t.Fatal(err)
	}
	d.Fill32(a, 0x3f800000, copyBytes/4)
	cp := median("copy", 3, 20, func() error { return d.Copy(b, a, copyBytes) })
	gbps := 2 * float64(copyBytes) / cp.Seconds() / 1e9 // bytes read + written
	t.Logf("device copy 2 GiB: %.0f GB/s (read + write)", gbps)
	d.Free(a)
	d.Free(b)
	if s, err := d.Sample(); err == nil {
		t.Logf("sample: %+v", s)
	}
	if strings.Contains(info.Name, "H200") {
		if tflops < 0.9*769 {
			t.Errorf("bf16 %.0f TFLOP/s, under 90%% of the 769 the probe measured", tflops)
		}
		if gbps < 0.9*4239 {
			t.Errorf("device copy %.0f GB/s, under 90%% of the 4239 the probe measured", gbps)
		}
	}
}
