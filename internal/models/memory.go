package models

import (
	"fmt"
	"math"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Methods of a job.
const (
	MethodFull      = "full"      // full fine-tuning or pre-training, mixed-precision Adam
	MethodLoRA      = "lora"      // frozen 16-bit weights and LoRA adapters
	MethodQLoRA     = "qlora"     // frozen 4-bit weights and LoRA adapters
	MethodInference = "inference" // serving: weights and KV cache
)

// Methods lists the methods in the order of the help text.
var Methods = []string{MethodFull, MethodLoRA, MethodQLoRA, MethodInference}

// Memory modelling constants; each is printed with the estimate.
const (
	// AdamBytesPerParam is mixed-precision Adam's state per trained
	// parameter: 2 (bf16 weights) + 2 (bf16 gradients) + 12 (fp32 master
	// weights, momentum, variance): "2Ψ + 2Ψ + KΨ with K = 12", Rajbhandari
	// et al., ZeRO (SC '20), §3.1.
	AdamBytesPerParam = 16
	// NF4BytesPerParam is QLoRA's 4-bit NormalFloat weight (0.5 byte) plus
	// its quantisation constants after double quantisation, 0.127 bit a
	// weight (8-bit constants per block of 64, their own 32-bit constants per
	// block of 256: 8/64 + 32/(64·256)); without it 0.5 bit: Dettmers et al.,
	// QLoRA (NeurIPS '23), §3, which uses double quantisation throughout.
	NF4BytesPerParam = 0.5 + 0.127/8
	// QLoRATimeFactor is QLoRA's time over LoRA's for the same job, the
	// dequantisation of the 4-bit weights in every pass: 2.79 h against
	// 1.85 h fine-tuning Llama 2 7B on an A100 (Raschka, "Practical Tips for
	// Finetuning LLMs Using LoRA", 2023; the article words it "39%
	// increased runtime", the times give 51%: the times are used).
	QLoRATimeFactor = 2.79 / 1.85
	// LogitsBytes is the logits' bytes per token per vocabulary entry in
	// training: the bf16 output of the LM head (2) and the fp32 copy the
	// cross-entropy loss is computed on (4), as Hugging Face transformers'
	// causal-LM heads do (logits = logits.float()).
	LogitsBytes = 2 + 4
	// KVBytes is the KV cache's element size: bf16.
	KVBytes = 2
	// Headroom is added to every estimate for the CUDA context, allocator
	// fragmentation and communication buffers: an assumption, not a measurement.
	Headroom = 0.10
	// LayerActivationBytes is the working set of one transformer layer in
	// bytes per token per hidden unit: 34·s·b·h bytes, Korthikanti et al.,
	// "Reducing Activation Recomputation in Large Transformer Models" (2022),
	// §4.1, without the 5·a·s²·b attention term that flash attention avoids.
	LayerActivationBytes = 34
	// DefaultLoRARank is the adapter rank when none is given.
	DefaultLoRARank = 16
	// DefaultContext is the sequence length when none is given.
	DefaultContext = 4096
)

// WeightBytes is the bytes per weight of each serving precision.
var WeightBytes = map[string]float64{"bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5}

// Job is a model and what is done with it.
type Job struct {
	Model       *Model
	Method      string
	Context     int    // tokens per sequence (training) or per request (inference)
	Concurrency int    // inference: requests served at once; training: sequences per GPU per step
	LoRARank    int    // lora and qlora
	Weights     string // inference: bf16, fp16, fp8, int8 or int4
	// Recompute is activation recomputation in training: RecomputeFull
	// (the default: each layer's input kept, the layer recomputed in the
	// backward pass) or RecomputeNone (every layer's activations kept).
	Recompute string
}

// Activation recomputation in training (Job.Recompute).
const (
	RecomputeFull = "full"
	RecomputeNone = "none"
)

// TimeFactor is what the method and the recomputation do to a training
// job's time, against the FLOPs at the scenario's MFU, and why; 1 and ""
// where nothing. The MFU figures are taken to include full recomputation
// (its extra forward pass, 2·N a token, costs time the model FLOPs do not
// count), so without it a step needs base/(base+2) of the time (base 6 for
// full training, 4 for adapters); QLoRA multiplies by QLoRATimeFactor.
func TimeFactor(j Job) (float64, string) {
	f, why := 1.0, []string{}
	if j.Method == MethodQLoRA {
		f *= QLoRATimeFactor
		why = append(why, fmt.Sprintf("× %.2f for QLoRA's dequantisation (2.79 h vs LoRA's 1.85 h, Llama 2 7B on an A100, raschka-lora-tips)", QLoRATimeFactor))
	}
	if j.Recompute == RecomputeNone && j.Method != MethodInference {
		base := 6.0
		if j.Method == MethodLoRA || j.Method == MethodQLoRA {
			base = 4
		}
		f *= base / (base + 2)
		why = append(why, fmt.Sprintf("× %g/%g without activation recompute (the MFU is taken to include full recompute's extra forward pass)", base, base+2))
	}
	return f, strings.Join(why, "; ")
}

// Part is one term of an estimate.
type Part struct {
	Name    string  `json:"name"`
	Bytes   float64 `json:"bytes"`
	Formula string  `json:"formula"`
	Sharded bool    `json:"sharded"` // divided among the GPUs that hold the model
}

// Memory is what a job needs: the parts that shard over the GPUs holding the
// model, the parts every GPU holds, and a headroom on top.
type Memory struct {
	Job      Job     `json:"-"`
	Parts    []Part  `json:"parts"`
	Headroom float64 `json:"headroom"`
	// AcrossNodes: the state may be sharded across instances (FSDP/ZeRO-3
	// training); serving keeps each replica within one instance (tensor
	// parallel within its GPU links).
	AcrossNodes bool     `json:"across_nodes"`
	Spread      string   `json:"spread"`
	Notes       []string `json:"notes,omitempty"`
}

// Sharded is the bytes divided among the GPUs that hold the model.
func (m *Memory) Sharded() float64 {
	s := 0.0
	for _, p := range m.Parts {
		if p.Sharded {
			s += p.Bytes
		}
	}
	return s
}

// FrozenWeightsPart names the part of a LoRA/QLoRA estimate that holds
// the frozen weights (their bytes: Part).
const FrozenWeightsPart = "frozen weights"

// Part is the bytes of the named part of the estimate; 0 where it has none.
func (m *Memory) Part(name string) float64 {
	for _, p := range m.Parts {
		if p.Name == name {
			return p.Bytes
		}
	}
	return 0
}

// Replicated is the bytes every GPU holds whatever their number.
func (m *Memory) Replicated() float64 {
	s := 0.0
	for _, p := range m.Parts {
		if !p.Sharded {
			s += p.Bytes
		}
	}
	return s
}

// PerGPU is the bytes each of n GPUs needs: (sharded/n + replicated)·(1+headroom).
func (m *Memory) PerGPU(n int) float64 {
	if n < 1 {
		n = 1
	}
	return (m.Sharded()/float64(n) + m.Replicated()) * (1 + m.Headroom)
}

// Total is the bytes the whole job needs on one GPU: PerGPU(1).
func (m *Memory) Total() float64 { return m.PerGPU(1) }

// MinGPUs is the smallest number of GPUs of gpuBytes each that holds the
// job; ok is false when no number does (the replicated part alone does not fit).
func (m *Memory) MinGPUs(gpuBytes float64) (n int, ok bool) {
	room := gpuBytes/(1+m.Headroom) - m.Replicated()
	if !(room > 0) {
		return 0, false
	}
	n = int(math.Ceil(m.Sharded()/room - 1e-9))
	return max(n, 1), true
}

// Estimate works out the memory a job needs. The error names the field
// (method, weights precision) and what is allowed.
func Estimate(j Job) (*Memory, error) {
	md := j.Model
	if md == nil {
		return nil, fmt.Errorf("no model")
	}
	if j.Context <= 0 {
		j.Context = DefaultContext
	}
	if j.Concurrency <= 0 {
		j.Concurrency = 1
	}
	n := md.Parameters
	m := &Memory{Job: j, Headroom: Headroom}
	if md.ShapeFrom != "" {
		m.Notes = append(m.Notes, fmt.Sprintf("%s is a bare size: its layers (%d), hidden size (%d) and vocabulary (%d) are %s's, the nearest dense model in the table; name a model for its own", md.Name, md.Layers, md.Hidden, md.Vocab, md.ShapeFrom))
	}
	gb := func(b float64) string { return fmt.Sprintf("%.1f GB", b/1e9) }
	switch j.Method {
	case MethodFull:
		m.Parts = append(m.Parts, Part{"weights, gradients and Adam state", AdamBytesPerParam * n,
			fmt.Sprintf("16 B/param (2 bf16 weights + 2 grads + 12 fp32 master, m, v; ZeRO §3) × %s = %s", fmtParams(n), gb(AdamBytesPerParam*n)), true})
	case MethodLoRA, MethodQLoRA:
		if j.LoRARank <= 0 {
			j.LoRARank = DefaultLoRARank
			m.Job.LoRARank = j.LoRARank
		}
		per, what := 2.0, "2 B/param (bf16, frozen)"
		if j.Method == MethodQLoRA {
			per, what = NF4BytesPerParam, "0.516 B/param (4-bit NF4 + 0.127 bit of double-quantised constants; QLoRA §3)"
		}
		m.Parts = append(m.Parts, Part{FrozenWeightsPart, per * n, fmt.Sprintf("%s × %s = %s", what, fmtParams(n), gb(per*n)), true})
		a, ok := md.LoRAParameters(j.LoRARank)
		if !ok {
			m.Notes = append(m.Notes, fmt.Sprintf("adapters not counted: %s's attention shapes are not in the table", md.Name))
		} else {
			m.Parts = append(m.Parts, Part{"LoRA adapters with Adam state", AdamBytesPerParam * a,
				fmt.Sprintf("rank %d on q, k, v, o of %d layers: %s params × 16 B = %s", j.LoRARank, md.Layers, fmtParams(a), gb(AdamBytesPerParam*a)), true})
		}
	case MethodInference:
		w := j.Weights
		if w == "" {
			w = "bf16"
			m.Job.Weights = w
		}
		wb, ok := WeightBytes[w]
		if !ok {
			return nil, fmt.Errorf("weights precision %q: want bf16, fp16, fp8, int8 or int4", j.Weights)
		}
		m.Parts = append(m.Parts, Part{"weights", wb * n, fmt.Sprintf("%g B/param (%s) × %s = %s", wb, w, fmtParams(n), gb(wb*n)), true})
		kv, ok := md.KVBytesPerToken(KVBytes)
		if !ok {
			m.Notes = append(m.Notes, fmt.Sprintf("KV cache not counted: %s's layers and KV heads are not in the table", md.Name))
		} else {
			tok := float64(j.Context) * float64(j.Concurrency)
			m.Parts = append(m.Parts, Part{"KV cache", kv * tok, fmt.Sprintf("%s B/token (%s) × %d context × %d concurrent = %s",
				fmtInt(kv), kvFormula(md), j.Context, j.Concurrency, gb(kv*tok)), true})
		}
		m.Spread = "tensor parallel over the GPUs of one instance (its GPU links); each replica within one instance"
		return m, nil
	default:
		return nil, fmt.Errorf("method %q: want %s", j.Method, strings.Join(Methods, ", "))
	}
	// Training: activations per GPU, with activation recompute (each
	// layer's bf16 input kept, one layer's working set at a time) or
	// without (every layer's working set kept).
	if j.Recompute == "" {
		j.Recompute = RecomputeFull
		m.Job.Recompute = j.Recompute
	}
	if j.Recompute != RecomputeFull && j.Recompute != RecomputeNone {
		return nil, fmt.Errorf("recompute %q: want %s or %s", j.Recompute, RecomputeFull, RecomputeNone)
	}
	if md.Layers > 0 && md.Hidden > 0 {
		s, h, l, b := float64(j.Context), float64(md.Hidden), float64(md.Layers), float64(j.Concurrency)
		if j.Recompute == RecomputeFull {
			act := (2*s*h*l + LayerActivationBytes*s*h) * b
			m.Parts = append(m.Parts, Part{"activations (recomputed)", act,
				fmt.Sprintf("(2·seq·hidden·layers + 34·seq·hidden) B × micro-batch = (2·%d·%d·%d + 34·%d·%d) × %d = %s per GPU", j.Context, md.Hidden, md.Layers, j.Context, md.Hidden, j.Concurrency, gb(act)), false})
		} else {
			act := LayerActivationBytes * s * h * l * b
			m.Parts = append(m.Parts, Part{"activations (kept, no recompute)", act,
				fmt.Sprintf("34·seq·hidden·layers B × micro-batch = 34·%d·%d·%d × %d = %s per GPU", j.Context, md.Hidden, md.Layers, j.Concurrency, gb(act)), false})
		}
	} else {
		m.Notes = append(m.Notes, fmt.Sprintf("activations not counted: %s has no layers and hidden size in the table", md.Name))
	}
	if md.Vocab > 0 {
		lg := LogitsBytes * float64(j.Context) * float64(md.Vocab) * float64(j.Concurrency)
		m.Parts = append(m.Parts, Part{"logits", lg,
			fmt.Sprintf("6 B (bf16 + the fp32 copy the loss reads) × seq × vocab × micro-batch = 6 × %d × %d × %d = %s per GPU", j.Context, md.Vocab, j.Concurrency, gb(lg)), false})
	} else {
		m.Notes = append(m.Notes, fmt.Sprintf("logits not counted: %s has no vocabulary size in the table", md.Name))
	}
	m.AcrossNodes = true
	m.Spread = "FSDP/ZeRO-3: the sharded state divides over every GPU of the plan, across instances"
	return m, nil
}

func kvFormula(m *Model) string {
	if m.KVElements > 0 {
		return fmt.Sprintf("%d layers × %d latent elements × 2 B", m.Layers, m.KVElements)
	}
	return fmt.Sprintf("2 × %d layers × %d KV heads × %d head dim × 2 B", m.Layers, m.KVHeads, m.HeadDim)
}

// TrainingFLOPs is 6·N·tokens (2N forward, 4N backward) with N the active
// parameters (Kaplan et al. 2020, §2.1).
func TrainingFLOPs(m *Model, tokens float64) float64 { return 6 * m.ActiveParameters * tokens }

// AdapterTrainingFLOPs is 4·N·tokens for LoRA/QLoRA: the forward pass (2N)
// and the backward pass through the frozen weights for the activations'
// gradients (2N), without the weight gradients (2N) a full fine-tune computes;
// the adapters' own FLOPs are negligible at ranks of 8–64.
func AdapterTrainingFLOPs(m *Model, tokens float64) float64 { return 4 * m.ActiveParameters * tokens }

// InferenceFLOPs is 2·N per token with N the active parameters.
func InferenceFLOPs(m *Model, tokens float64) float64 { return 2 * m.ActiveParameters * tokens }

func fmtParams(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", n/1e6)
	}
	return fmt.Sprintf("%.0f", n)
}

// FormatParams writes a parameter count as 70.55B or 340.0M.
func FormatParams(n float64) string { return fmtParams(n) }

func fmtInt(v float64) string { return money.Grouped(decimal.NewFromFloat(v), 0) }
