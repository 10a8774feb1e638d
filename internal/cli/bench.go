package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/bench"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/host"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/server/client"
	"github.com/gpuscout/gpuscout/internal/store"
)

// openGPUs opens every NVIDIA GPU of the machine through the CUDA driver
// loaded at run time (internal/gpu/cuda); tests replace it with fakes.
var openGPUs = func() ([]gpu.Device, error) { return openCUDA(cuda.Options{}) }

// openCUDA opens the GPUs, saying in one line when there are none.
func openCUDA(o cuda.Options) ([]gpu.Device, error) {
	devs, err := cuda.Open(o)
	if cuda.NoGPU(err) {
		return nil, fmt.Errorf("no NVIDIA GPU found (%v; 'gpuscout doctor' says what is missing)", err)
	}
	return devs, err
}

// openComm opens NCCL over the GPUs for the all-reduce measurement; tests
// replace it.
var openComm gpu.CommOpener = cuda.OpenCollective

// benchTune adjusts the measurement plan; tests shrink sizes with it.
var benchTune func(*bench.Plan)

type benchFlags struct {
	device    string
	quick     bool
	allowBusy bool
	// sustainAll runs the sustained GEMM on every GPU at once.
	sustainAll bool
	only       []string
	dtypes     []string
	sustain    time.Duration
	out        string
	upload     uploadFlags
}

func newBenchCmd(e *env) *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure this node: GEMM TFLOP/s, memory, host-link and GPU-to-GPU bandwidth, NCCL, jitter, burst vs sustained",
		Long: `Measure every GPU of this machine (or, with --device cpu, the host CPU) and
write a report that 'advise --bench' and 'bench compare' read.

Measurements (each a median of repeated samples after a warm-up, in decimal
units: TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s):
  gemm      n×n×n matrix products per type (fp32 tf32 bf16 fp16 fp8 on a GPU,
            fp32 fp64 on the CPU) on random operands, sampled outputs checked
            against float64; a type the device lacks is "unsupported"
  hbm       device memory copy, bytes read + written (cpu_mem_copy on the CPU)
  h2d, d2h  pinned host <-> device copies
  jitter    per-operation time spread (CV, p99/p50) of tiny fills and small copies
  sustain   the GEMM back to back for --sustain: burst vs sustained TFLOP/s, the
            clock-event reasons, SM clock, power and utilisation spread seen
  p2p       every ordered pair of GPUs: copy bandwidth (p2p, GB/s) and the time
            of a small copy (p2p_latency, µs), with the link NVML names
  nccl      NCCL all-reduce over all GPUs, 8 B to 1 GiB: bus bandwidth at the
            largest size (nccl_allreduce_busbw, with the sweep in the report)
            and the time at the smallest (nccl_allreduce_latency)
Efficiency is the measured figure over the datasheet's ('gpuscout gpus').

Each GPU is measured on its own. One that cannot be opened (another job holds
it in EXCLUSIVE_PROCESS mode, an Xid left it broken) is reported as gpu_open
with the driver's error and the fix; one that other programs compute on is
reported as gpu_idle, naming their PIDs, and not measured unless --allow-busy
(its figures then say they were shared). The other GPUs are measured.

A measurement that fails is recorded in the report and the command exits 1.`,
		Example: "  gpuscout bench\n  gpuscout bench --quick --only gemm,hbm --dtypes bf16\n  gpuscout bench --device cpu --quick --out cpu.json\n  gpuscout bench compare a.json b.json",
		Args:    cobra.NoArgs,
	}
	fl := cmd.Flags()
	fl.StringVar(&f.device, "device", "gpu", "what to measure: gpu (every GPU) or cpu (the host)")
	fl.BoolVar(&f.quick, "quick", false, "smaller sizes, fewer samples and no sustained run (about 15 s on a GPU)")
	fl.StringSliceVar(&f.only, "only", nil, "run only these groups: "+strings.Join(bench.Groups, ","))
	fl.StringSliceVar(&f.dtypes, "dtypes", nil, "GEMM types: fp32,tf32,bf16,fp16,fp8,fp64 (default: all a GPU may have; fp32,fp64 on the CPU)")
	fl.DurationVar(&f.sustain, "sustain", bench.DefaultSustain(false), "how long the sustained GEMM runs (0 to skip; default 0 with --quick; at most "+bench.MaxSustain.String()+")")
	fl.StringVar(&f.out, "out", "report.json", "write the JSON report to this file ('' for none)")
	fl.BoolVar(&f.sustainAll, "sustain-all", false, "run the sustained GEMM on every GPU at once, so that the node's power and cooling limits bind (adds the node's power draw)")
	fl.BoolVar(&f.allowBusy, "allow-busy", false, "measure GPUs that other programs compute on (their figures are then shared with them)")
	f.upload.register(cmd, "the report")
	getFormat := outputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		up, err := f.upload.client()
		if err != nil {
			return err
		}
		req, err := benchRequestFromFlags(&f, cmd.Flags().Changed)
		if err != nil {
			return err
		}
		if f.out != "" {
			if dir := filepath.Dir(f.out); dir != "." {
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					return usagef("--out %s: folder %s does not exist", f.out, dir)
				}
			}
		}
		return runBench(cmd.Context(), e, req, f.out, format, up)
	}
	cmd.AddCommand(newBenchCompareCmd(e))
	cmd.AddCommand(newBenchWorkloadCmd(e))
	cmd.AddCommand(newBenchNCCLChoiceCmd())
	return cmd
}

// benchRequestFromFlags turns bench's flags into a request: parsing only
// (the request's Validate checks the values). changed reports whether the
// user set a flag, so that --sustain's default can follow --quick.
func benchRequestFromFlags(f *benchFlags, changed func(string) bool) (bench.Request, error) {
	req := bench.Request{Device: strings.ToLower(strings.TrimSpace(f.device)), Quick: f.quick, Sustain: f.sustain, SustainAll: f.sustainAll, AllowBusy: f.allowBusy}
	if !changed("sustain") {
		req.Sustain = bench.DefaultSustain(f.quick)
	}
	for _, g := range f.only {
		if g = strings.ToLower(strings.TrimSpace(g)); g != "" {
			req.Only = append(req.Only, g)
		}
	}
	if changed("only") && len(req.Only) == 0 {
		return req, usagef("--only is empty: want a comma-separated list of %s", strings.Join(bench.Groups, ", "))
	}
	for _, s := range f.dtypes {
		dt, err := gpu.ParseDType(strings.ToLower(strings.TrimSpace(s)))
		if err != nil {
			return req, usagef("--dtypes: %v", err)
		}
		req.DTypes = append(req.DTypes, dt)
	}
	return req, asUsage(req.Validate())
}

// runBench opens the devices, measures, writes the report and the table.
func runBench(ctx context.Context, e *env, req bench.Request, out string, format render.Format, up *client.Client) error {
	hostDesc := reportHost(envProbe.host())
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	// Which machine this is, before measuring: a bad GPUSCOUT_CLOUD stops here.
	cloud, err := reportCloud(ctx, cat)
	if err != nil {
		return err
	}
	var devs []gpu.Device
	if req.Device == bench.DeviceCPU {
		devs = []gpu.Device{host.New(host.Config{Name: hostDesc.CPUModel, MemoryBytes: int64(hostDesc.MemoryGiB * (1 << 30))})}
	} else {
		var err error
		devs, err = openGPUs()
		if err == nil && len(devs) == 0 {
			err = errors.New("no NVIDIA GPU found")
		}
		if err != nil {
			return fmt.Errorf("%v (bench --device cpu measures the host CPU instead)", err)
		}
	}
	defer func() {
		for _, d := range devs {
			_ = d.Close()
		}
	}()
	// NCCL's choice is learnt in a probe process of bench's own, so that
	// NCCL's log costs the timed all-reduces nothing (benchncclchoice.go).
	rn := &bench.Runner{Catalog: cat, Tune: benchTune, OpenComm: openComm, NCCLChoice: ncclChoiceProbe}
	if out != "" {
		// A driver call that hangs ends the process: what was measured
		// before it is written first, ending with the watchdog's entry.
		rn.OnHang = func(d *benchreport.Document) {
			d.Host, d.Cloud = hostDesc, cloud
			if err := writeReport(out, d); err != nil {
				fmt.Fprintf(e.stderr, "gpuscout: the partial report was not written: %v\n", err)
			}
		}
	}
	if progressTTY(e.stderr) {
		rn.Progress = func(ev bench.Event) { benchProgress(e.stderr, ev, req) }
	}
	doc, runErr := rn.Run(ctx, devs, req)
	if doc == nil {
		return runErr
	}
	doc.Host, doc.Cloud = hostDesc, cloud
	if out != "" {
		if err := writeReport(out, doc); err != nil {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	if up != nil {
		var b bytes.Buffer
		if err := doc.Encode(&b); err != nil {
			return err
		}
		if err := e.upload(ctx, up, store.KindBench, b.Bytes()); err != nil {
			return err
		}
	}
	var werr error
	if format == render.FormatJSON {
		werr = render.JSON(e.stdout, doc)
	} else {
		werr = e.write(format, benchTable(doc, out), nil)
	}
	if werr != nil {
		return werr
	}
	if fails := bench.Failures(doc); len(fails) > 0 {
		var list []string
		for _, m := range fails {
			list = append(list, fmt.Sprintf("%s on %s: %s", m.Name, m.Device, m.Detail))
		}
		return fmt.Errorf("%d measurement(s) failed: %s", len(fails), strings.Join(list, "; "))
	}
	return nil
}

func writeReport(path string, doc *benchreport.Document) error {
	return writeOutputFile("--out", path, func(w io.Writer) error { return doc.Encode(w) })
}

// progressLine writes one line per finished measurement, and a line before
// the long sustained run.
func benchProgress(w io.Writer, ev bench.Event, req bench.Request) {
	switch {
	case ev.Start && ev.Group == bench.GroupSustain:
		fmt.Fprintf(w, "%-5s sustained GEMM for %s ...\n", ev.Device, req.Sustain)
	case ev.Start && ev.Group == bench.GroupNCCL:
		fmt.Fprintf(w, "%-5s NCCL all-reduce over every GPU, a sweep of message sizes ...\n", ev.Device)
	case ev.M != nil:
		fmt.Fprintf(w, "%-5s %-22s %s\n", ev.Device, ev.M.Name, resultText(*ev.M))
	}
}

// resultText is a measurement's value, unit and efficiency, or its status.
func resultText(m benchreport.Measurement) string {
	if !m.OK() {
		if m.Detail != "" {
			return m.Status + ": " + m.Detail
		}
		return m.Status
	}
	s := render.Figure(*m.Value) + " " + m.Unit
	if m.Efficiency != nil {
		s += fmt.Sprintf(" (%.1f%% of datasheet)", 100**m.Efficiency)
	}
	return s
}

func optFigure(p *float64) string {
	if p == nil {
		return "-"
	}
	return render.Figure(*p)
}

func optPercent(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100**p)
}

// benchTable is the summary: one row per measurement per device.
func benchTable(doc *benchreport.Document, out string) *render.Table {
	t := &render.Table{Wrap: 100, Columns: []render.Column{
		{Header: "DEVICE"}, {Header: "MEASUREMENT"}, {Header: "VALUE", Right: true, Mixed: true}, {Header: "UNIT"}, {Header: "EFFICIENCY", Right: true},
		{Header: "P50 µs", Right: true, Mixed: true}, {Header: "P99 µs", Right: true, Mixed: true}, {Header: "CV", Right: true, Mixed: true}, {Header: "STATUS"},
	}}
	for _, m := range doc.Measurements {
		t.Rows = append(t.Rows, []string{m.Device, m.Name, optFigure(m.Value), m.Unit, optPercent(m.Efficiency),
			optFigure(m.P50US), optFigure(m.P99US), optFigure(m.CV), m.Status})
		if !m.OK() && m.Detail != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s on %s: %s", m.Name, m.Device, m.Detail))
		}
	}
	t.Notes = append(t.Notes, multiGPUNotes(doc)...)
	for _, g := range doc.GPUs {
		spec := "not in the catalog: no efficiency"
		if g.CanonicalGPU != nil {
			spec = "efficiency against the " + *g.CanonicalGPU + " datasheet (gpuscout gpus " + *g.CanonicalGPU + ")"
		}
		t.Notes = append(t.Notes, fmt.Sprintf("%s: %s, %.1f GiB, driver %s; %s", benchreport.DeviceName(g.Index), g.Name, g.MemoryGiB, g.Driver, spec))
	}
	t.Notes = append(t.Notes, "Values in decimal units (TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s), medians of the samples; P50/P99 are the time of one operation.")
	if out != "" {
		t.Notes = append(t.Notes, "Report written to "+out+" (advise --bench and bench compare read it).")
	}
	return t
}
