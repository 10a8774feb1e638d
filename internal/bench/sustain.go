package bench

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// sustainOrder is the order in which the sustained run picks its GEMM type
// among those requested: the tensor-core types first, as a training job uses.
var sustainOrder = []gpu.DType{gpu.BF16, gpu.FP16, gpu.TF32, gpu.FP32, gpu.FP64, gpu.FP8}

// maxSustainOps bounds the products of a sustained run whatever the clock says.
const maxSustainOps = 1_000_000

// burstOps is how many of the first products make the burst figure.
const burstOps = 10

// BurstSustained splits the per-product times of a back-to-back run, one
// per batch of perBatch products: burst is the first batches that hold
// burstOps products (a quarter of the batches when there are fewer than
// four times that many), sustained the last quarter of the batches, when
// the card has reached its power and thermal limits.
func BurstSustained(times []time.Duration, perBatch int) (burst, sustained []time.Duration) {
	if len(times) == 0 {
		return nil, nil
	}
	nb := (burstOps + max(perBatch, 1) - 1) / max(perBatch, 1)
	if len(times) < 4*nb {
		nb = max(1, len(times)/4)
	}
	return times[:nb], times[len(times)-max(1, len(times)/4):]
}

// sustain runs one GEMM type back to back for the plan's Sustain and
// reports the burst and sustained TFLOP/s, the clock-event reasons seen,
// and the SM clock, power, temperature and utilisation (mean and spread)
// under the load. together is the number of GPUs sustaining at once (1:
// this one alone).
func (r *run) sustain(together int) []benchreport.Measurement {
	var candidates []gpu.DType
	for _, dt := range sustainOrder {
		if slices.Contains(r.dtypes, dt) && !r.unsupp[dt] {
			candidates = append(candidates, dt)
		}
	}
	if len(candidates) == 0 {
		return []benchreport.Measurement{r.notApplicable("gemm_sustained", UnitTFLOPS, "no GEMM type to sustain: every requested type is unsupported here")}
	}
	var last []benchreport.Measurement
	for _, dt := range candidates {
		ms, err := r.sustainType(dt, together)
		if err == nil || !skipType(err) {
			return ms
		}
		r.unsupp[dt] = true
		last = ms
	}
	return last
}

// sample reads the device's telemetry (when it is a gpu.Sampler) every
// SampleEvery on a goroutine of its own, never between the products, until
// the returned stop is called; stop returns the samples, with one more
// taken at the end of the load.
func (r *run) sample() (stop func() []gpu.Sample) {
	sampler, ok := r.dev.(gpu.Sampler)
	if !ok || r.plan.SampleEvery <= 0 {
		return func() []gpu.Sample { return nil }
	}
	var mu sync.Mutex
	var samples []gpu.Sample
	take := func() {
		if s, err := sampler.Sample(); err == nil {
			mu.Lock()
			samples = append(samples, s)
			mu.Unlock()
		}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(r.plan.SampleEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				take()
			}
		}
	}()
	return func() []gpu.Sample {
		close(quit)
		<-done
		take() // the load is still queued up to the last product's end
		mu.Lock()
		defer mu.Unlock()
		return samples
	}
}

// sustainType keeps the GPU busy with dt's product for the plan's Sustain:
// products are queued in batches (each lasting about SampleTarget), with
// the next batch queued before the last is waited for (gpu.Pipeliner), so
// the GPU never idles between products and reaches its power and thermal
// limits as a training job does; each batch is timed by the GPU's events,
// and telemetry is sampled meanwhile on a goroutine of its own. A device
// that cannot pipeline times batch after batch (Time).
func (r *run) sustainType(dt gpu.DType, together int) ([]benchreport.Measurement, error) {
	burstName, sustName := "gemm_"+dt.String()+"_burst", "gemm_"+dt.String()+"_sustained"
	failBoth := func(err error) ([]benchreport.Measurement, error) {
		return []benchreport.Measurement{r.failure(burstName, UnitTFLOPS, err), r.failure(sustName, UnitTFLOPS, err)}, err
	}
	n := r.plan.GemmN
	o, err := r.newOperands(dt, n)
	if err != nil {
		return failBoth(err)
	}
	defer o.free()
	var warm time.Duration
	for range max(1, r.plan.Warmup) {
		if warm, err = r.dev.Time(o.gemm); err != nil {
			return failBoth(err)
		}
	}
	reps := 1
	if t := r.plan.SampleTarget; t > 0 && warm > 0 && warm < t {
		reps = min(maxReps, int(math.Ceil(float64(t)/float64(warm))))
	}
	batch := func() error {
		for range reps {
			if err := o.gemm(); err != nil {
				return err
			}
		}
		return nil
	}
	stop := r.sample()
	start := r.now()
	more := func(done int) bool {
		return r.ctx.Err() == nil && r.now().Sub(start) < r.plan.Sustain && (done+1)*reps <= maxSustainOps
	}
	var times []time.Duration
	if p, ok := r.dev.(gpu.Pipeliner); ok {
		times, err = p.Pipeline(batch, more)
	} else {
		for err == nil && more(len(times)) {
			var d time.Duration
			if d, err = r.dev.Time(batch); err == nil {
				times = append(times, d)
			}
		}
	}
	samples := stop()
	if err == nil {
		err = r.ctx.Err()
	}
	if err != nil {
		return failBoth(err)
	}
	if len(times) == 0 {
		return failBoth(fmt.Errorf("no product finished in %s", r.plan.Sustain))
	}
	products := len(times) * reps
	if _, err := o.check(r.plan.Checks); err != nil {
		return failBoth(fmt.Errorf("after %d products under load: %w", products, err))
	}
	perProduct := make([]time.Duration, len(times))
	for i, t := range times {
		perProduct[i] = t / time.Duration(reps)
	}
	burst, sust := BurstSustained(perProduct, reps)
	flops := GEMMFLOPs(n, n, n) / 1e12
	load := "back to back"
	if together > 1 {
		load = fmt.Sprintf("back to back, all %d GPUs at once", together)
	}
	b := r.rate(burstName, UnitTFLOPS, flops, burst)
	b.Detail = fmt.Sprintf("%d³, %s: median of the first %d batches of %d products (of %d products)", n, load, len(burst), reps, products)
	s := r.rate(sustName, UnitTFLOPS, flops, sust)
	s.Detail = fmt.Sprintf("%d³, %s for %s: median of the last %d batches of %d products (of %d products), each batch timed on the GPU with the next one already queued",
		n, load, r.plan.Sustain, len(sust), reps, products)
	s.ClockReasons = reasonsSeen(samples)
	out := []benchreport.Measurement{b, s}
	return append(out, r.telemetry(samples, together)...), nil
}

// reasonsSeen lists the clock-event reasons active in any sample, in the
// order first seen.
func reasonsSeen(samples []gpu.Sample) []string {
	var out []string
	for _, s := range samples {
		for _, n := range s.ReasonsActive {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// telemetry summarises the samples taken under sustained load: mean SM
// clock, power and temperature, and GPU utilisation's mean and standard
// deviation in percent (the article's "±3% vs ±7%" spread). Unreadable
// fields (NaN, -1) are left out; a figure no sample has is not reported.
func (r *run) telemetry(samples []gpu.Sample, together int) []benchreport.Measurement {
	var clock, power, util, temp []float64
	for _, s := range samples {
		if s.SMClockMHz > 0 {
			clock = append(clock, float64(s.SMClockMHz))
		}
		if s.PowerW >= 0 && !math.IsNaN(s.PowerW) {
			power = append(power, s.PowerW)
		}
		if s.UtilGPU >= 0 && s.UtilGPU <= 1 {
			util = append(util, 100*s.UtilGPU)
		}
		if s.TempC > 0 && s.TempC < 200 {
			temp = append(temp, s.TempC)
		}
	}
	var out []benchreport.Measurement
	add := func(name, unit string, v []float64, value func(Stats) float64, detail string) {
		if len(v) == 0 {
			return
		}
		st := SummarizeValues(v)
		out = append(out, benchreport.Measurement{Name: name, Device: r.name, Value: benchreport.F(value(st)), Unit: unit,
			Samples: st.N, Status: benchreport.StatusOK, Detail: detail})
	}
	every := fmt.Sprintf("sampled every %s under sustained load", r.plan.SampleEvery)
	if together > 1 {
		every += fmt.Sprintf(", all %d GPUs loaded", together)
	}
	mean := func(s Stats) float64 { return s.Mean }
	add("sustain_sm_clock_mhz", UnitMHz, clock, mean, "mean SM clock, "+every)
	add("sustain_power_w", UnitW, power, mean, "mean board power, "+every)
	if len(temp) > 0 {
		add("sustain_temp_c", UnitC, temp, mean, fmt.Sprintf("mean GPU temperature (hottest sample %.0f °C), %s", slices.Max(temp), every))
	}
	add("sustain_gpu_util", UnitPct, util, mean, "mean GPU utilisation, "+every)
	add("sustain_gpu_util_stdev", UnitPct, util, Stats.StdDev, "standard deviation of GPU utilisation in percentage points, "+every)
	return out
}
