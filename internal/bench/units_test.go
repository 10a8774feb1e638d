package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Known bit patterns, ties to even included.
func TestConversions(t *testing.T) {
	f32 := math.Float32frombits
	for _, tc := range []struct {
		in   float32
		bf16 uint16
		fp16 uint16
		fp8  uint8
	}{
		{1, 0x3f80, 0x3c00, 0x38},
		{-2, 0xc000, 0xc000, 0xc0},
		{0, 0x0000, 0x0000, 0x00},
		{float32(math.Copysign(0, -1)), 0x8000, 0x8000, 0x80},
		{float32(math.Pi), 0x4049, 0x4248, 0x45}, // 3.140625, 3.140625, 3.25
		{0.1, 0x3dcd, 0x2e66, 0x1d},              // fp8 0.1015625
		{f32(0x3f808000), 0x3f80, 0x3c04, 0x38},  // 1+2^-8: a bf16 tie, down to even
		{f32(0x3f818000), 0x3f82, 0x3c0c, 0x38},  // 1+3·2^-8: a bf16 tie, up to even
		{1 + 1.0/2048, 0x3f80, 0x3c00, 0x38},     // an fp16 tie, down to even
		{1 + 3.0/2048, 0x3f80, 0x3c02, 0x38},     // an fp16 tie, up to even
		{1.0625, 0x3f88, 0x3c40, 0x38},           // an fp8 tie (1 and 1.125), down to even
		{1.1875, 0x3f98, 0x3cc0, 0x3a},           // an fp8 tie (1.125 and 1.25), up to even
		{65504, 0x4780, 0x7bff, 0x7e},            // largest half; fp8 saturates at 448
		{65520, 0x4780, 0x7c00, 0x7e},            // half tie at the top: infinity
		{448, 0x43e0, 0x5f00, 0x7e},              // largest E4M3
		{240, 0x4370, 0x5b80, 0x77},              //
		{1.0 / (1 << 24), 0x3380, 0x0001, 0x00},  // smallest half subnormal
		{1.0 / (1 << 25), 0x3300, 0x0000, 0x00},  // half tie with zero: zero
		{1.5 / (1 << 25), 0x3340, 0x0001, 0x00},  //
		{1.0 / (1 << 14), 0x3880, 0x0400, 0x00},  // smallest normal half
		{1.0 / (1 << 9), 0x3b00, 0x1800, 0x01},   // smallest E4M3 subnormal
		{1.0 / (1 << 6), 0x3c80, 0x2400, 0x08},   // smallest E4M3 normal
		{f32(0x7f7fffff), 0x7f80, 0x7c00, 0x7e},  // largest float32: bf16 rounds to infinity
		{float32(math.Inf(1)), 0x7f80, 0x7c00, 0x7e},
	} {
		if got := BF16(tc.in); got != tc.bf16 {
			t.Errorf("BF16(%g) = %#04x, want %#04x", tc.in, got, tc.bf16)
		}
		if got := FP16(tc.in); got != tc.fp16 {
			t.Errorf("FP16(%g) = %#04x, want %#04x", tc.in, got, tc.fp16)
		}
		if got := FP8(tc.in); got != tc.fp8 {
			t.Errorf("FP8(%g) = %#02x, want %#02x", tc.in, got, tc.fp8)
		}
	}
	nan := float32(math.NaN())
	if BF16(nan)&0x7fc0 != 0x7fc0 || FP16(nan)&0x7e00 != 0x7e00 || FP8(nan) != 0x7f {
		t.Errorf("NaN: %#x %#x %#x", BF16(nan), FP16(nan), FP8(nan))
	}
}

// Every finite pattern survives widening and narrowing unchanged.
func TestConversionRoundTrip(t *testing.T) {
	for h := range 1 << 16 {
		b := uint16(h)
		if v := FromBF16(b); v == v && BF16(v) != b {
			t.Fatalf("bf16 %#04x → %g → %#04x", b, v, BF16(v))
		}
		if v := FromFP16(b); v == v && !math.IsInf(float64(v), 0) && FP16(v) != b {
			t.Fatalf("fp16 %#04x → %g → %#04x", b, v, FP16(v))
		}
	}
	for h := range 1 << 8 {
		b := uint8(h)
		if v := FromFP8(b); v == v && FP8(v) != b {
			t.Fatalf("fp8 %#02x → %g → %#02x", b, v, FP8(v))
		}
	}
}

// Random operands are never zero, within ±[0.25, 1), and reproducible.
func TestRandomOperand(t *testing.T) {
	for _, dt := range []gpu.DType{gpu.FP32, gpu.BF16, gpu.FP16, gpu.FP8, gpu.FP64} {
		a, b := RandomOperand(dt, 3000, 7), RandomOperand(dt, 3000, 7)
		if string(a) != string(b) {
			t.Errorf("%s: same seed, different values", dt)
		}
		neg := 0
		for i := range 3000 {
			v := math.Abs(at(dt, a, i))
			if v < 0.25 || v > 1 {
				t.Fatalf("%s: element %d = %g, want magnitude in [0.25, 1]", dt, i, at(dt, a, i))
			}
			if at(dt, a, i) < 0 {
				neg++
			}
		}
		if neg < 1300 || neg > 1700 {
			t.Errorf("%s: %d of 3000 negative, want about half", dt, neg)
		}
	}
}

func TestStats(t *testing.T) {
	for _, tc := range []struct {
		in           []float64
		p50, p99, cv float64
	}{
		{[]float64{4, 1, 3, 2}, 2.5, 3.97, math.Sqrt(1.25) / 2.5},
		{[]float64{5}, 5, 5, 0},
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 101}, 1, 92, math.Sqrt(900) / 11},
	} {
		s := SummarizeValues(tc.in)
		if !near(s.P50, tc.p50) || !near(s.P99, tc.p99) || math.Abs(s.CV-tc.cv) > 1e-12 {
			t.Errorf("%v: p50 %v p99 %v cv %v, want %v %v %v", tc.in, s.P50, s.P99, s.CV, tc.p50, tc.p99, tc.cv)
		}
	}
	if s := Summarize([]time.Duration{time.Millisecond, 3 * time.Millisecond}); !near(s.P50, 0.002) || s.N != 2 {
		t.Errorf("Summarize durations: %+v", s)
	}
	if s := Summarize(nil); s.N != 0 {
		t.Errorf("Summarize(nil) = %+v", s)
	}
}

// The arithmetic of each figure, against hand calculations.
func TestFormulas(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"2·8192³ FLOP", GEMMFLOPs(8192, 8192, 8192), 1_099_511_627_776},
		{"2·m·n·k", GEMMFLOPs(2, 3, 4), 48},
		{"H200 bf16: 8192³ in 1.4296 ms", GEMMFLOPs(8192, 8192, 8192) / 1.4296e-3 / 1e12, 769.1},
		{"2 GiB copy in 1.0132 ms", CopyBandwidth(2<<30, 1.0132e-3), 4239.0},
		{"algbw 1 GB in 10 ms", AlgBW(1e9, 0.01), 100},
		{"busbw 1 GPU", BusBW(100, 1), 0},
		{"busbw 2 GPUs = algbw", BusBW(100, 2), 100},
		{"busbw 4 GPUs", BusBW(100, 4), 150},
		{"busbw 8 GPUs", BusBW(100, 8), 175},
	} {
		if math.Abs(tc.got-tc.want) > 1e-4*math.Abs(tc.want)+1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		n, perBatch int
		burst, sust int
	}{{1000, 1, 10, 250}, {40, 1, 10, 10}, {20, 1, 5, 5}, {3, 1, 1, 1}, {0, 1, 0, 0},
		{100, 4, 3, 25}, // ten products are three batches of four
		{8, 4, 2, 2}, {100, 32, 1, 25}, {100, 0, 10, 25}} {
		times := make([]time.Duration, tc.n)
		b, s := BurstSustained(times, tc.perBatch)
		if len(b) != tc.burst || len(s) != tc.sust {
			t.Errorf("BurstSustained(%d batches of %d): %d, %d; want %d, %d", tc.n, tc.perBatch, len(b), len(s), tc.burst, tc.sust)
		}
	}
}

func TestPlanFor(t *testing.T) {
	const gib = 1 << 30
	h200 := gpu.Info{Name: "NVIDIA H200", MemoryBytes: 143771 << 20, Multiprocs: 132}
	small := gpu.Info{Name: "small", MemoryBytes: 4 * gib, Multiprocs: 20}
	cpu := gpu.Info{Name: "CPU", IsCPU: true, MemoryBytes: 8 * gib, Multiprocs: 2}
	for _, tc := range []struct {
		name       string
		info       gpu.Info
		quick      bool
		n          int
		copy, host int64
		samples    int
	}{
		{"H200", h200, false, 8192, 2 * gib, gib, 10},
		{"H200 quick", h200, true, 4096, 2 * gib, 256 << 20, 5},
		{"4 GiB, 20 SMs", small, false, 4096, gib, gib, 10},
		{"unknown memory", gpu.Info{Name: "x"}, false, 8192, 2 * gib, gib, 10},
		{"CPU quick", cpu, true, 256, 64 << 20, 16 << 20, 5},
		{"CPU", cpu, false, 512, 256 << 20, 64 << 20, 10},
		{"CPU, 256 MiB", gpu.Info{IsCPU: true, MemoryBytes: 256 << 20}, false, 512, 64 << 20, 64 << 20, 10},
	} {
		p := PlanFor(tc.info, Request{Quick: tc.quick})
		if p.GemmN != tc.n || p.CopyBytes != tc.copy || p.HostBytes != tc.host || p.Samples != tc.samples {
			t.Errorf("%s: n %d copy %d host %d samples %d; want %d %d %d %d", tc.name, p.GemmN, p.CopyBytes, p.HostBytes, p.Samples, tc.n, tc.copy, tc.host, tc.samples)
		}
	}
}

func TestRequestValidate(t *testing.T) {
	for _, tc := range []struct {
		r    Request
		want string
	}{
		{Request{Device: "gpu"}, ""},
		{Request{Device: "cpu", Only: []string{"gemm", "hbm"}, Sustain: time.Minute}, ""},
		{Request{Device: "tpu"}, `--device "tpu": want gpu or cpu`},
		{Request{Device: "gpu", Only: []string{"gemm", "flops"}}, `--only "flops": want a comma-separated list of gemm, hbm, h2d, d2h, jitter, sustain, p2p, nccl`},
		{Request{Device: "gpu", Sustain: -time.Second}, "--sustain -1s: want 0 (off) to 10m0s"},
		{Request{Device: "gpu", Sustain: time.Hour}, "--sustain 1h0m0s: want 0 (off) to 10m0s"},
		{Request{Device: "gpu", Only: []string{"sustain"}}, "--only sustain needs --sustain above 0"},
	} {
		err := tc.r.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.r, err, tc.want)
		}
	}
	// The groups a request runs, in bench's order.
	for _, tc := range []struct {
		r    Request
		cpu  bool
		want string
	}{
		{Request{Device: "gpu", Sustain: time.Second}, false, "gemm,hbm,h2d,d2h,jitter,sustain,p2p,nccl"},
		{Request{Device: "gpu"}, false, "gemm,hbm,h2d,d2h,jitter,p2p,nccl"},
		{Request{Device: "cpu"}, true, "gemm,hbm,jitter"},
		{Request{Device: "gpu", Only: []string{"jitter", "gemm"}}, false, "gemm,jitter"},
	} {
		if got := strings.Join(tc.r.groups(tc.cpu), ","); got != tc.want {
			t.Errorf("groups(%+v) = %s, want %s", tc.r, got, tc.want)
		}
	}
}
