package bench

import (
	"errors"
	"fmt"
	"math"
	"slices"
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

// BurstSustained splits the per-product times of a back-to-back run: burst
// is the first burstOps products (a quarter of them when there are fewer than
// 4·burstOps), sustained the last quarter, when the card has reached its
// power and thermal limits.
func BurstSustained(times []time.Duration) (burst, sustained []time.Duration) {
	if len(times) == 0 {
		return nil, nil
	}
	nb := burstOps
	if len(times) < 4*burstOps {
		nb = max(1, len(times)/4)
	}
	return times[:nb], times[len(times)-max(1, len(times)/4):]
}

// sustain runs one GEMM type back to back for the plan's Sustain, sampling
// the device's telemetry (when it is a gpu.Sampler) every SampleEvery, and
// reports the burst and sustained TFLOP/s, the clock-event reasons seen, and
// the SM clock, power and utilisation (mean and spread) under the load.
func (r *run) sustain() []benchreport.Measurement {
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
		ms, err := r.sustainType(dt)
		if err == nil || !errors.Is(err, gpu.ErrUnsupported) {
			return ms
		}
		r.unsupp[dt] = true
		last = ms
	}
	return last
}

func (r *run) sustainType(dt gpu.DType) ([]benchreport.Measurement, error) {
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
	for range max(1, r.plan.Warmup) {
		if _, err := r.dev.Time(o.gemm); err != nil {
			return failBoth(err)
		}
	}
	sampler, _ := r.dev.(gpu.Sampler)
	var samples []gpu.Sample
	var times []time.Duration
	start := r.now()
	lastSample := start
	for r.now().Sub(start) < r.plan.Sustain && len(times) < maxSustainOps {
		if err := r.ctx.Err(); err != nil {
			return failBoth(err)
		}
		if sampler != nil && r.now().Sub(lastSample) >= r.plan.SampleEvery {
			if s, err := sampler.Sample(); err == nil {
				samples = append(samples, s)
			}
			lastSample = r.now()
		}
		d, err := r.dev.Time(o.gemm)
		if err != nil {
			return failBoth(err)
		}
		times = append(times, d)
	}
	if _, err := o.check(r.plan.Checks); err != nil {
		return failBoth(fmt.Errorf("after %d products under load: %w", len(times), err))
	}
	burst, sust := BurstSustained(times)
	flops := GEMMFLOPs(n, n, n) / 1e12
	b := r.rate(burstName, UnitTFLOPS, flops, burst)
	b.Detail = fmt.Sprintf("%d³, median of the first %d of %d back-to-back products", n, len(burst), len(times))
	s := r.rate(sustName, UnitTFLOPS, flops, sust)
	s.Detail = fmt.Sprintf("%d³, median of the last %d of %d back-to-back products over %s", n, len(sust), len(times), r.plan.Sustain)
	s.ClockReasons = reasonsSeen(samples)
	out := []benchreport.Measurement{b, s}
	return append(out, r.telemetry(samples)...), nil
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
// clock and power, and GPU utilisation's mean and standard deviation in
// percent (the article's "±3% vs ±7%" spread). Unreadable fields (NaN, -1)
// are left out; a figure no sample has is not reported.
func (r *run) telemetry(samples []gpu.Sample) []benchreport.Measurement {
	var clock, power, util []float64
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
	mean := func(s Stats) float64 { return s.Mean }
	add("sustain_sm_clock_mhz", UnitMHz, clock, mean, "mean SM clock, "+every)
	add("sustain_power_w", UnitW, power, mean, "mean board power, "+every)
	add("sustain_gpu_util", UnitPct, util, mean, "mean GPU utilisation, "+every)
	add("sustain_gpu_util_stdev", UnitPct, util, Stats.StdDev, "standard deviation of GPU utilisation in percentage points, "+every)
	return out
}
