package bench

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Units of measurements.
const (
	UnitTFLOPS = "TFLOP/s"
	UnitGBs    = "GB/s"
	UnitRatio  = "ratio"
	UnitMHz    = "MHz"
	UnitW      = "W"
	UnitPct    = "%"
	UnitUS     = "µs"
)

// maxReps bounds the operations one timed sample repeats.
const maxReps = 32

// Runner runs a Request on devices. The zero Runner works: no datasheet
// figures, the real clock, no progress.
type Runner struct {
	Catalog  *catalog.Catalog // datasheet figures for efficiency; nil: efficiency is null
	Now      func() time.Time // wall clock of the sustained run and telemetry; nil: time.Now
	Progress func(Event)      // told before each group and after each measurement; nil: silent
	Tune     func(*Plan)      // adjusts each device's plan (tests shrink sizes); nil: PlanFor's
	// OpenComm opens a collective communicator over the GPUs for the NCCL
	// all-reduce (cuda.OpenCollective); nil: the all-reduce is not measured.
	OpenComm gpu.CommOpener
}

// Event is a step of a run: Start before a group runs on a device, then
// one event per measurement it produced (M set).
type Event struct {
	Device string // "gpu0", "cpu", "node"
	Group  string
	Start  bool
	M      *benchreport.Measurement
}

// run is one device's measurements.
type run struct {
	ctx     context.Context
	dev     gpu.Device
	info    gpu.Info
	name    string // device name in the report
	plan    Plan
	spec    *catalog.GPU // nil when the catalog does not know the device
	now     func() time.Time
	dtypes  []gpu.DType
	unsupp  map[gpu.DType]bool // GEMM types the device refused
	threads int
	// shared says which other programs used the GPU when it was measured
	// anyway (--allow-busy); "" when none did. unchecked says why they could
	// not be listed.
	shared, unchecked string
}

// Run measures every device and returns the report's GPUs and measurements;
// the caller fills host and cloud. A failed measurement is recorded (status
// failed) and the run goes on; only a bad request or a cancelled context
// returns an error (with what was measured until then).
func (rn *Runner) Run(ctx context.Context, devs []gpu.Device, req Request) (*benchreport.Document, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	now := rn.Now
	if now == nil {
		now = time.Now
	}
	doc := &benchreport.Document{SchemaVersion: benchreport.SchemaVersion, CreatedAt: now().UTC().Truncate(time.Second),
		GPUs: []benchreport.GPUEntry{}, Measurements: []benchreport.Measurement{}}
	emit := func(e Event) {
		if rn.Progress != nil {
			rn.Progress(e)
		}
	}
	add := func(group string, ms ...benchreport.Measurement) {
		for _, m := range ms {
			doc.Measurements = append(doc.Measurements, m)
			emit(Event{Device: m.Device, Group: group, M: &doc.Measurements[len(doc.Measurements)-1]})
		}
	}
	var gpuRuns []*run
	var commGroups []string
	for _, dev := range devs {
		info := dev.Info()
		r := &run{ctx: ctx, dev: dev, info: info, name: benchreport.DeviceCPU, now: now, dtypes: req.dtypes(), unsupp: map[gpu.DType]bool{}}
		r.plan = PlanFor(info, req)
		if rn.Tune != nil {
			rn.Tune(&r.plan)
		}
		if !info.IsCPU {
			r.name = benchreport.DeviceName(info.Index)
			r.spec = lookupSpec(rn.Catalog, info.Name)
			doc.GPUs = append(doc.GPUs, gpuEntry(info, r.spec))
			// Each GPU on its own: one that did not open, or that other
			// programs use, is reported and left out, and the rest measured.
			if m, ok := r.unavailable(req.AllowBusy); ok {
				emit(Event{Device: r.name, Group: m.Name, Start: true})
				add(m.Name, m)
				continue
			}
			gpuRuns = append(gpuRuns, r)
		}
		start := len(doc.Measurements)
		for _, g := range req.groups(info.IsCPU) {
			if g == GroupP2P || g == GroupNCCL {
				if !info.IsCPU {
					if !slices.Contains(commGroups, g) {
						commGroups = append(commGroups, g)
					}
					continue
				}
			}
			if err := ctx.Err(); err != nil {
				return doc, err
			}
			emit(Event{Device: r.name, Group: g, Start: true})
			add(g, r.group(g)...)
		}
		for i := start; i < len(doc.Measurements); i++ {
			note := r.shared
			if i == start && r.unchecked != "" {
				note = strings.TrimPrefix(note+"; ", "; ") + r.unchecked
			}
			if note != "" {
				doc.Measurements[i].Detail = strings.TrimPrefix(doc.Measurements[i].Detail+"; ", "; ") + note
			}
		}
	}
	for _, g := range commGroups {
		if err := ctx.Err(); err != nil {
			return doc, err
		}
		emit(Event{Device: benchreport.DeviceNode, Group: g, Start: true})
		if g == GroupP2P {
			add(g, p2p(gpuRuns)...)
		} else {
			add(g, nccl(gpuRuns, rn.OpenComm)...)
		}
	}
	return doc, ctx.Err()
}

// group runs one group on the device.
func (r *run) group(g string) []benchreport.Measurement {
	var out []benchreport.Measurement
	switch g {
	case GroupGEMM:
		for _, dt := range r.dtypes {
			if r.ctx.Err() != nil {
				break
			}
			out = append(out, r.gemm(dt))
		}
	case GroupMemory:
		out = append(out, r.deviceCopy())
	case GroupH2D, GroupD2H:
		if r.info.IsCPU {
			out = append(out, r.notApplicable(g, UnitGBs, "the CPU device has no host link to measure"))
		} else {
			out = append(out, r.hostCopy(g == GroupH2D))
		}
	case GroupJitter:
		out = append(out, r.jitter()...)
	case GroupSustain:
		out = append(out, r.sustain()...)
	case GroupP2P, GroupNCCL: // only the CPU device gets here
		out = append(out, r.notApplicable(commName(g), UnitGBs, "the CPU device has no peers"))
	}
	for i := range out {
		out[i].Efficiency = efficiency(r.spec, out[i])
	}
	return out
}

// timeOp runs op Warmup times untimed (timed, but not counted), then
// Samples timed samples, each repeating op enough times to last about
// SampleTarget; it returns the time of one op in each sample.
func (r *run) timeOp(op func() error) (perOp []time.Duration, reps int, err error) {
	var warm time.Duration
	for range max(1, r.plan.Warmup) {
		if warm, err = r.dev.Time(op); err != nil {
			return nil, 0, err
		}
	}
	reps = 1
	if t := r.plan.SampleTarget; t > 0 && warm > 0 && warm < t {
		reps = min(maxReps, int(math.Ceil(float64(t)/float64(warm))))
	}
	repeated := func() error {
		for range reps {
			if err := op(); err != nil {
				return err
			}
		}
		return nil
	}
	for range r.plan.Samples {
		if err := r.ctx.Err(); err != nil {
			return nil, 0, err
		}
		d, err := r.dev.Time(repeated)
		if err != nil {
			return nil, 0, err
		}
		perOp = append(perOp, d/time.Duration(reps))
	}
	return perOp, reps, nil
}

// rate is a throughput measurement: work (in the unit's scale: 1e12 FLOP
// for TFLOP/s, 1e9 B for GB/s) per operation over the median operation time.
func (r *run) rate(name, unit string, work float64, perOp []time.Duration) benchreport.Measurement {
	st := Summarize(perOp)
	m := benchreport.Measurement{Name: name, Device: r.name, Unit: unit, Samples: st.N, Status: benchreport.StatusOK}
	if st.P50 > 0 {
		m.Value = benchreport.F(work / st.P50)
	} else {
		m.Status, m.Detail = benchreport.StatusFailed, "the device timed the operation at 0 s"
	}
	timing(&m, st)
	return m
}

// timing sets a measurement's p50/p99 (µs) and CV from sample times.
func timing(m *benchreport.Measurement, st Stats) {
	if st.N == 0 {
		return
	}
	m.P50US, m.P99US, m.CV = benchreport.F(st.P50*1e6), benchreport.F(st.P99*1e6), benchreport.F(st.CV)
}

// failure records err: not applicable when the device lacks the operation
// (gpu.ErrUnsupported), failed otherwise.
func (r *run) failure(name, unit string, err error) benchreport.Measurement {
	m := benchreport.Measurement{Name: name, Device: r.name, Unit: unit, Status: benchreport.StatusFailed, Detail: err.Error()}
	if errors.Is(err, gpu.ErrUnsupported) {
		m.Status = benchreport.StatusUnsupported
	}
	return m
}

func (r *run) notApplicable(name, unit, why string) benchreport.Measurement {
	return benchreport.Measurement{Name: name, Device: r.name, Unit: unit, Status: benchreport.StatusUnsupported, Detail: why}
}

// Failures lists the measurements that failed: a run with any exits 1.
func Failures(d *benchreport.Document) []benchreport.Measurement {
	var out []benchreport.Measurement
	for _, m := range d.Measurements {
		if m.Status == benchreport.StatusFailed {
			out = append(out, m)
		}
	}
	return out
}
