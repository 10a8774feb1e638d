package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/render"
	"github.com/gpuscout/gpuscout/internal/store"
)

type adviseFlags struct {
	catalogFlags
	upload uploadFlags
	selectFlags
	scenario, work, objective, pattern, license, export string
	spotBand, report                                    string
	duration, horizon, deadline                         float64 // hours
	budget                                              money.Amount
	discountRate                                        decimal.Decimal
	hoursPerMonth, peak, base, peakHours                float64
	credits                                             []cost.Credit
	egress                                              map[string]float64
	bench                                               []string
	noSpot, wide, allowSlowNetwork                      bool
	accelerators                                        string
	limit, maxNodes                                     int
	spotRegions                                         int     // --spot-regions
	checkpointGB                                        float64 // --checkpoint-gb
	// Sizing by the model (--model and its flags).
	model, method, weights         string
	tokens                         float64
	context, concurrency, loraRank int
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
--for; such work spreads over nodes only on EFA, InfiniBand, GPUDirect-TCPX or
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
	f.selectFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "", "cv-training, llm-pretraining, llm-finetuning, inference-online or inference-batch (required)")
	fl.Var(newHours(&f.duration, false, cost.MaxDurationHours), "for", "a job: how long it runs on --gpu NAME:COUNT (e.g. 7d)")
	fl.StringVar(&f.work, "work", "", "a job in GPU-hours on a reference GPU, e.g. 20000gpu-h@A100")
	fl.Float64Var(&f.hoursPerMonth, "hours-per-month", 0, "a steady load: hours a month of --gpu's capacity")
	fl.StringVar(&f.pattern, "pattern", "", "load pattern: steady (default with --hours-per-month) or bursty (--base, --peak)")
	fl.Float64Var(&f.base, "base", 0, "bursty: GPUs (of the reference) always on")
	fl.Float64Var(&f.peak, "peak", 0, "bursty: GPUs (of the reference) at peak")
	fl.Float64Var(&f.peakHours, "peak-hours", 120, "bursty: hours a month at peak")
	fl.Var(newHours(&f.horizon, false, cost.MaxHorizonMonths*catalog.HoursPerMonth), "horizon", "planning window for steady and bursty loads, at most 10y (default 1y)")
	fl.Var(newHours(&f.deadline, false, cost.MaxHorizonMonths*catalog.HoursPerMonth), "deadline", "the job must finish within this time, at most 10y")
	fl.Var(&amountValue{a: &f.budget}, "budget", "the most the whole plan may cost, e.g. 60000USD (default currency: --currency)")
	fl.StringVar(&f.objective, "objective", "cost", "rank by cost, time or balanced")
	fl.Var(&creditValue{cs: &f.credits}, "credits", "credits, AMOUNT CUR[@provider,...][:EXPIRES], e.g. 1000USD@aws; repeatable")
	fl.Var(&egressValue{m: &f.egress}, "egress", "egress GB a month of the whole workload by path, PATH=GB; repeatable")
	fl.Var(newFraction(&f.discountRate, "0", "1"), "discount-rate", "yearly discount rate for NPV: 8% or 0.08 (default 0)")
	fl.StringVar(&f.license, "license", "", "OS licence: linux (default) or windows")
	fl.Var(&bandValue{s: &f.spotBand}, "spot-band", "spot interruptions a month where the Spot Advisor has none (default 5-10%, an assumption)")
	f.spotRegions = 1
	fl.Var(&intValue{n: &f.spotRegions, min: 1, max: advise.MaxSpotRegions}, "spot-regions", "spot plans may fail over among this many regions of their provider, their own first, then the cheapest (1 to 10)")
	fl.Var(&floatValue{f: &f.checkpointGB, min: 0, openMin: true, max: advise.MaxCheckpointGB, unit: " GB"}, "checkpoint-gb", "with --spot-regions: GB of job state a move transfers (default: from --model or the scenario's reference model)")
	fl.BoolVar(&f.noSpot, "no-spot", false, "leave spot capacity out")
	fl.StringVar(&f.accelerators, "accelerators", "", "cuda (NVIDIA GPUs) or any (also Neuron, ROCm, Gaudi); default: cuda for training, any for inference")
	fl.BoolVar(&f.wide, "wide", false, "do not wrap explanation lines at 120 columns")
	fl.BoolVar(&f.allowSlowNetwork, "allow-slow-network", false, "let communication-heavy work spread over nodes on a slow or unsourced network, or marketplace hosts")
	fl.StringSliceVar(&f.bench, "bench", nil, "benchmark report(s) (JSON) whose measured throughput replaces datasheet estimates")
	fl.Var(&outPathValue{p: &f.report, exts: []string{".html", ".htm", ".md"}}, "report", "write a report with charts: FILE.html or FILE.md (charts as SVG files beside it)")
	fl.StringVar(&f.export, "export", "", "print the best plan as: skypilot (a SkyPilot task YAML of the best plan SkyPilot can launch) or agent (gpuscout agent config)")
	f.limit, f.maxNodes = 10, 64
	fl.Var(&intValue{n: &f.limit, min: 0, max: 1 << 20}, "limit", "show at most this many plans in the table (0: all)")
	fl.Var(&intValue{n: &f.maxNodes, min: 1, max: advise.MaxNodes}, "max-nodes", "the most instances a plan may use (1 to 10000)")
	fl.StringVar(&f.model, "model", "", "size the work by a model: a name from `gpuscout models` or a size such as 70B")
	fl.StringVar(&f.method, "method", "", "with --model: full, lora, qlora or inference (default: inference for inference scenarios, else full)")
	fl.Var(&floatValue{f: &f.tokens, min: 1, max: advise.MaxTokens}, "tokens", "with --model: a job of this many tokens, e.g. 2e9 (training 6·N·tokens FLOPs, inference 2·N)")
	fl.Var(&contextValue{n: &f.context}, "context", "with --model: tokens per sequence or request, e.g. 4096 or 32k (default 4096)")
	fl.Var(&intValue{n: &f.concurrency, min: 1, max: advise.MaxConcurrency}, "concurrency", "with --model: requests served at once (inference) or sequences per GPU per step (training); default 1")
	fl.Var(&intValue{n: &f.loraRank, min: 1, max: advise.MaxLoRARank}, "lora-rank", "with --method lora or qlora: the adapter rank (default 16)")
	fl.StringVar(&f.weights, "weights", "", "with --method inference: bf16 (default), fp16, fp8, int8 or int4")
	f.upload.register(cmd, "the result (advise -o json) as a plan")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := getFormat()
		if err != nil {
			return err
		}
		up, err := f.upload.client()
		if err != nil {
			return err
		}
		a, req, err := f.prepare(cmd.Flags().Changed)
		if err != nil {
			return err
		}
		res, err := a.Advise(req)
		if err != nil {
			return err
		}
		if f.report != "" {
			if err := writeAdviseReport(f.report, res, req, a); err != nil {
				return err
			}
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
			return usagef("--export %q: want skypilot or agent", f.export)
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
		t := render.AdviseTable(res, req, f.limit)
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
		if !f.wide && format == render.FormatTable { // CSV and JSON are never narrowed
			render.FitAdvise(t, tableWidth(e.stdout, columnsEnv()))
		}
		return e.write(format, t, out)
	}
	return cmd
}

// parseWork reads "20000gpu-h@A100".
func parseWork(s string) (float64, string, error) {
	amount, ref, ok := strings.Cut(strings.TrimSpace(s), "@")
	a := strings.TrimSpace(strings.ToLower(amount))
	for _, suf := range []string{"gpu-hours", "gpu-h", "gpuh", "h"} {
		if strings.HasSuffix(a, suf) {
			a = strings.TrimSpace(strings.TrimSuffix(a, suf))
			break
		}
	}
	v, err := strconv.ParseFloat(a, 64)
	if !ok || err != nil || !(v > 0) || math.IsInf(v, 0) || strings.TrimSpace(ref) == "" {
		return 0, "", usagef("--work %q: want GPU-hours on a reference GPU, e.g. 20000gpu-h@A100", s)
	}
	return v, strings.TrimSpace(ref), nil
}

// prepare loads the scenarios and the catalog, turns the flags into a
// request, reads the bench reports, and lets the domain validate.
func (f *adviseFlags) prepare(changed func(string) bool) (*advise.Advisor, *advise.Request, error) {
	scs, err := advise.LoadScenarios()
	if err != nil {
		return nil, nil, err
	}
	if f.scenario == "" {
		return nil, nil, usagef("--scenario is required: one of %s", strings.Join(scs.Names(), ", "))
	}
	l, err := f.load()
	if err != nil {
		return nil, nil, err
	}
	a := &advise.Advisor{Catalog: l.cat, FX: l.fx, Currency: l.currency, Scenarios: scs}
	req, err := adviseRequestFromFlags(f, changed, l, scs)
	if err != nil {
		return nil, nil, err
	}
	for _, path := range f.bench {
		r, g, err := benchreport.Load(path, l.cat)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil, usagef("--bench %s: no such file", path)
			}
			return nil, nil, usagef("--bench: %v", err)
		}
		req.Bench[g] = r
	}
	req.Defaults()
	if err := req.Validate(); err != nil {
		return nil, nil, asUsage(err)
	}
	return a, req, nil
}

// adviseRequestFromFlags turns advise's flags into a request: parsing only
// (the request's Validate checks the values). changed reports whether the
// user set a flag, so that a value equal to the default still counts.
func adviseRequestFromFlags(f *adviseFlags, changed func(string) bool, l *loadedCatalog, scs *advise.Scenarios) (*advise.Request, error) {
	var err error
	if f.scenario == "" {
		return nil, usagef("--scenario is required: one of %s", strings.Join(scs.Names(), ", "))
	}
	sc, err := scs.Get(f.scenario)
	if err != nil {
		return nil, usagef("--scenario: %v", err)
	}
	req := &advise.Request{Scenario: sc, RefCount: 1, Accelerators: f.accelerators, Objective: f.objective, NoSpot: f.noSpot, SpotRegions: f.spotRegions, CheckpointGB: f.checkpointGB, AllowSlowNetwork: f.allowSlowNetwork, MaxNodes: f.maxNodes, Bench: map[*catalog.GPU]*benchreport.Report{}}
	// The reference GPU and the size of the work.
	refName := "A100-SXM4-40GB"
	if f.gpu != "" {
		name, count, err := parseGPUFlag(f.gpu)
		if err != nil {
			return nil, err
		}
		refName = name
		if count > 0 {
			req.RefCount = count
		}
	}
	var workRef string
	if f.work != "" {
		if req.WorkGPUHours, workRef, err = parseWork(f.work); err != nil {
			return nil, err
		}
		refName = workRef
	}
	gs, err := l.cat.LookupGPU(refName)
	if err != nil {
		flag := "--gpu"
		if f.work != "" {
			flag = "--work"
		}
		return nil, usagef("%s: %v", flag, err)
	}
	for _, g := range gs {
		if !g.Generic && (g.BF16.Known || g.FP16.Known) {
			req.Ref = g
			break
		}
	}
	if req.Ref == nil {
		req.Ref = gs[0]
	}
	if f.pattern != "" && f.pattern != "bursty" && f.pattern != "steady" {
		return nil, usagef("--pattern %q: want steady or bursty", f.pattern)
	}
	sizes := 0
	for _, set := range []bool{changed("for"), changed("work"), changed("hours-per-month"), f.pattern == "bursty", changed("tokens")} {
		if set {
			sizes++
		}
	}
	if sizes != 1 {
		return nil, usagef("give the size of the work once: --gpu NAME:COUNT --for DURATION, --work N gpu-h@GPU, --model M --tokens N, --hours-per-month H, or --pattern bursty --base B --peak P")
	}
	switch {
	case changed("for"):
		req.WorkGPUHours = f.duration * req.RefCount
		if f.gpu != "" { // the shape and time asked for: the baseline
			if req.Ask, err = advise.NewAsk(l.cat, refName, req.RefCount, f.duration, durationText(f.duration)); err != nil {
				return nil, usagef("--gpu: %v", err)
			}
		}
	case changed("hours-per-month"):
		req.HoursPerMonth = f.hoursPerMonth
	case f.pattern == "bursty":
		req.Bursty, req.Base, req.Peak, req.PeakHours = true, f.base, f.peak, f.peakHours
	}
	if changed("horizon") {
		if req.WorkGPUHours > 0 || changed("tokens") {
			return nil, usagef("--horizon applies to a steady or bursty load, not to a job (--for or --work)")
		}
		req.HorizonMonths = f.horizon / catalog.HoursPerMonth
	}
	if changed("deadline") {
		req.Deadline = f.deadline
		if req.WorkGPUHours == 0 && !changed("tokens") {
			return nil, usagef("--deadline applies to a job (--for or --work), not to a steady load")
		}
	}
	if changed("budget") {
		b := f.budget
		if b.Currency == "" {
			b.Currency = l.currency // a bare number is in --currency
		}
		if !b.Value.IsPositive() {
			return nil, usagef("--budget %s: want an amount above zero, such as 60000USD", b)
		}
		conv, err := b.In(l.currency, l.fx)
		if err != nil {
			return nil, usagef("--budget: %v", err)
		}
		req.Budget = decimal.NullDecimal{Decimal: conv.Value, Valid: true}
	}
	if req.Model, err = modelJobFromFlags(f, changed); err != nil {
		return nil, err
	}
	// Usage shared by every plan.
	u := &req.Usage
	u.DiscountRate = f.discountRate
	u.License = f.license
	u.Spot = cost.DefaultSpot
	u.Spot.Band = f.spotBand
	for _, c := range f.credits {
		if !l.fx.Known(c.Currency) {
			return nil, usagef("--credits %s%s: currency %s has no exchange rate; add one with --fx %s=USD_PER_UNIT", c.Amount, c.Currency, c.Currency, c.Currency)
		}
		for _, p := range c.Providers {
			if l.cat.Provider(p) == nil {
				return nil, usagef("--credits: unknown provider %q; known: %s", p, strings.Join(l.cat.ProviderNames(), ", "))
			}
		}
	}
	u.Credits = slices.Clone(f.credits)
	u.Egress = maps.Clone(f.egress)
	// Selection (the GPU flag names the reference, not a filter).
	sel := f.selectFlags
	sel.gpu = ""
	sel.allRegions = false
	if err := sel.apply(&req.Select, l); err != nil {
		return nil, err
	}
	return req, nil
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

// durationText writes --for's hours back as the user likely wrote them: 7d, 36h.
func durationText(h float64) string {
	if h >= 24 && math.Mod(h, 24) == 0 {
		return strconv.FormatFloat(h/24, 'f', -1, 64) + "d"
	}
	return strconv.FormatFloat(h, 'f', -1, 64) + "h"
}

// writeAdviseReport writes advise's report to path: HTML with the charts
// inline, or Markdown with the charts as SVG files beside it. The report
// itself is render's, so that a server can serve the same one.
func writeAdviseReport(path string, res *advise.Result, req *advise.Request, a *advise.Advisor) error {
	format, err := render.ReportFormat(path)
	if err != nil {
		return usagef("--report %q: %v", path, err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("--report %q: folder %s does not exist", path, dir)
	}
	r := render.AdviseReport(res, req, string(a.Currency))
	var buf bytes.Buffer
	if format == "html" {
		if err := r.WriteHTML(&buf); err != nil {
			return err
		}
		return writeReportFile(path, buf.Bytes())
	}
	base := filepath.Base(strings.TrimSuffix(path, filepath.Ext(path)))
	charts, err := r.ChartFiles(base)
	if err != nil {
		return err
	}
	for _, c := range charts {
		if err := writeReportFile(filepath.Join(dir, c.Name), c.SVG); err != nil {
			return err
		}
	}
	if err := r.WriteMarkdown(&buf, base); err != nil {
		return err
	}
	return writeReportFile(path, buf.Bytes())
}

func writeReportFile(path string, b []byte) error {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}
