package bench

import (
	"errors"
	"fmt"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// NCCLSizes is the all-reduce's message-size sweep: lo, lo·step, lo·step², …
// while below hi, then hi, each rounded down to whole fp32 elements (at
// least one). nccl-tests' -b 8 -e 1G -f 4 gives 8 B, 32 B, … 512 MiB, and
// here 1 GiB last.
func NCCLSizes(lo, hi, step int64) []int64 {
	lo, hi = max(lo&^3, 4), max(hi&^3, 4)
	if hi < lo {
		hi = lo
	}
	var out []int64
	for s := lo; s < hi; s *= max(step, 2) {
		out = append(out, s)
		if s > hi/max(step, 2) { // the next step would pass hi (or overflow)
			break
		}
	}
	return append(out, hi)
}

// nccl measures an fp32 sum all-reduce over every GPU through the
// communicator open gives, over the plan's size sweep: at each size a
// warm-up, then samples of back-to-back all-reduces timed on the GPUs
// (the slowest GPU's time counts). nccl_allreduce_busbw is the bus
// bandwidth at the largest size, with the whole sweep; nccl_allreduce_latency
// the time of one all-reduce at the smallest.
func nccl(runs []*run, open gpu.CommOpener) []benchreport.Measurement {
	n := len(runs)
	if n < 2 {
		return []benchreport.Measurement{commEntry(GroupNCCL, n, "")}
	}
	if open == nil {
		return []benchreport.Measurement{commEntry(GroupNCCL, n, "needs a collective library, and this build of bench was given none")}
	}
	devs := make([]gpu.Device, n)
	for i, r := range runs {
		devs[i] = r.dev
	}
	node := *runs[0]
	node.name = benchreport.DeviceNode
	plan := node.plan
	fail := func(err error) []benchreport.Measurement {
		return []benchreport.Measurement{node.failure("nccl_allreduce_busbw", UnitGBs, err), node.failure("nccl_allreduce_latency", UnitUS, err)}
	}
	comm, err := open(devs)
	if err != nil {
		switch {
		case errors.Is(err, gpu.ErrNoCollective):
			return []benchreport.Measurement{commEntry(GroupNCCL, n, fmt.Sprintf("needs NCCL (libnccl.so.2: the toolkit's libnccl2 package or pip's nvidia-nccl wheel): %v", err))}
		case errors.Is(err, gpu.ErrUnsupported):
			return []benchreport.Measurement{commEntry(GroupNCCL, n, fmt.Sprintf("cannot run on these devices: %v", err))}
		}
		return fail(fmt.Errorf("opening the communicator: %w", err))
	}
	defer comm.Close()
	sizes := NCCLSizes(plan.NCCLMinBytes, plan.NCCLMaxBytes, plan.NCCLStep)
	samples, iters := max(plan.NCCLSamples, 1), max(plan.NCCLIters, 1)
	var sweep []benchreport.SweepPoint
	var first, last Stats
	for i, size := range sizes {
		if err := node.ctx.Err(); err != nil {
			return fail(err)
		}
		if plan.NCCLWarmup > 0 {
			if _, err := comm.AllReduce(gpu.FP32, size, plan.NCCLWarmup); err != nil {
				return fail(fmt.Errorf("all-reduce of %s: %w", byteSize(size), err))
			}
		}
		var times []time.Duration
		for range samples {
			t, err := comm.AllReduce(gpu.FP32, size, iters)
			if err != nil {
				return fail(fmt.Errorf("all-reduce of %s: %w", byteSize(size), err))
			}
			times = append(times, t)
		}
		st := Summarize(times)
		if st.P50 <= 0 {
			return fail(fmt.Errorf("the GPUs timed the all-reduce of %s at 0 s", byteSize(size)))
		}
		alg := AlgBW(size, st.P50)
		sweep = append(sweep, benchreport.SweepPoint{Bytes: size, TimeUS: st.P50 * 1e6, AlgBWGBs: alg, BusBWGBs: BusBW(alg, n)})
		if i == 0 {
			first = st
		}
		last = st
	}
	top := sweep[len(sweep)-1]
	what := fmt.Sprintf("fp32 sum over %d GPUs (%s)", n, comm.Describe())
	bus := benchreport.Measurement{Name: "nccl_allreduce_busbw", Device: benchreport.DeviceNode, Unit: UnitGBs, Samples: last.N,
		Status: benchreport.StatusOK, Value: benchreport.F(top.BusBWGBs), Sweep: sweep,
		Detail: fmt.Sprintf("%s of %s: algbw %s GB/s, busbw = algbw × 2(n−1)/n; median of %d samples of %d; the sweep has %d sizes from %s",
			what, byteSize(top.Bytes), fmtG(top.AlgBWGBs), samples, iters, len(sweep), byteSize(sweep[0].Bytes))}
	timing(&bus, last)
	bus.Efficiency = efficiency(node.spec, bus)
	lat := benchreport.Measurement{Name: "nccl_allreduce_latency", Device: benchreport.DeviceNode, Unit: UnitUS, Samples: first.N,
		Status: benchreport.StatusOK, Value: benchreport.F(first.P50 * 1e6),
		Detail: fmt.Sprintf("%s of %s: the time of one all-reduce; median of %d samples of %d", what, byteSize(sweep[0].Bytes), samples, iters)}
	timing(&lat, first)
	return []benchreport.Measurement{bus, lat}
}

// byteSize writes a message size in B, KiB, MiB or GiB (whole units where
// it divides).
func byteSize(b int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if b >= 1<<u.shift && b%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", b>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d B", b)
}

// fmtG writes a figure to four significant digits.
func fmtG(v float64) string { return fmt.Sprintf("%.4g", v) }
