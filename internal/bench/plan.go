package bench

import (
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Plan is the sizes and repetitions of one device's measurements.
type Plan struct {
	GemmN          int           // square GEMM size n (n×n×n)
	CopyBytes      int64         // device copy: bytes of one buffer (read once, written once)
	HostBytes      int64         // host↔device: bytes of one transfer
	Warmup         int           // untimed runs before the samples
	Samples        int           // timed samples of a GEMM or copy
	JitterIters    int           // timed tiny operations for jitter
	SmallCopyBytes int64         // size of jitter's small copies
	Checks         int           // GEMM output elements compared with float64
	Sustain        time.Duration // length of the sustained GEMM
	SampleEvery    time.Duration // telemetry interval during it
	SampleTarget   time.Duration // a sample repeats its operation until it lasts about this long

	// Multi-GPU measurements (the first GPU's plan decides for the node).
	P2PBytes        int64 // one peer copy of the bandwidth matrix
	P2PLatencyBytes int64 // one peer copy of the latency matrix
	NCCLMinBytes    int64 // the all-reduce sweep's first size (its latency figure)
	NCCLMaxBytes    int64 // its last size (its bus bandwidth figure)
	NCCLStep        int64 // each size is the previous × this
	NCCLWarmup      int   // untimed all-reduces before each size's probe
	NCCLSamples     int   // timed samples per size
	NCCLIters       int   // all-reduces of the probe, and the fewest per sample
	// NCCLMaxIters bounds the all-reduces of a sample: a sample repeats
	// the all-reduce until it lasts about SampleTarget (by the probe), so
	// small messages, whose all-reduce takes microseconds, get many.
	NCCLMaxIters int
	// NCCLSampleWarmup untimed all-reduces are queued before each sample's
	// start events, which so fire when the GPUs finish them, not when the
	// host recorded them.
	NCCLSampleWarmup int
}

// PlanFor sizes the measurements to the device. On a GPU the GEMM is 8192³
// (4096³ with fewer than 40 multiprocessors, half that with --quick), shrunk
// until its three matrices take at most a quarter of the memory; the copy
// buffers are 2 GiB each where two fit in half the memory, the host transfers
// 1 GiB (256 MiB with --quick). Peer copies are 256 MiB (64 MiB with
// --quick) for bandwidth and 8 B for latency; the NCCL all-reduce sweeps
// 8 B to 1 GiB in ×4 steps (to 256 MiB in ×16 steps with --quick), as
// nccl-tests does, shrunk until its two buffers take at most a quarter of
// the memory; each sample repeats the all-reduce 4 to 200 times (2 to 100
// with --quick) to last about SampleTarget, behind 2 untimed. "The memory" is what was free when the device opened
// (cuMemGetInfo) where the device says, else its total: another program's
// allocations, or a MIG instance's share, leave less than the datasheet's.
// On the CPU everything is small enough for a --quick run of a few seconds
// on two cores.
func PlanFor(info gpu.Info, r Request) Plan {
	p := Plan{Warmup: 2, Samples: 10, JitterIters: 200, SmallCopyBytes: 64 << 10, Checks: 8,
		Sustain: r.Sustain, SampleEvery: 100 * time.Millisecond, SampleTarget: 5 * time.Millisecond,
		P2PBytes: 256 << 20, P2PLatencyBytes: 8,
		NCCLMinBytes: 8, NCCLMaxBytes: 1 << 30, NCCLStep: 4, NCCLWarmup: 5, NCCLSamples: 5, NCCLIters: 4,
		NCCLMaxIters: 200, NCCLSampleWarmup: 2}
	if r.Quick {
		p.Samples, p.JitterIters = 5, 100
		p.P2PBytes, p.NCCLMaxBytes, p.NCCLStep, p.NCCLWarmup, p.NCCLSamples, p.NCCLIters = 64<<20, 256<<20, 16, 2, 3, 2
		p.NCCLMaxIters = 100
	}
	mem := info.MemoryBytes
	if info.MemoryFreeBytes > 0 && (mem <= 0 || info.MemoryFreeBytes < mem) {
		mem = info.MemoryFreeBytes
	}
	if info.IsCPU {
		p.GemmN, p.CopyBytes, p.HostBytes = 512, 256<<20, 64<<20
		if r.Quick {
			p.GemmN, p.CopyBytes, p.HostBytes = 256, 64<<20, 16<<20
		}
		p.SampleTarget = 0 // one operation per sample: they are long
	} else {
		p.GemmN, p.CopyBytes, p.HostBytes = 8192, 2<<30, 1<<30
		if info.Multiprocs > 0 && info.Multiprocs < 40 {
			p.GemmN = 4096
		}
		if r.Quick {
			p.GemmN, p.HostBytes = p.GemmN/2, 256<<20
		}
	}
	if mem > 0 {
		for p.GemmN > 256 && 3*int64(p.GemmN)*int64(p.GemmN)*8 > mem/4 {
			p.GemmN /= 2
		}
		for p.CopyBytes > 16<<20 && 2*p.CopyBytes > mem/2 {
			p.CopyBytes /= 2
		}
		for p.HostBytes > 16<<20 && p.HostBytes > mem/4 {
			p.HostBytes /= 2
		}
		for p.P2PBytes > 16<<20 && 2*p.P2PBytes > mem/4 {
			p.P2PBytes /= 2
		}
		for p.NCCLMaxBytes > 16<<20 && 2*p.NCCLMaxBytes > mem/4 {
			p.NCCLMaxBytes /= 2
		}
	}
	return p
}
