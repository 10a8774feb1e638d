// Package models is gpuscout's table of ML models (parameters, layers, hidden
// size, attention and KV heads, head size, vocabulary, context; each from the
// model's published config or paper, cited) and the arithmetic that sizes a
// job by its model: the memory a training or serving job needs per GPU (ZeRO,
// LoRA, QLoRA, KV cache), how it spreads over GPUs, and the FLOPs of a number
// of tokens. Of gpuscout it imports only money (number formatting).
package models

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed models.yaml
var modelsYAML []byte

// Architectures of the table.
const (
	ArchLlama   = "llama"   // decoder with RMSNorm, SwiGLU MLP, grouped-query attention (Llama, Qwen2, Mistral, Mixtral)
	ArchMLAMoE  = "mla-moe" // DeepSeek-V3: multi-head latent attention and mixture of experts
	ArchEncoder = "encoder" // BERT, ViT
	ArchCNN     = "cnn"     // ResNet
	ArchSize    = "size"    // a bare size: only the parameter count is known
)

// Model is one model's shape. A zero count is unknown (no source gives it).
type Model struct {
	Name             string   `yaml:"name" json:"name"`
	Aliases          []string `yaml:"aliases" json:"aliases"`
	Arch             string   `yaml:"arch" json:"arch"`
	Parameters       float64  `yaml:"parameters" json:"parameters"`               // total
	ActiveParameters float64  `yaml:"active_parameters" json:"active_parameters"` // per token (MoE); = Parameters for dense models
	ParametersSource string   `yaml:"parameters_source" json:"parameters_source"`
	Layers           int      `yaml:"layers" json:"layers"`
	Hidden           int      `yaml:"hidden" json:"hidden"`
	Intermediate     int      `yaml:"intermediate" json:"intermediate"`
	Heads            int      `yaml:"heads" json:"heads"`
	KVHeads          int      `yaml:"kv_heads" json:"kv_heads"`
	HeadDim          int      `yaml:"head_dim" json:"head_dim"`
	KVElements       int      `yaml:"kv_elements" json:"kv_elements_per_token_layer"` // cached per token per layer; 0: 2·kv_heads·head_dim
	Vocab            int      `yaml:"vocab" json:"vocab"`
	MaxContext       int      `yaml:"max_context" json:"max_context"`
	Experts          int      `yaml:"experts" json:"experts"`
	ExpertsPerToken  int      `yaml:"experts_per_token" json:"experts_per_token"`
	QKVBias          bool     `yaml:"qkv_bias" json:"qkv_bias"`
	TiedEmbeddings   bool     `yaml:"tied_embeddings" json:"tied_embeddings"`
	Source           string   `yaml:"source" json:"source"`
	AsOf             string   `yaml:"as_of" json:"as_of"`
	Notes            string   `yaml:"notes" json:"notes,omitempty"`
	// ShapeFrom names the table model a bare size borrows its layers,
	// hidden size and vocabulary from (the nearest dense one by
	// parameters); "" for a table model.
	ShapeFrom string `yaml:"-" json:"shape_from,omitempty"`
}

// borrowShape gives a bare size the layers, hidden size and vocabulary of
// the table's dense decoder nearest to it in log(parameters), so that its
// FSDP messages (a layer), activations and logits are sized; the model
// says where they come from.
func (t *Table) borrowShape(m *Model) {
	var best *Model
	d := math.Inf(1)
	for _, x := range t.Models {
		if x.Layers == 0 || x.Hidden == 0 || x.Experts > 0 {
			continue
		}
		if e := math.Abs(math.Log(x.Parameters / m.Parameters)); e < d {
			best, d = x, e
		}
	}
	if best == nil {
		return
	}
	m.Layers, m.Hidden, m.Vocab, m.ShapeFrom = best.Layers, best.Hidden, best.Vocab, best.Name
}

// Table is the model table.
type Table struct {
	Models []*Model `yaml:"models"`
}

// Load parses the embedded table and fills each llama-style model's
// parameter counts from its config.
func Load() (*Table, error) {
	dec := yaml.NewDecoder(bytes.NewReader(modelsYAML))
	dec.KnownFields(true)
	var t Table
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("models.yaml: %w", err)
	}
	for _, m := range t.Models {
		if m.Source == "" || m.AsOf == "" {
			return nil, fmt.Errorf("models.yaml: %s: every model needs a source and an as-of date", m.Name)
		}
		if m.Arch == ArchLlama && m.Parameters == 0 {
			m.Parameters, m.ActiveParameters = parameterCount(m)
			m.ParametersSource = "derived from config.json (embeddings, attention, MLP, norms)"
		}
		if m.ActiveParameters == 0 {
			m.ActiveParameters = m.Parameters
		}
		if !(m.Parameters > 0) {
			return nil, fmt.Errorf("models.yaml: %s: no parameter count", m.Name)
		}
	}
	return &t, nil
}

// parameterCount derives a llama-style decoder's parameter count from its
// config: embeddings V·h (twice unless tied), per layer the q and o
// projections h·h each, k and v h·kv·d each (with biases h + 2·kv·d where
// qkv_bias), the SwiGLU MLP 3·h·i (per expert, plus an h·E router), two
// RMSNorms 2·h; a final norm h. Active counts experts_per_token experts.
func parameterCount(m *Model) (total, active float64) {
	h, i, v := float64(m.Hidden), float64(m.Intermediate), float64(m.Vocab)
	kvDim := float64(m.KVHeads * m.HeadDim)
	qDim := float64(m.Heads * m.HeadDim)
	emb := v * h
	if !m.TiedEmbeddings {
		emb *= 2
	}
	attn := h*qDim + qDim*h + 2*h*kvDim
	if m.QKVBias {
		attn += qDim + 2*kvDim
	}
	mlp := 3 * h * i
	experts, perTok, router := 1.0, 1.0, 0.0
	if m.Experts > 0 {
		experts, perTok, router = float64(m.Experts), float64(m.ExpertsPerToken), h*float64(m.Experts)
	}
	layers := float64(m.Layers)
	base := emb + layers*(attn+router+2*h) + h
	return base + layers*experts*mlp, base + layers*perTok*mlp
}

// Lookup finds a model by name or alias (case-insensitive), or reads a bare
// size: "70B", "8b", "1.5e9", "340M" become a model with only its parameter
// count. The error lists the known names.
func (t *Table) Lookup(s string) (*Model, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	for _, m := range t.Models {
		if key == m.Name {
			return m, nil
		}
		for _, a := range m.Aliases {
			if key == strings.ToLower(a) {
				return m, nil
			}
		}
	}
	if n, ok := parseSize(key); ok {
		if !(n >= MinParameters && n <= MaxParameters) {
			return nil, fmt.Errorf("model size %q: want %g to %g parameters", s, float64(MinParameters), float64(MaxParameters))
		}
		m := &Model{Name: s, Arch: ArchSize, Parameters: n, ActiveParameters: n, ParametersSource: "given by the user", Source: "a bare size given by the user"}
		t.borrowShape(m)
		return m, nil
	}
	return nil, fmt.Errorf("unknown model %q: want one of %s, or a size such as 70B or 1.5e9", s, strings.Join(t.Names(), ", "))
}

// Bounds of a bare size.
const (
	MinParameters = 1e6
	MaxParameters = 1e14
)

func parseSize(s string) (float64, bool) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "t"):
		mult, s = 1e12, strings.TrimSuffix(s, "t")
	case strings.HasSuffix(s, "b"):
		mult, s = 1e9, strings.TrimSuffix(s, "b")
	case strings.HasSuffix(s, "m"):
		mult, s = 1e6, strings.TrimSuffix(s, "m")
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v * mult, true
}

// Names lists the model names, sorted.
func (t *Table) Names() []string {
	out := make([]string, 0, len(t.Models))
	for _, m := range t.Models {
		out = append(out, m.Name)
	}
	sort.Strings(out)
	return out
}

// KVBytesPerToken is the KV cache one token takes over all layers at
// bytesPerElement: layers · (2·kv_heads·head_dim, or the MLA latent) ·
// bytes. ok is false where the config does not give it.
func (m *Model) KVBytesPerToken(bytesPerElement float64) (float64, bool) {
	per := m.KVElements
	if per == 0 {
		per = 2 * m.KVHeads * m.HeadDim
	}
	if m.Layers == 0 || per == 0 {
		return 0, false
	}
	return float64(m.Layers) * float64(per) * bytesPerElement, true
}

// LoRAParameters is the adapter count of rank r on the four attention
// projections (q, k, v, o) of every layer: each adapter A (r×in) and B
// (out×r) has r·(in+out) parameters, so per layer r·(2h + 2(h+kv·d) + 2h)
// with the q and o projections h→h and k and v h→kv·d. ok is false where
// the config does not give the shapes.
func (m *Model) LoRAParameters(r int) (float64, bool) {
	if m.Layers == 0 || m.Hidden == 0 || m.Arch == ArchMLAMoE { // MLA's low-rank projections are not the four h→h maps
		return 0, false
	}
	h := float64(m.Hidden)
	kv := float64(m.KVHeads * m.HeadDim)
	q := float64(m.Heads * m.HeadDim)
	if kv == 0 {
		return 0, false
	}
	if q == 0 {
		q = h
	}
	perLayer := (h + q) + 2*(h+kv) + (q + h)
	return float64(r) * perLayer * float64(m.Layers), true
}
