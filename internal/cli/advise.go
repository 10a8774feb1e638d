package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/form"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/report"
	"github.com/gpuscout/gpuscout/internal/store"
)

type adviseFlags struct {
	catalogFlags
	upload uploadFlags
	// form is the request's inputs (scenario, size, constraints, model,
	// selection), the same as POST /api/v1/advise's.
	form           *form.Advise
	export, report string
	bench          []string
	wide           bool
	limit          int
}

const adviseLong = `Describe the work; gpuscout answers where and how to buy the capacity, with
the numbers behind the answer.

The work is a --scenario (cv-training, llm-pretraining, llm-finetuning,
inference-online, inference-batch; each with defaults for GPU memory,
precision, sensitivity to memory bandwidth and GPU links, and whether spot
suits it) and its size:
  --gpu A100:4 --for 7d           a job: 7 days on 4 A100s (= 672 GPU-hours of A100 work)
  --work 20000gpu-h@A100          a job measured in GPU-hours on a reference GPU
  --hours-per-month 730 [--gpu L4:2]             a steady load of that capacity
  --pattern bursty --base 2 --peak 16 [--peak-hours 120]   GPUs always on, at peak, hours at peak a month
  --model llama-3-70b --method lora --tokens 2e9   a job sized by a model (gpuscout models)
Constraints: --deadline 30d, --budget 60000USD, --china, --provider, --region.
With --gpu NAME:COUNT --for D, that shape (every variant of a family name such
as A100) is priced on every provider that has it and marked ASK; every other
plan says how it differs from the best of them, and D is the time you have:
plans that take longer are excluded unless --deadline allows more. Training
scenarios use CUDA GPUs; --accelerators any adds Neuron, ROCm and Gaudi.

--model NAME|SIZE sizes the memory: --method full (mixed-precision Adam, 16
bytes a parameter as in ZeRO, sharded FSDP/ZeRO-3 over every GPU of the plan,
plus checkpointed activations for --context), lora or qlora (frozen 16-bit or
4-bit weights plus rank --lora-rank adapters on q, k, v, o), or inference
(weights at --weights plus the KV cache for --context × --concurrency, within
one instance); 10% headroom on top. Offerings that cannot hold it are excluded
with the numbers. --tokens turns the model into work: 6·N·tokens FLOPs to train
(2·N to serve; N active parameters) at the scenario's MFU of the reference GPU.

Each GPU's speed relative to the reference is (compute/ref)^(1−β)·(bandwidth/ref)^β
with the scenario's precision and bandwidth weight β. In communication-heavy
scenarios each shape's step time adds the ring all-reduce of the gradients that
compute does not hide, over the slowest link (the GPU link inside a node, the
network between nodes), relative to your own --gpu shape, which takes exactly
--for; such work spreads over nodes only on EFA, InfiniBand, GPUDirect-TCPX/TCPXO or
RDMA of at least 100 Gbps, and not over marketplace hosts, unless
--allow-slow-network. --bench REPORT.json replaces datasheet figures (GEMM,
memory bandwidth, NCCL bus bandwidth) by measured ones. A job's duration on each offering follows, so plans are priced per
job: on-demand, commitments (via the cost engine), spot (simulated with the
spot simulator, with Uniform Progress under a deadline), and for bursty loads a
committed base plus on-demand or spot burst. Constraints filter first; every
excluded family says why; plans are ranked by --objective cost, time or
balanced and carry their decisive numbers. When nothing fits, the answer says
which constraint fails by how much and shows the closest plans.`

func newAdviseCmd(e *env) *cobra.Command {
	var f adviseFlags
	cmd := &cobra.Command{
		Use:   "advise",
		Short: "Rank where and how to buy GPU capacity for a workload, with the numbers",
		Long:  adviseLong,
		Example: `  gpuscout advise --scenario cv-training --gpu A100:4 --for 7d
  gpuscout advise --scenario llm-pretraining --work 20000gpu-h@A100 --deadline 30d --budget 60000USD
  gpuscout advise --scenario inference-online --hours-per-month 730 --china --currency CNY
  gpuscout advise --scenario llm-finetuning --model llama-3-70b --method lora --tokens 2e9 --deadline 10d --budget 20000USD
  gpuscout advise --scenario inference-online --model qwen2.5-72b --context 32k --concurrency 32 --hours-per-month 730
  gpuscout advise --scenario llm-finetuning --pattern bursty --peak 16 --base 2 --credits 1000USD@aws
  gpuscout advise ... --bench reports/a100.json --report plan.html ; gpuscout advise ... --export skypilot > task.yaml`,
		Args: noArgs,
	}
	getFormat := outputFlag(cmd)
	f.catalogFlags.register(cmd)
	f.form = form.NewAdvise()
	fl := cmd.Flags()
	fl.AddFlagSet(f.form.Flags())
	fl.BoolVar(&f.wide, "wide", false, "do not wrap explanation lines at 120 columns")
	fl.StringSliceVar(&f.bench, "bench", nil, "benchmark report(s) (JSON) whose measured throughput replaces datasheet estimates")
	fl.Var(&outPathValue{p: &f.report, exts: []string{".html", ".htm", ".md"}}, "report", "write a report with charts: FILE.html or FILE.md (charts as SVG files beside it)")
	fl.StringVar(&f.export, "export", "", "print the best plan as: skypilot (a SkyPilot task YAML of the best plan SkyPilot can launch) or agent (gpuscout agent config)")
	f.limit = 10
	fl.Var(form.Int(&f.limit, 0, 1<<20), "limit", "show at most this many plans in the table (0: all)")
	f.upload.register(cmd, "the result (advise -o json) as a plan")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		if err := checkExport(f.export, cmd.Flags().Changed("output"), string(format)); err != nil {
			return err
		}
		up, err := f.upload.client()
		if err != nil {
			return err
		}
		a, req, err := f.prepare()
		if err != nil {
			return err
		}
		benchWarnings(e, req)
		res, err := a.Advise(req)
		if err != nil {
			return err
		}
		wrote := ""
		if f.report != "" {
			charts, err := writeAdviseReport(f.report, res, req, a)
			if err != nil {
				return err
			}
			wrote = "Report written to " + f.report
			if charts > 0 {
				wrote += fmt.Sprintf(", with its %s beside it", cost.Count(charts, "chart", "charts"))
			}
			wrote += "."
		}
		if f.export != "" {
			if len(res.Plans) == 0 {
				return fmt.Errorf("--export: no plan meets the constraints (%s)", res.Violation)
			}
			switch f.export {
			case "skypilot":
				opt := advise.SkyPilotOptions{Scenario: req.Scenario.Name, RegionPinned: len(req.Select.Regions) > 0}
				return asUsage(advise.WriteSkyPilot(e.stdout, a.Catalog, res.Plans, opt))
			case "agent":
				return agentconfig.Write(e.stdout, advise.AgentConfig(&res.Plans[0], req.Usage.Egress[catalog.PathInternet]))
			}
			return usagef("--export %q: want skypilot or agent", f.export) // checkExport refused it first
		}
		out := adviseJSON(res, req, a)
		if up != nil {
			b, err := json.Marshal(out)
			if err != nil {
				return err
			}
			if err := e.upload(cmd.Context(), up, store.KindPlan, b); err != nil {
				return err
			}
		}
		t := report.AdviseTable(res, req, f.limit)
		if l := f.catalogFlags.loaded; l != nil {
			offs := make([]*catalog.Offering, 0, len(res.Plans))
			for i := range res.Plans {
				if f.limit > 0 && i >= f.limit {
					break
				}
				offs = append(offs, res.Plans[i].Offering)
			}
			t.Notes = append(t.Notes, l.refreshNotes(offs, clock())...)
		}
		if wrote != "" {
			t.Notes = append(t.Notes, wrote)
		}
		if !f.wide && format == render.FormatTable { // CSV and JSON are never narrowed
			report.FitAdvise(t, tableWidth(e.stdout, columnsEnv()))
		}
		return e.write(format, t, out)
	}
	return cmd
}

// prepare loads the scenarios and the catalog, turns the inputs into a
// request, reads the bench reports, and lets the domain validate.
func (f *adviseFlags) prepare() (*advise.Advisor, *advise.Request, error) {
	scs, err := advise.LoadScenarios()
	if err != nil {
		return nil, nil, err
	}
	if !f.form.Changed("scenario") { // before the catalog loads
		return nil, nil, usagef("--scenario is required: one of %s", strings.Join(scs.Names(), ", "))
	}
	l, err := f.load()
	if err != nil {
		return nil, nil, err
	}
	a := &advise.Advisor{Catalog: l.cat, FX: l.fx, Currency: l.currency, Scenarios: scs, Now: clock}
	req, err := f.form.Request(form.Env{Catalog: l.cat, FX: l.fx, Currency: l.currency, Scenarios: scs})
	if err != nil {
		return nil, nil, asInputUsage(err)
	}
	for _, path := range f.bench {
		r, g, err := benchreport.Load(path, l.cat)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil, usagef("--bench %s: no such file", path)
			}
			return nil, nil, usagef("--bench: %v", err)
		}
		if err := r.CheckScenarios(scs.Names()); err != nil {
			return nil, nil, usagef("--bench %s: %v", path, err)
		}
		req.Bench[g] = r
	}
	req.Defaults()
	if err := req.Validate(); err != nil {
		return nil, nil, asUsage(err)
	}
	return a, req, nil
}

// benchWarnings prints, on stderr, the --bench figures above their GPU's
// datasheet (benchreport.Read refuses those more than twice it).
func benchWarnings(e *env, req *advise.Request) {
	var lines []string
	for _, r := range req.Bench {
		for _, w := range r.Warnings {
			lines = append(lines, fmt.Sprintf("warning: --bench %s: %s", r.Path, w))
		}
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Fprintln(e.stderr, l)
	}
}

// asInputUsage makes a form's input error a usage error (exit code 2);
// anything else (embedded data that does not load) stays a failure.
func asInputUsage(err error) error {
	var ie *form.InputError
	if errors.As(err, &ie) {
		return asUsage(err)
	}
	return err
}

// advise -o json's contract lives in the advise package (the server
// answers the same JSON).
type (
	advisePlanJSON = advise.PlanJSON
	adviseOut      = advise.Output
)

func planJSON(p *advise.Plan) advisePlanJSON { return advise.PlanOutput(p) }

func adviseJSON(res *advise.Result, req *advise.Request, a *advise.Advisor) adviseOut {
	return advise.NewOutput(res, req, a)
}

// writeAdviseReport writes advise's report to path: HTML with the charts
// inline, or Markdown with the charts as SVG files beside it. The report
// itself is render's, so that a server can serve the same one.
func writeAdviseReport(path string, res *advise.Result, req *advise.Request, a *advise.Advisor) (charts int, err error) {
	format, err := report.FormatOf(path)
	if err != nil {
		return 0, usagef("--report %q: %v", path, err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return 0, usagef("--report %q: folder %s does not exist", path, dir)
	}
	r := report.AdviseReport(res, req, string(a.Currency))
	out := outputFiles{flag: "--report"}
	defer out.discard()
	if format == "html" {
		if err := out.add(path, r.WriteHTML); err != nil {
			return 0, err
		}
		return 0, out.commit()
	}
	base := filepath.Base(strings.TrimSuffix(path, filepath.Ext(path)))
	files, err := r.ChartFiles(base)
	if err != nil {
		return 0, err
	}
	// The charts and the page that shows them, all or none.
	for _, c := range files {
		if err := out.add(filepath.Join(dir, c.Name), writeBytes(c.SVG)); err != nil {
			return 0, err
		}
	}
	if err := out.add(path, func(w io.Writer) error { return r.WriteMarkdown(w, base) }); err != nil {
		return 0, err
	}
	return len(files), out.commit()
}

// checkExport refuses, before any work, an --export that is not one of the
// formats, and -o beside --export (which prints YAML of its own, so -o
// json was silently ignored).
func checkExport(export string, outputSet bool, format string) error {
	switch export {
	case "":
		return nil
	case "skypilot", "agent":
	default:
		return usagef("--export %q: want skypilot or agent", export)
	}
	if outputSet {
		return usagef("--export %s prints its own YAML; -o %s does not apply: give one of --export and -o", export, format)
	}
	return nil
}
