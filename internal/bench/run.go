package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
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
	UnitC      = "°C"
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
	// NCCLChoice learns which algorithm and protocol NCCL chooses at each
	// size of the all-reduce's sweep in a separate process, before OpenComm
	// opens the timed communicator (NCCLChoiceProbe; the CLI's runs
	// `gpuscout bench nccl-choice`); nil: the choice is unknown, saying why,
	// unless the user's own NCCL log in this process says.
	NCCLChoice NCCLChoiceProbe
	// OnHang is given what was measured so far when a driver call hangs
	// (gpu.Hung, from the binding's watchdog, which then ends the process):
	// a copy of the report with a failed "watchdog" measurement naming the
	// call and the group it stopped, for the caller to write. It runs on
	// the watchdog's goroutine and must return promptly. nil: nothing is
	// written.
	OnHang func(partial *benchreport.Document)
}

// NameWatchdog is the measurement a partial report ends with when a driver
// call hung: failed, its detail the watchdog's message.
const NameWatchdog = "watchdog"

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
	// mig is the MIG instance the device is; nil for a whole GPU.
	mig *MIGSlice
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
	// mu guards doc (and where the run is) against the hang hook, which
	// copies it from the watchdog's goroutine.
	var mu sync.Mutex
	atDevice, atGroup := "", ""
	if rn.OnHang != nil {
		remove := gpu.OnHang(func(msg string) {
			mu.Lock()
			partial := *doc
			partial.GPUs = slices.Clone(doc.GPUs)
			partial.Measurements = slices.Clone(doc.Measurements)
			dev, group := atDevice, atGroup
			mu.Unlock()
			if dev == "" {
				dev = benchreport.DeviceNode
			}
			partial.Measurements = append(partial.Measurements, benchreport.Measurement{Name: NameWatchdog, Device: dev,
				Status: benchreport.StatusFailed, Detail: fmt.Sprintf("%s; the run stopped in group %s: what follows was not measured", msg, group)})
			rn.OnHang(&partial)
		})
		defer remove()
	}
	emit := func(e Event) {
		if e.Start {
			mu.Lock()
			atDevice, atGroup = e.Device, e.Group
			mu.Unlock()
		}
		if rn.Progress != nil {
			rn.Progress(e)
		}
	}
	add := func(group string, ms ...benchreport.Measurement) {
		for _, m := range ms {
			mu.Lock()
			doc.Measurements = append(doc.Measurements, m)
			added := doc.Measurements[len(doc.Measurements)-1]
			mu.Unlock()
			emit(Event{Device: m.Device, Group: group, M: &added})
		}
	}
	var gpuRuns []*run
	var nodeGroups []string
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
			entrySpec := r.spec
			if r.mig = migSlice(rn.Catalog, info); r.mig != nil {
				// A slice is rated against its share of its GPU, and the
				// report names no catalog GPU for it: whoever reads it must
				// not rate it against the whole GPU's datasheet.
				r.spec, entrySpec = r.mig.spec(), nil
			}
			mu.Lock()
			doc.GPUs = append(doc.GPUs, gpuEntry(info, entrySpec))
			mu.Unlock()
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
			nodeWide := g == GroupP2P || g == GroupNCCL || (g == GroupSustain && req.SustainAll)
			if nodeWide && !info.IsCPU {
				if !slices.Contains(nodeGroups, g) {
					nodeGroups = append(nodeGroups, g)
				}
				continue
			}
			if err := ctx.Err(); err != nil {
				return doc, err
			}
			emit(Event{Device: r.name, Group: g, Start: true})
			add(g, r.group(g)...)
		}
		mu.Lock()
		for i := start; i < len(doc.Measurements); i++ {
			r.note(&doc.Measurements[i], i == start)
		}
		mu.Unlock()
	}
	for _, g := range nodeGroups {
		if err := ctx.Err(); err != nil {
			return doc, err
		}
		emit(Event{Device: benchreport.DeviceNode, Group: g, Start: true})
		switch g {
		case GroupP2P:
			add(g, p2p(gpuRuns)...)
		case GroupNCCL:
			add(g, nccl(gpuRuns, rn.OpenComm, rn.NCCLChoice)...)
		case GroupSustain:
			add(g, sustainAll(gpuRuns)...)
		}
	}
	return doc, ctx.Err()
}

// note adds to a measurement of r that other programs shared the GPU, and
// to its first (first) that they could not be listed.
func (r *run) note(m *benchreport.Measurement, first bool) {
	note := r.shared
	if first && r.unchecked != "" {
		note = strings.TrimPrefix(note+"; ", "; ") + r.unchecked
	}
	if note != "" {
		m.Detail = strings.TrimPrefix(m.Detail+"; ", "; ") + note
	}
}

// sustainAll runs the sustained GEMM on every GPU at once (each on its own
// goroutine, each GPU's calls on its own thread), so that the node's power
// and cooling limits bind, and returns each GPU's measurements in GPU
// order, then the node's: sustain_node_power_w, the sum of the GPUs' mean
// power under the load (when every GPU reported one).
func sustainAll(runs []*run) []benchreport.Measurement {
	results := make([][]benchreport.Measurement, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Go(func() {
			ms := r.sustain(len(runs))
			for j := range ms {
				r.finish(&ms[j])
				r.note(&ms[j], false)
			}
			results[i] = ms
		})
	}
	wg.Wait()
	var out []benchreport.Measurement
	var total float64
	powered := 0
	for i, ms := range results {
		out = append(out, ms...)
		for _, m := range ms {
			if m.Name == "sustain_power_w" && m.OK() && m.Device == runs[i].name {
				total += *m.Value
				powered++
			}
		}
	}
	if len(runs) > 1 && powered == len(runs) {
		out = append(out, benchreport.Measurement{Name: "sustain_node_power_w", Device: benchreport.DeviceNode, Value: benchreport.F(total),
			Unit: UnitW, Samples: powered, Status: benchreport.StatusOK,
			Detail: fmt.Sprintf("sum of the %d GPUs' mean board power while all sustained the GEMM at once", powered)})
	}
	return out
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
		out = append(out, r.sustain(1)...)
	case GroupP2P, GroupNCCL: // only the CPU device gets here
		out = append(out, r.notApplicable(commName(g), UnitGBs, "the CPU device has no peers"))
	}
	for i := range out {
		r.finish(&out[i])
	}
	return out
}

// finish completes a measurement of the device: its efficiency against
// the datasheet (a MIG slice's share of it, saying so), and the settings
// that change what it means.
func (r *run) finish(m *benchreport.Measurement) {
	m.Efficiency = efficiency(r.spec, *m)
	recordSettings(m)
	if r.mig != nil && m.OK() {
		if n := r.mig.note(m.Name); n != "" {
			m.Detail = strings.TrimPrefix(m.Detail+"; ", "; ") + n
		}
	}
}

// TF32Override is the variable that turns TF32 off (0) in every NVIDIA
// library whatever the program asks: a gemm_tf32 measured under
// NVIDIA_TF32_OVERRIDE=0 is an fp32 figure.
const TF32Override = "NVIDIA_TF32_OVERRIDE"

// recordSettings records in an fp32 or tf32 GEMM measurement (burst and
// sustained too) the NVIDIA_TF32_OVERRIDE the process runs with, as the
// libraries read it from the environment, and says what 0 does.
func recordSettings(m *benchreport.Measurement) {
	if !strings.HasPrefix(m.Name, "gemm_tf32") && !strings.HasPrefix(m.Name, "gemm_fp32") {
		return
	}
	v, ok := os.LookupEnv(TF32Override)
	if !ok {
		return
	}
	if m.Settings == nil {
		m.Settings = map[string]string{}
	}
	m.Settings[TF32Override] = v
	note := TF32Override + "=" + v + " was set"
	if strings.TrimSpace(v) == "0" && strings.HasPrefix(m.Name, "gemm_tf32") {
		note = TF32Override + "=0: the libraries computed this TF32 product in full fp32, so it is an fp32 figure"
	}
	m.Detail = strings.TrimPrefix(m.Detail+"; ", "; ") + note
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

// failure records err: not measured when gpuscout cannot drive what the
// device has (gpu.ErrNotImplemented) or the library it needs is not on the
// machine (gpu.ErrNoLibrary), not applicable when the device lacks the
// operation (gpu.ErrUnsupported), failed otherwise.
func (r *run) failure(name, unit string, err error) benchreport.Measurement {
	m := benchreport.Measurement{Name: name, Device: r.name, Unit: unit, Status: benchreport.StatusFailed, Detail: err.Error()}
	switch {
	case notMeasurable(err):
		m.Status = benchreport.StatusNotMeasured // the device has it; gpuscout cannot drive it here
	case errors.Is(err, gpu.ErrUnsupported):
		m.Status = benchreport.StatusUnsupported
	}
	return m
}

// notMeasurable: the device has the operation, but gpuscout cannot drive
// it (gpu.ErrNotImplemented) or the library it needs is missing
// (gpu.ErrNoLibrary).
func notMeasurable(err error) bool {
	return errors.Is(err, gpu.ErrNotImplemented) || errors.Is(err, gpu.ErrNoLibrary)
}

// skipType: a GEMM type the sustained run leaves for another.
func skipType(err error) bool { return errors.Is(err, gpu.ErrUnsupported) || notMeasurable(err) }

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
