package form

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Advise is the inputs of `gpuscout advise` and POST /api/v1/advise. The
// CLI's own flags (output, --limit of the table, --bench files, --report,
// --export, --upload, the catalog's --prices, --fx and --currency) are not
// inputs of the request and stay with the command.
type Advise struct {
	Form
	sel                                                 Selection
	scenario, work, objective, pattern, license, accels string
	spotBand                                            string
	spotOutage, spotRestart                             float64 // hours
	duration, horizon, deadline                         float64 // hours
	budget                                              money.Amount
	discountRate                                        decimal.Decimal
	hoursPerMonth, peak, base, peakHours                float64
	credits                                             []cost.Credit
	egress                                              map[string]float64
	noSpot, allowSlowNetwork                            bool
	maxNodes, spotRegions                               int
	checkpointGB                                        float64 // GB of job state a spot move transfers
	// Sizing by the model (--model and its inputs).
	model, method, weights         string
	recompute                      string
	tokens                         float64
	context, concurrency, loraRank int
}

// NewAdvise is advise's inputs with their defaults. A new input is one
// line here (its value, name and help) and its use in Request.
func NewAdvise() *Advise {
	f := &Advise{Form: newForm("advise"), objective: "cost", peakHours: 120, spotRegions: 1}
	fs := f.fs
	hoursMax := float64(cost.MaxHorizonMonths * catalog.HoursPerMonth)
	f.sel.Register(fs)
	fs.StringVar(&f.scenario, "scenario", "", "cv-training, llm-pretraining, llm-finetuning, inference-online or inference-batch (required)")
	fs.Var(&Hours{P: &f.duration, Max: cost.MaxDurationHours}, "for", "a job: how long it runs on --gpu NAME:COUNT (e.g. 7d)")
	fs.StringVar(&f.work, "work", "", "a job in GPU-hours on a reference GPU, e.g. 20000gpu-h@A100")
	fs.Float64Var(&f.hoursPerMonth, "hours-per-month", 0, "a steady load: hours a month of --gpu's capacity, 1 minute (0.0167) to 730")
	fs.StringVar(&f.pattern, "pattern", "", "load pattern: steady (default with --hours-per-month) or bursty (--base, --peak)")
	fs.Float64Var(&f.base, "base", 0, "bursty: GPUs (of the reference) always on")
	fs.Float64Var(&f.peak, "peak", 0, "bursty: GPUs (of the reference) at peak")
	fs.Float64Var(&f.peakHours, "peak-hours", 120, "bursty: hours a month at peak, 1 minute (0.0167) to 730")
	fs.Var(&Hours{P: &f.horizon, Max: hoursMax}, "horizon", "planning window for steady and bursty loads, at most 10y (default 1y)")
	fs.Var(&Hours{P: &f.deadline, Max: hoursMax}, "deadline", "the job must finish within this time, at most 10y")
	fs.Var(&amountValue{a: &f.budget}, "budget", "the most the whole plan may cost, e.g. 60000USD (default currency: --currency)")
	fs.StringVar(&f.objective, "objective", "cost", "rank by cost, time or balanced")
	fs.Var(&creditValue{cs: &f.credits}, "credits", "credits, AMOUNT CUR[@provider,...][:EXPIRES], e.g. 1000USD@aws; repeatable")
	fs.Var(&egressValue{m: &f.egress}, "egress", "egress GB a month of the whole workload by path, PATH=GB; repeatable")
	fs.Var(&fractionValue{d: &f.discountRate, min: decimal.Zero, max: decimal.NewFromInt(1)}, "discount-rate", "yearly discount rate for NPV: 8% or 0.08 (default 0)")
	fs.StringVar(&f.license, "license", "", "OS licence: linux (default) or windows")
	fs.Var(&bandValue{s: &f.spotBand}, "spot-band", "spot interruptions a month where the Spot Advisor has none (default >20%, an assumption: the band of most GPU types in the Advisor's data)")
	fs.Var(NewHours(&f.spotOutage, true, cost.MaxSpotOutageHours), "spot-outage", "mean time spot capacity stays short after an interruption, 0 to 30d, e.g. 2h (default 0: back at once; the bands do not say: your assumption)")
	fs.Var(NewHours(&f.spotRestart, false, 24), "spot-restart", "mean time one instance takes to run again after an interruption (provision, boot, load the checkpoint), above 0 and at most 1d (default 10m, an assumption); a gang of N waits for the last: × H(N), the harmonic number")
	fs.Var(&intValue{n: &f.spotRegions, min: 1, max: advise.MaxSpotRegions}, "spot-regions", "spot plans may fail over among this many regions of their provider, their own first, then the cheapest (1 to 10)")
	fs.Var(&floatValue{f: &f.checkpointGB, min: 0, openMin: true, max: advise.MaxCheckpointGB, unit: " GB"}, "checkpoint-gb", "with --spot-regions: GB of job state a move transfers (default: from --model or the scenario's reference model)")
	f.boolVar(&f.noSpot, "no-spot", "leave spot capacity out")
	fs.StringVar(&f.accels, "accelerators", "", "cuda (NVIDIA GPUs) or any (also Neuron, ROCm, Gaudi); default: cuda for training, any for inference")
	f.boolVar(&f.allowSlowNetwork, "allow-slow-network", "let communication-heavy work spread over nodes on a slow or unsourced network, or marketplace hosts")
	fs.Var(&intValue{n: &f.maxNodes, min: 1, max: advise.MaxNodes}, "max-nodes", "the most instances a plan may use (1 to 10000; default 64, or the 8-GPU nodes --gpu NAME:COUNT needs when more)")
	fs.StringVar(&f.model, "model", "", "size the work by a model: a name from 'gpuscout models' or a size such as 70B")
	fs.StringVar(&f.method, "method", "", "with --model: full, lora, qlora or inference (default: inference for inference scenarios, else full)")
	fs.Var(&floatValue{f: &f.tokens, min: 1, max: advise.MaxTokens}, "tokens", "with --model: a job of this many tokens, e.g. 2e9 (training 6·N·tokens FLOPs, inference 2·N)")
	fs.Var(&contextValue{n: &f.context}, "context", "with --model: tokens per sequence or request, e.g. 4096 or 32k (default 4096)")
	fs.Var(&intValue{n: &f.concurrency, min: 1, max: advise.MaxConcurrency}, "concurrency", "with --model: requests served at once (inference) or sequences per GPU per step (training); default 1")
	fs.Var(&intValue{n: &f.loraRank, min: 1, max: advise.MaxLoRARank}, "lora-rank", "with --method lora or qlora: the adapter rank (default 16)")
	fs.StringVar(&f.weights, "weights", "", "with --method inference: bf16 (default), fp16, fp8, int8 or int4")
	fs.StringVar(&f.recompute, "recompute", "", "with --model, training: activation recompute, full (default: a layer's input kept, the layer recomputed in the backward pass) or none (every layer's activations kept: more memory, 3/4 of the time)")
	return f
}

// Env is what a request is read against: the catalog (with any user
// prices), the exchange rates, the display currency and the scenarios.
type Env struct {
	Catalog   *catalog.Catalog
	FX        *money.FX
	Currency  money.Currency
	Scenarios *advise.Scenarios
}

// Request turns the inputs into an advise request: parsing and the checks
// that need more than one input; the request's Defaults and Validate follow
// (the caller adds bench reports first). Errors name the input
// (*InputError) in the CLI's words.
func (f *Advise) Request(env Env) (*advise.Request, error) {
	scs, changed := env.Scenarios, f.Changed
	if f.scenario == "" {
		return nil, inputErrorf("scenario", "--scenario is required: one of %s", strings.Join(scs.Names(), ", "))
	}
	sc, err := scs.Get(f.scenario)
	if err != nil {
		return nil, inputErrorf("scenario", "--scenario: %v", err)
	}
	req := &advise.Request{Scenario: sc, RefCount: 1, Accelerators: f.accels, Objective: f.objective, NoSpot: f.noSpot,
		SpotRegions: f.spotRegions, CheckpointGB: f.checkpointGB,
		AllowSlowNetwork: f.allowSlowNetwork, MaxNodes: f.maxNodes, Bench: map[*catalog.GPU]*benchreport.Report{}}
	// The reference GPU and the size of the work.
	refName := "A100-SXM4-40GB"
	req.RefDefault = f.sel.GPU == "" && f.work == ""
	if f.sel.GPU != "" {
		name, count, err := ParseGPU(f.sel.GPU)
		if err != nil {
			return nil, err
		}
		refName = name
		if count > 0 {
			req.RefCount = count
		}
	}
	if f.work != "" {
		var workRef string
		if req.WorkGPUHours, workRef, err = ParseWork(f.work); err != nil {
			return nil, err
		}
		refName = workRef
	}
	gs, err := env.Catalog.LookupGPU(refName)
	if err != nil {
		if f.work != "" {
			return nil, inputErrorf("work", "--work: %v", err)
		}
		return nil, inputErrorf("gpu", "--gpu: %v", err)
	}
	for _, g := range gs {
		if !g.Generic && (g.BF16.Known || g.FP16.Known || g.Estimate != nil) {
			req.Ref = g
			break
		}
	}
	if req.Ref == nil {
		req.Ref = gs[0]
	}
	if f.pattern != "" && f.pattern != "bursty" && f.pattern != "steady" {
		return nil, inputErrorf("pattern", "--pattern %q: want steady or bursty", f.pattern)
	}
	sizes := 0
	for _, set := range []bool{changed("for"), changed("work"), changed("hours-per-month"), f.pattern == "bursty", changed("tokens")} {
		if set {
			sizes++
		}
	}
	if sizes != 1 {
		return nil, inputErrorf("for", "give the size of the work once: --gpu NAME:COUNT --for DURATION, --work N gpu-h@GPU, --model M --tokens N, --hours-per-month H, or --pattern bursty --base B --peak P")
	}
	switch {
	case changed("for"):
		req.WorkGPUHours = f.duration * req.RefCount
		if f.sel.GPU != "" { // the shape and time asked for: the baseline
			if req.Ask, err = advise.NewAsk(env.Catalog, refName, req.RefCount, f.duration, DurationText(f.duration)); err != nil {
				return nil, inputErrorf("gpu", "--gpu: %v", err)
			}
		}
	case changed("hours-per-month"):
		req.HoursPerMonth = f.hoursPerMonth
	case f.pattern == "bursty":
		req.Bursty, req.Base, req.Peak, req.PeakHours = true, f.base, f.peak, f.peakHours
	}
	if changed("horizon") {
		if req.WorkGPUHours > 0 || changed("tokens") {
			return nil, inputErrorf("horizon", "--horizon applies to a steady or bursty load, not to a job (--for or --work)")
		}
		req.HorizonMonths = f.horizon / catalog.HoursPerMonth
	}
	if changed("deadline") {
		req.Deadline = f.deadline
		if req.WorkGPUHours == 0 && !changed("tokens") {
			return nil, inputErrorf("deadline", "--deadline applies to a job (--for or --work), not to a steady load")
		}
	}
	if changed("budget") {
		b := f.budget
		if b.Currency == "" {
			b.Currency = env.Currency // a bare number is in --currency
		}
		if !b.Value.IsPositive() {
			return nil, inputErrorf("budget", "--budget %s: want an amount above zero, such as 60000USD", b)
		}
		conv, err := b.In(env.Currency, env.FX)
		if err != nil {
			return nil, inputErrorf("budget", "--budget: %v", err)
		}
		req.Budget = decimal.NullDecimal{Decimal: conv.Value, Valid: true}
	}
	if req.Model, err = f.modelJob(); err != nil {
		return nil, err
	}
	// Usage shared by every plan.
	u := &req.Usage
	u.DiscountRate = f.discountRate
	u.License = f.license
	u.Spot = cost.DefaultSpot
	u.Spot.Band = f.spotBand
	u.Spot.OutageHours = f.spotOutage
	u.Spot.RestartHours = f.spotRestart // 0: the default
	for _, c := range f.credits {
		if !env.FX.Known(c.Currency) {
			return nil, inputErrorf("credits", "--credits %s%s: currency %s has no exchange rate; add one with --fx %s=USD_PER_UNIT", c.Amount, c.Currency, c.Currency, c.Currency)
		}
		for _, p := range c.Providers {
			if _, err := env.Catalog.LookupProvider(p); err != nil {
				return nil, inputErrorf("credits", "--credits: %v", err)
			}
		}
	}
	u.Credits = slices.Clone(f.credits)
	u.Egress = maps.Clone(f.egress)
	// Selection (the GPU input names the reference, not a filter; a plan
	// is priced in each family's cheapest regions whatever --all-regions says).
	sel := f.sel
	sel.GPU = ""
	sel.AllRegions = false
	if err := sel.Apply(&req.Select, env.Catalog); err != nil {
		return nil, err
	}
	return req, nil
}

// ParseWork reads --work "20000gpu-h@A100": GPU-hours and the reference GPU.
func ParseWork(s string) (float64, string, error) {
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
		return 0, "", inputErrorf("work", "--work %q: want GPU-hours on a reference GPU, e.g. 20000gpu-h@A100", s)
	}
	return v, strings.TrimSpace(ref), nil
}

// DurationText writes --for's hours back as the user likely wrote them: 7d, 36h.
func DurationText(h float64) string {
	if h >= 24 && math.Mod(h, 24) == 0 {
		return strconv.FormatFloat(h/24, 'f', -1, 64) + "d"
	}
	return strconv.FormatFloat(h, 'f', -1, 64) + "h"
}
