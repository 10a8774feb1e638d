package bench

import (
	"fmt"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
)

// jitter times many tiny operations one by one, on two clocks.
//
// On the GPU's clock (CUDA events around each operation): 4-byte fills and
// small copies, jitter_cv (standard deviation ÷ mean of the per-operation
// times) and jitter_p99_p50 (tail ÷ median), and the same for copies. A
// fill takes a few µs there, so this is mostly the device's own spread
// and the timer's resolution.
//
// On the host's monotonic clock: each fill from the call that launches it
// to the return of the wait for it (jitter_host_cv, jitter_host_p99_p50,
// the times in p50_us and p99_us). That counts the launch, the driver, the
// GPU and the wake-up of the waiting thread: where a hypervisor's or a
// noisy neighbour's delays show, which the GPU's clock cannot see.
func (r *run) jitter() []benchreport.Measurement {
	small := max(r.plan.SmallCopyBytes&^3, 4)
	names := []string{"jitter_cv", "jitter_p99_p50", "jitter_copy_cv", "jitter_copy_p99_p50", "jitter_host_cv", "jitter_host_p99_p50"}
	fail := func(err error) []benchreport.Measurement {
		out := make([]benchreport.Measurement, len(names))
		for i, n := range names {
			out[i] = r.failure(n, UnitRatio, err)
		}
		return out
	}
	src, err := r.dev.Alloc(small)
	if err != nil {
		return fail(err)
	}
	defer r.dev.Free(src)
	dst, err := r.dev.Alloc(small)
	if err != nil {
		return fail(err)
	}
	defer r.dev.Free(dst)
	if err := r.fill(src, small); err != nil {
		return fail(err)
	}
	fills, err := r.each(func(i int) error { return r.dev.Fill32(dst, uint32(i)|1, 1) })
	if err != nil {
		return fail(err)
	}
	copies, err := r.each(func(int) error { return r.dev.Copy(dst, src, small) })
	if err != nil {
		return fail(err)
	}
	host, err := r.eachOnHost(func(i int) error { return r.dev.Fill32(dst, uint32(i)|1, 1) })
	if err != nil {
		return fail(err)
	}
	clock := "the GPU's clock (CUDA events): the device's own spread"
	if r.info.IsCPU {
		clock = "the device's clock"
	}
	out := spread(r.name, names[0], names[1], fills, fmt.Sprintf("%d single-word fills, each timed on %s", len(fills), clock))
	out = append(out, spread(r.name, names[2], names[3], copies, fmt.Sprintf("%d copies of %d KiB, each timed on %s", len(copies), small>>10, clock))...)
	return append(out, spread(r.name, names[4], names[5], host, fmt.Sprintf("%d single-word fills, each timed on the host's monotonic clock from its launch to the return of the wait for it: "+
		"launch, driver, GPU and wake-up, where a hypervisor's or a noisy neighbour's delays show", len(host)))...)
}

// eachOnHost times op and a wait for the device JitterIters times on the
// host's clock (Runner.Now, monotonic), one at a time, after a warm-up.
func (r *run) eachOnHost(op func(i int) error) ([]time.Duration, error) {
	var out []time.Duration
	for i := range r.plan.Warmup + r.plan.JitterIters {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		start := r.now()
		if err := op(i); err != nil {
			return nil, err
		}
		if err := r.dev.Sync(); err != nil {
			return nil, err
		}
		if d := r.now().Sub(start); i >= r.plan.Warmup {
			out = append(out, d)
		}
	}
	return out, nil
}

// each times op JitterIters times, one at a time, after a warm-up.
func (r *run) each(op func(i int) error) ([]time.Duration, error) {
	var out []time.Duration
	for i := range r.plan.Warmup + r.plan.JitterIters {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		d, err := r.dev.Time(func() error { return op(i) })
		if err != nil {
			return nil, err
		}
		if i >= r.plan.Warmup {
			out = append(out, d)
		}
	}
	return out, nil
}

// spread makes the CV and p99/p50 measurements of per-operation times.
func spread(dev, cvName, tailName string, times []time.Duration, detail string) []benchreport.Measurement {
	st := Summarize(times)
	cv := benchreport.Measurement{Name: cvName, Device: dev, Unit: UnitRatio, Samples: st.N, Status: benchreport.StatusOK, Value: benchreport.F(st.CV), Detail: detail}
	tail := cv
	tail.Name = tailName
	if st.P50 > 0 {
		tail.Value = benchreport.F(st.P99 / st.P50)
	} else {
		tail.Value, tail.Status, tail.Detail = nil, benchreport.StatusFailed, "the device timed the operations at 0 s"
	}
	timing(&cv, st)
	timing(&tail, st)
	return []benchreport.Measurement{cv, tail}
}
