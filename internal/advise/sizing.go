package advise

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/models"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Bounds of sizing by the model, documented in README (advise).
const (
	MaxTokens      = 1e15             // --tokens
	MaxContext     = 10 << 20         // --context, tokens
	MaxConcurrency = 100000           // --concurrency
	MaxLoRARank    = 4096             // --lora-rank
	bytesPerGB     = 1e9              // memory is compared in decimal GB, as GPUs are sold
	mfuSource      = "scenarios.yaml" // where the MFU comes from, printed with the work
)

// ModelJob sizes the work by a model (--model, --method, --tokens,
// --context, --concurrency, --lora-rank, --weights).
type ModelJob struct {
	models.Job
	Tokens float64 // training or inference tokens; 0: the size is given otherwise

	workNote string // how the tokens became GPU-hours (Defaults)
}

// DefaultMethod is the method a scenario implies when --method is not
// given: inference for the inference scenarios, full training otherwise.
func DefaultMethod(sc *Scenario) string {
	if strings.HasPrefix(sc.Name, "inference") {
		return models.MethodInference
	}
	return models.MethodFull
}

// defaultsModel fills the model job's unset fields and, where tokens are
// given and the work is not, turns them into GPU-hours on the reference:
// FLOPs (6·N·tokens training, 2·N·tokens inference, N active parameters)
// over the scenario's MFU × the reference's dense TFLOP/s at the scenario's
// precision (measured where a bench report gives it).
func (r *Request) defaultsModel() {
	mj := r.Model
	if mj == nil {
		return
	}
	if mj.Method == "" && r.Scenario != nil {
		mj.Method = DefaultMethod(r.Scenario)
	}
	if mj.Context == 0 {
		mj.Context = models.DefaultContext
	}
	if mj.Concurrency == 0 {
		mj.Concurrency = 1
	}
	if (mj.Method == models.MethodLoRA || mj.Method == models.MethodQLoRA) && mj.LoRARank == 0 {
		mj.LoRARank = models.DefaultLoRARank
	}
	if mj.Method == models.MethodInference && mj.Weights == "" {
		mj.Weights = "bf16"
	}
	if mj.Method != models.MethodInference && mj.Recompute == "" {
		mj.Recompute = models.RecomputeFull
	}
	if mj.Tokens > 0 && r.WorkGPUHours == 0 && r.Scenario != nil && r.Ref != nil && r.Scenario.MFU > 0 {
		tf, how := refTFLOPs(r)
		if tf > 0 {
			flops, formula := models.TrainingFLOPs(mj.Model, mj.Tokens), "6"
			switch mj.Method {
			case models.MethodInference:
				flops, formula = models.InferenceFLOPs(mj.Model, mj.Tokens), "2"
			case models.MethodLoRA, models.MethodQLoRA:
				flops, formula = models.AdapterTrainingFLOPs(mj.Model, mj.Tokens), "4" // no weight gradients for frozen weights
			}
			factor, why := models.TimeFactor(mj.Job)
			r.WorkGPUHours = flops / (r.Scenario.MFU * tf * 1e12) / 3600 * factor
			if why != "" {
				why = ", " + why
			}
			mj.workNote = fmt.Sprintf("work: %s·N·tokens = %s × %s active params × %g tokens = %.3g FLOPs at %.0f%% MFU (%s, %s) of %s%s = %s",
				formula, formula, models.FormatParams(mj.Model.ActiveParameters), mj.Tokens, flops, 100*r.Scenario.MFU, r.Scenario.Name, mfuSource, how, why, fmtGPUh(r.WorkGPUHours, r.Ref))
		}
	}
}

// refTFLOPs is the reference GPU's dense TFLOP/s at the scenario's
// precision: measured where a bench report gives it, else the datasheet's.
func refTFLOPs(r *Request) (float64, string) {
	f, dtype, from := computeFigure(r.Ref, r.Scenario.Precision)
	if b := r.Bench[r.Ref]; b != nil {
		if v, ok := b.GEMMTFLOPS[dtype]; ok && v > 0 {
			return v, fmt.Sprintf("%s %s %g TF (measured, %s)", r.Ref.Name, dtype, v, b.Path)
		}
	}
	switch {
	case from != nil:
		return f.Value, fmt.Sprintf("%s %s %g TF (%s's, standing in: estimated ±%.0f%%)", r.Ref.Name, dtype, f.Value, from.Name, 100*r.Ref.Estimate.Uncertainty)
	case f.Known:
		return f.Value, fmt.Sprintf("%s %s %g TF (datasheet)", r.Ref.Name, dtype, f.Value)
	}
	return 0, ""
}

// validateModel checks the model job against the documented bounds.
func (r *Request) validateModel() error {
	mj := r.Model
	if mj == nil {
		return nil
	}
	if mj.Model == nil {
		return errors.New("--model: no model given")
	}
	inf := strings.HasPrefix(r.Scenario.Name, "inference")
	switch {
	case mj.Method == models.MethodInference && !inf:
		return fmt.Errorf("--method inference with --scenario %s: use inference-online or inference-batch, or --method full, lora or qlora", r.Scenario.Name)
	case mj.Method != models.MethodInference && inf && mj.Method != "":
		return fmt.Errorf("--method %s with --scenario %s: serving takes --method inference", mj.Method, r.Scenario.Name)
	}
	if _, err := models.Estimate(mj.Job); err != nil {
		return fmt.Errorf("--method/--weights: %v", err)
	}
	if mj.Context < 1 || mj.Context > MaxContext {
		return fmt.Errorf("--context %d: want 1 to %d tokens", mj.Context, MaxContext)
	}
	if max := mj.Model.MaxContext; max > 0 && mj.Context > max {
		return fmt.Errorf("--context %d: %s takes at most %d tokens (max_position_embeddings, %s)", mj.Context, mj.Model.Name, max, mj.Model.Source)
	}
	if mj.Concurrency < 1 || mj.Concurrency > MaxConcurrency {
		return fmt.Errorf("--concurrency %d: want 1 to %d", mj.Concurrency, MaxConcurrency)
	}
	if mj.LoRARank < 0 || mj.LoRARank > MaxLoRARank {
		return fmt.Errorf("--lora-rank %d: want 1 to %d", mj.LoRARank, MaxLoRARank)
	}
	if mj.Recompute != "" && mj.Method == models.MethodInference {
		return fmt.Errorf("--recompute applies to training (--method full, lora or qlora), not serving")
	}
	if mj.LoRARank > 0 && mj.Method != models.MethodLoRA && mj.Method != models.MethodQLoRA {
		return fmt.Errorf("--lora-rank applies to --method lora or qlora, not %s", mj.Method)
	}
	if mj.Tokens != 0 {
		if !(mj.Tokens >= 1) || mj.Tokens > MaxTokens {
			return fmt.Errorf("--tokens %g: want 1 to %g", mj.Tokens, float64(MaxTokens))
		}
		if r.Scenario.MFU <= 0 {
			return fmt.Errorf("--tokens: scenario %s has no model-FLOPs utilisation (mfu in scenarios.yaml); give the work with --work", r.Scenario.Name)
		}
		if tf, _ := refTFLOPs(r); tf == 0 {
			return fmt.Errorf("--tokens: the reference %s has no sourced %s TFLOP/s; name another with --gpu, or measure it and pass --bench", r.Ref.Name, r.Scenario.Precision)
		}
	}
	return nil
}

// memoryFit checks offerings against the model's memory; nil without a model.
type memoryFit struct {
	mem  *models.Memory
	what string // "LoRA fine-tuning of llama-3-70b"
}

func newMemoryFit(req *Request) *memoryFit {
	if req.Model == nil {
		return nil
	}
	mem, err := models.Estimate(req.Model.Job)
	if err != nil { // Validate has rejected it already
		return nil
	}
	what := map[string]string{models.MethodFull: "full training", models.MethodLoRA: "LoRA fine-tuning", models.MethodQLoRA: "QLoRA fine-tuning", models.MethodInference: "serving"}[mem.Job.Method]
	return &memoryFit{mem: mem, what: what + " of " + req.Model.Model.Name}
}

// nodes is the fewest instances of o that hold the model, or why none do.
func (f *memoryFit) nodes(o *catalog.Offering, maxNodes int) (int, string) {
	if f == nil {
		return 1, ""
	}
	need := f.mem.Total()
	gb := o.GPUMemoryClassGB()
	if gb == 0 {
		return 0, fmt.Sprintf("memory per GPU is not sourced; %s needs %s", f.what, fmtGB(need))
	}
	perGPU, count := gb*bytesPerGB, o.GPUCount
	if count < 1 { // a slice of a GPU holds it whole or not at all
		perGPU, count = perGPU*count, 1
	}
	g, ok := f.mem.MinGPUs(perGPU)
	node := count * gb
	if !ok {
		return 0, fmt.Sprintf("needs %s per GPU for activations alone (%s); %s has %s per GPU", fmtGB(f.mem.Replicated()*(1+f.mem.Headroom)), f.what, o.InstanceType, fmtGB(perGPU))
	}
	if !f.mem.AcrossNodes {
		if float64(g) <= count {
			return 1, ""
		}
		// A replica too big for one instance spans several, a pipeline
		// stage each (serving.go), where a slice of a GPU is not the unit.
		n := int(math.Ceil(float64(g)/count - 1e-9))
		if limit := min(maxNodes, MaxServingStages); o.GPUCount < 1 || n > limit {
			return 0, fmt.Sprintf("needs %s for %s (%s): ≥ %d × %.0f GB GPUs, %d × %s (%s×%.0f GB = %.0f GB each) as pipeline stages, more than the %d a replica may span (%s)",
				fmtGB(need), f.what, f.formula(), g, gb, n, o.InstanceType, fmtCount(count), gb, node, limit, stagesLimitWhy(maxNodes))
		}
		return n, ""
	}
	n := int(math.Ceil(float64(g)/count - 1e-9))
	if n > maxNodes {
		return 0, fmt.Sprintf("needs %s for %s (%s): %d GPUs of %.0f GB, %d × %s (%s×%.0f GB = %.0f GB per node), more than --max-nodes %d",
			fmtGB(need), f.what, f.formula(), g, gb, n, o.InstanceType, fmtCount(count), gb, node, maxNodes)
	}
	return n, ""
}

// MaxServingStages is the most instances one served replica spans as
// pipeline stages: every token crosses each hop in turn and any instance
// down stops the replica, so deployments keep pipelines short (vLLM's
// multi-node serving is tensor parallel within a node, pipeline parallel
// over a few); 4 is an assumption, stated where it binds.
const MaxServingStages = 4

func stagesLimitWhy(maxNodes int) string {
	if maxNodes < MaxServingStages {
		return "--max-nodes"
	}
	return fmt.Sprintf("gpuscout plans pipelines of at most %d instances, an assumption: each token crosses every hop and any instance down stops the replica", MaxServingStages)
}

// fitsOneGPU says whether a job of total bytes fits one GPU of gb GB: a
// LoRA/QLoRA job that does replicates its frozen weights (data parallel),
// one that does not shards them (FSDP) and all-gathers them each step
// (comm.go). The one place that decides it.
func fitsOneGPU(total, gb float64) bool { return gb > 0 && total <= gb*bytesPerGB }

// serving says whether the job is a served model (one replica within an
// instance or, too big for one, over several as pipeline stages).
func (f *memoryFit) serving() bool { return f != nil && !f.mem.AcrossNodes }

// formula is the estimate's terms in one line.
func (f *memoryFit) formula() string {
	var parts []string
	for _, p := range f.mem.Parts {
		parts = append(parts, p.Formula)
	}
	return strings.Join(parts, "; ") + fmt.Sprintf("; +%.0f%% headroom", 100*f.mem.Headroom)
}

// explain adds the memory line to a plan: needed per GPU on its GPUs vs available.
func (f *memoryFit) explain(req *Request, p *Plan) {
	if f == nil {
		return
	}
	if n := req.workNote(); n != "" {
		p.Explanation = append(p.Explanation, n)
	}
	o := p.Offering
	gpus := max(1, int(math.Round(o.GPUCount)))
	spread := "tensor parallel within the instance"
	adapters := f.mem.Job.Method == models.MethodLoRA || f.mem.Job.Method == models.MethodQLoRA
	if adapters && fitsOneGPU(f.mem.Total(), o.GPUMemoryClassGB()) {
		gpus = 1 // the frozen weights are replicated (DDP), as comm.go moves only the adapters' gradients
		spread = "replicated on every GPU (it fits one: data parallel, only the adapters' gradients move)"
	} else if f.mem.AcrossNodes {
		gpus *= p.Instances
		spread = "FSDP/ZeRO-3 over all its GPUs"
	} else if p.Stages > 1 {
		gpus *= p.Stages
		spread = fmt.Sprintf("a replica spans %d instances, pipeline parallel (a stage each), tensor parallel within each", p.Stages)
	}
	line := fmt.Sprintf("memory: %s needs %s in all (%s); %s: %s per GPU of %.0f GB",
		f.what, fmtGB(f.mem.Total()), f.formula(), spread, fmtGB(f.mem.PerGPU(gpus)), o.GPUMemoryClassGB())
	if g, ok := f.mem.MinGPUs(o.GPUMemoryClassGB() * bytesPerGB); ok && f.mem.AcrossNodes && g > max(1, int(math.Round(o.GPUCount))) {
		line += fmt.Sprintf("; the memory alone needs ≥ %d GPUs of %.0f GB, so ≥ %d instances of %s×%.0f GB = %.0f GB",
			g, o.GPUMemoryClassGB(), int(math.Ceil(float64(g)/math.Max(o.GPUCount, 1)-1e-9)), fmtCount(o.GPUCount), o.GPUMemoryClassGB(), o.GPUCount*o.GPUMemoryClassGB())
	}
	p.Explanation = append(p.Explanation, line)
	for _, n := range f.mem.Notes {
		p.Explanation = append(p.Explanation, "memory: "+n)
	}
}

// workNote says how --tokens became the work, or "".
func (r *Request) workNote() string {
	if r.Model == nil {
		return ""
	}
	return r.Model.workNote
}

// ModelInputs is the model sizing for the JSON inputs: the model, the job and
// the memory estimate with its parts.
func ModelInputs(req *Request) map[string]any {
	if req.Model == nil {
		return nil
	}
	mj := req.Model
	out := map[string]any{"model": mj.Model.Name, "parameters": mj.Model.Parameters, "active_parameters": mj.Model.ActiveParameters,
		"method": mj.Method, "context": mj.Context, "concurrency": mj.Concurrency, "source": mj.Model.Source}
	if mj.LoRARank > 0 {
		out["lora_rank"] = mj.LoRARank
	}
	if mj.Weights != "" {
		out["weights_precision"] = mj.Weights
	}
	if mj.Recompute != "" {
		out["recompute"] = mj.Recompute
	}
	if mj.Tokens > 0 {
		out["tokens"] = mj.Tokens
		out["mfu"] = req.Scenario.MFU
		out["work_note"] = mj.workNote
	}
	if mem, err := models.Estimate(mj.Job); err == nil {
		out["memory"] = map[string]any{"total_bytes": math.Round(mem.Total()), "sharded_bytes": mem.Sharded(), "per_gpu_bytes": mem.Replicated(),
			"headroom": mem.Headroom, "parts": mem.Parts, "spread": mem.Spread, "across_nodes": mem.AcrossNodes, "notes": mem.Notes}
	}
	return out
}

func fmtGB(b float64) string {
	gb := b / bytesPerGB
	if gb >= 100 {
		return money.Grouped(decimal.NewFromFloat(gb), 0) + " GB"
	}
	return fmt.Sprintf("%.1f GB", gb)
}
