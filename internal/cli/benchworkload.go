package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/bench"
	"github.com/gpuscout/gpuscout/internal/bench/workload"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/render"
)

// workloadSampler opens NVML's view of the CUDA device a workload runs on,
// matched by UUID (NVML numbers every GPU; CUDA only those
// CUDA_VISIBLE_DEVICES shows): nil when NVML is absent, and the run then has
// no telemetry; tests replace it.
var workloadSampler = func(index int) (gpu.Sampler, func()) {
	s, closeS, err := cuda.SamplerFor(index, cuda.Options{})
	if err != nil {
		return nil, func() {}
	}
	return s, closeS
}

// workloadSampleEvery is how often the GPU is sampled while a workload runs.
var workloadSampleEvery = 200 * time.Millisecond

type workloadFlags struct {
	spec        workload.Spec
	out         string
	printScript bool
	timeout     time.Duration
}

func newBenchWorkloadCmd(e *env) *cobra.Command {
	var f workloadFlags
	cmd := &cobra.Command{
		Use:   "workload resnet50|bert-large",
		Short: "Time a real PyTorch training step: samples/s, the largest batch that fits, GPU telemetry meanwhile",
		Long: `Run one of gpuscout's bundled PyTorch training steps on synthetic data:
  resnet50     ResNet-50 from torchvision, 224×224 images, SGD (stands for advise's cv-training)
  bert-large   a BERT-large-shaped encoder from torch.nn (24 layers, 1024 wide, 16 heads),
               128-token sequences, a language-model head
Forward, loss, backward and optimizer step are timed after a warm-up (CUDA
events on a GPU), with mixed precision on CUDA (--amp). gpuscout samples the
GPU through NVML meanwhile (utilisation and its spread, memory). The script is
embedded in the binary; the node needs Python with PyTorch (torch 1.13 to 2.x;
GPUSCOUT_PYTHON chooses the interpreter, else python3 on PATH).

With --out, the result is added to that bench report (created if missing), so
'advise --bench' uses ResNet-50's samples/s per GPU as cv-training's measured
throughput.`,
		Example:   "  gpuscout bench workload resnet50 --batch 256\n  gpuscout bench workload bert-large --find-max-batch\n  gpuscout bench workload resnet50 --out report.json\n  gpuscout bench workload resnet50 --device cpu --tiny --steps 2",
		Args:      exactlyOne("a workload: resnet50 or bert-large"),
		ValidArgs: workload.Models,
	}
	fl := cmd.Flags()
	fl.IntVar(&f.spec.Batch, "batch", 0, fmt.Sprintf("samples per step (0: 128 images or 32 sequences; at most %d)", workload.MaxBatch))
	fl.IntVar(&f.spec.Steps, "steps", 20, fmt.Sprintf("timed steps (1..%d)", workload.MaxSteps))
	fl.IntVar(&f.spec.Warmup, "warmup", 5, fmt.Sprintf("untimed steps first (0..%d)", workload.MaxWarmup))
	fl.StringVar(&f.spec.Device, "device", "auto", "auto (CUDA when PyTorch sees a GPU), cpu, cuda or cuda:N")
	fl.StringVar(&f.spec.AMP, "amp", "auto", "mixed precision: auto (on for CUDA), on or off")
	fl.BoolVar(&f.spec.Tiny, "tiny", false, "tiny shapes (32×32 images, a 2-layer encoder): to check the stack, not to measure")
	fl.BoolVar(&f.spec.FindMaxBatch, "find-max-batch", false, "double the batch until a step runs out of memory, then bisect; times the largest that fits")
	fl.IntVar(&f.spec.MaxBatchCap, "max-batch", 4096, "the largest batch --find-max-batch tries")
	fl.IntVar(&f.spec.Threads, "threads", 0, "CPU threads for PyTorch (0: its default)")
	fl.StringVar(&f.out, "out", "", "add the result to this bench report (created if missing)")
	fl.BoolVar(&f.printScript, "print-script", false, "print the embedded PyTorch script and exit")
	fl.DurationVar(&f.timeout, "timeout", time.Hour, "stop the workload after this long (1m..24h)")
	getFormat := outputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if f.printScript {
			_, err := e.stdout.Write(workload.Script())
			return err
		}
		format, err := getFormat()
		if err != nil {
			return err
		}
		spec, err := workloadSpecFromFlags(&f, args[0])
		if err != nil {
			return err
		}
		if f.timeout < time.Minute || f.timeout > 24*time.Hour {
			return usagef("--timeout %v: want 1m..24h", f.timeout)
		}
		return runWorkload(cmd.Context(), e, spec, f, format)
	}
	return cmd
}

// workloadSpecFromFlags turns the flags into a workload spec: parsing only;
// the spec's Validate checks the values.
func workloadSpecFromFlags(f *workloadFlags, model string) (workload.Spec, error) {
	s := f.spec
	s.Model = strings.ToLower(strings.TrimSpace(model))
	s.Device = strings.ToLower(strings.TrimSpace(s.Device))
	s.AMP = strings.ToLower(strings.TrimSpace(s.AMP))
	return s, asUsage(s.Validate()) // the flags hold the defaults: 0 steps is 0
}

func runWorkload(ctx context.Context, e *env, spec workload.Spec, f workloadFlags, format render.Format) error {
	py, err := workload.Python(os.Getenv, exec.LookPath)
	if err != nil {
		return err
	}
	r := &workload.Runner{Python: py, Interval: workloadSampleEvery}
	index := 0
	if i, ok := strings.CutPrefix(spec.Device, "cuda:"); ok {
		fmt.Sscan(i, &index)
	}
	if spec.Device != "cpu" {
		s, closeS := workloadSampler(index)
		defer closeS()
		r.Sampler = s
	}
	if progressTTY(e.stderr) {
		fmt.Fprintf(e.stderr, "running %s with %s ...\n", spec.Model, py)
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	res, err := r.Run(ctx, spec)
	if err != nil {
		return err
	}
	if !res.OK {
		return fmt.Errorf("%s did not run: %s", spec.Model, res.Error)
	}
	w := reportWorkload(res)
	if f.out != "" {
		if err := addWorkload(f.out, w, res.DeviceName); err != nil {
			return err
		}
	}
	if format == render.FormatJSON {
		return render.JSON(e.stdout, res)
	}
	return e.write(format, workloadTable(res, w, f.out), nil)
}

// reportWorkload is the report entry of a result. ResNet-50 at full size on
// a GPU stands for advise's cv-training (its reference model); tiny shapes
// and the CPU never stand for a scenario.
func reportWorkload(res *workload.Result) benchreport.Workload {
	dev := "cpu"
	if strings.HasPrefix(res.Device, "cuda") {
		dev = "gpu0"
		if i, ok := strings.CutPrefix(res.Device, "cuda:"); ok {
			dev = "gpu" + i
		}
	}
	w := benchreport.Workload{Name: res.Model, Device: dev, Batch: res.Batch, Value: res.SamplesPerS, Unit: "samples/s",
		StepMS: res.StepMSMedian, AMP: res.AMP, Torch: res.Torch, Tiny: res.Tiny, MaxBatch: res.MaxBatch,
		MaxBatchCapped: res.MaxBatchCapped, PeakMemoryBytes: res.PeakMemoryBytes}
	if res.Model == "resnet50" && !res.Tiny && dev != "cpu" {
		w.Scenario = "cv-training"
	}
	if t := res.Telemetry; t != nil {
		w.UtilMean, w.UtilStdDev, w.MemUsedMaxBytes = finite(t.UtilMean), finite(t.UtilStdDev), t.MemUsedMaxBytes
	}
	return w
}

// addWorkload adds w to the report at path, replacing an earlier run of the
// same workload on the same device; a missing file starts a report with this
// host. A GPU the report does not list yet is added with the name PyTorch
// gave it (gpuName), so that advise knows which GPU the figure is for.
func addWorkload(path string, w benchreport.Workload, gpuName string) error {
	doc, err := readDocument(path)
	var notExist bool
	if err != nil {
		var pe *fs.PathError
		notExist = errors.As(err, &pe) && errors.Is(pe, fs.ErrNotExist)
		if _, statErr := os.Stat(path); errors.Is(statErr, fs.ErrNotExist) {
			notExist = true
		}
		if !notExist {
			return err
		}
		doc = &benchreport.Document{SchemaVersion: benchreport.SchemaVersion, CreatedAt: clock().UTC(), Host: reportHost(envProbe.host()),
			GPUs: []benchreport.GPUEntry{}, Measurements: []benchreport.Measurement{}}
	}
	kept := doc.Workloads[:0]
	for _, o := range doc.Workloads {
		if o.Name != w.Name || o.Device != w.Device {
			kept = append(kept, o)
		}
	}
	doc.Workloads = append(kept, w)
	if idx, ok := strings.CutPrefix(w.Device, "gpu"); ok && gpuName != "" {
		var i int
		fmt.Sscan(idx, &i)
		if !slices.ContainsFunc(doc.GPUs, func(g benchreport.GPUEntry) bool { return g.Index == i }) {
			cat, err := catalog.Default()
			if err != nil {
				return err
			}
			doc.GPUs = append(doc.GPUs, bench.GPUEntry(gpu.Info{Index: i, Name: gpuName}, cat))
		}
	}
	return writeReport(path, doc)
}

func workloadTable(res *workload.Result, w benchreport.Workload, out string) *render.Table {
	t := &render.Table{Columns: []render.Column{{Header: "WORKLOAD"}, {Header: "DEVICE"}, {Header: "BATCH", Right: true},
		{Header: "SAMPLES/S", Right: true, Mixed: true}, {Header: "STEP ms", Right: true, Mixed: true}, {Header: "AMP"},
		{Header: "GPU UTIL", Right: true}, {Header: "PEAK MEM GiB", Right: true}}}
	util, mem := "-", "-"
	if w.UtilMean != nil && w.UtilStdDev != nil {
		util = fmt.Sprintf("%.0f%% ±%.1f", 100**w.UtilMean, 100**w.UtilStdDev)
	}
	if res.PeakMemoryBytes > 0 {
		mem = fmt.Sprintf("%.1f", float64(res.PeakMemoryBytes)/(1<<30))
	}
	amp := "off"
	if res.AMP {
		amp = "on"
	}
	dev := res.Device
	if res.DeviceName != "" {
		dev += " (" + res.DeviceName + ")"
	}
	t.Rows = append(t.Rows, []string{res.Model, dev, fmt.Sprint(res.Batch), render.Figure(res.SamplesPerS), render.Figure(res.StepMSMedian), amp, util, mem})
	cuda := "a CPU build"
	if res.TorchCUDA != nil {
		cuda = "built for CUDA " + *res.TorchCUDA
	}
	t.Notes = append(t.Notes, fmt.Sprintf("PyTorch %s (%s), Python %s; %d timed steps of %s on synthetic data, median step time.", res.Torch, cuda, res.Python, res.Steps, res.Unit))
	if res.MaxBatch > 0 {
		if res.MaxBatchCapped {
			t.Notes = append(t.Notes, fmt.Sprintf("No batch up to %d ran out of memory: the largest that fits is at least %d (raise --max-batch).", res.MaxBatch, res.MaxBatch))
		} else {
			t.Notes = append(t.Notes, fmt.Sprintf("The largest batch that fits: %d (tried %d sizes).", res.MaxBatch, len(res.Tried)))
		}
	}
	if res.Tiny {
		t.Notes = append(t.Notes, "Tiny shapes: this checks that the stack trains, it does not measure it.")
	}
	if w.Scenario != "" {
		t.Notes = append(t.Notes, "Stands for advise's "+w.Scenario+" throughput per GPU.")
	}
	if out != "" {
		t.Notes = append(t.Notes, "Added to "+out+" (advise --bench reads it).")
	}
	return t
}

// finite is v, or nil when the device could not read it (NaN).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
