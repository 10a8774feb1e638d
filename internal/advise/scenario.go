// Package advise is gpuscout's selection framework: a user describes the
// work (a scenario, its size, deadline, budget and load pattern) and advise
// ranks plans (offering × pricing model, and mixes for bursty loads) by the
// cost and time of the whole job, using relative GPU throughput from the spec
// table or measured benchmark reports, the cost engine and the spot
// simulator, and explains each plan and each exclusion with its numbers.
package advise

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

//go:embed scenarios.yaml
var scenariosYAML []byte

// Scenario is a kind of work with its defaults.
type Scenario struct {
	Name               string   `yaml:"name"`
	Description        string   `yaml:"description"`
	MinGPUMemoryGiB    float64  `yaml:"min_gpu_memory_gib"`
	Precision          string   `yaml:"precision"`
	BandwidthWeight    float64  `yaml:"bandwidth_weight"`
	CommHeavy          bool     `yaml:"comm_heavy"`
	Spot               bool     `yaml:"spot"`
	PreferGPUsAtLeast  int      `yaml:"prefer_gpus_at_least"`
	PreferAccelerators []string `yaml:"prefer_accelerators"`
	// RequiresBF16: the work is done in bf16 and a GPU without it is left
	// out (LLM training); elsewhere such a GPU runs fp16, said per plan.
	RequiresBF16 bool `yaml:"requires_bf16"`
	// The communication model's per-scenario parameters (comm.go): the
	// model whose gradients are all-reduced, the work per GPU per step,
	// the sustained fraction of the datasheet rate and the share of compute
	// that hides communication. Modelling parameters, not measurements.
	ReferenceParameters float64 `yaml:"reference_parameters"`
	SamplesPerGPUStep   float64 `yaml:"samples_per_gpu_step"`
	FlopsPerSample      float64 `yaml:"flops_per_sample"` // 0: 6 × reference_parameters
	// StepMFU is the utilisation of a step's compute in the communication
	// model where the scenario has no mfu (which would also turn --tokens
	// into work: CV models are not sized by tokens).
	StepMFU float64 `yaml:"step_mfu"`
	MFU     float64 `yaml:"mfu"` // sustained model-FLOPs utilisation: --tokens to GPU-hours, and compute time per step; 0: none
	Overlap float64 `yaml:"overlap"`
}

// Scenarios is the scenario table and the scaling parameters.
type Scenarios struct {
	List []Scenario `yaml:"scenarios"`
	Comm CommParams `yaml:"communication"`
}

// LoadScenarios parses the embedded table.
func LoadScenarios() (*Scenarios, error) {
	dec := yaml.NewDecoder(bytes.NewReader(scenariosYAML))
	dec.KnownFields(true)
	var s Scenarios
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scenarios.yaml: %w", err)
	}
	for _, sc := range s.List {
		if _, ok := precisionOrder[sc.Precision]; !ok {
			return nil, fmt.Errorf("scenarios.yaml: %s: precision %q; want bf16, fp16, fp8, tf32 or fp32", sc.Name, sc.Precision)
		}
		if sc.MFU < 0 || sc.MFU > 1 {
			return nil, fmt.Errorf("scenarios.yaml: %s: mfu must be within 0..1", sc.Name)
		}
		if sc.BandwidthWeight < 0 || sc.BandwidthWeight > 1 {
			return nil, fmt.Errorf("scenarios.yaml: %s: bandwidth_weight must be within 0..1", sc.Name)
		}
	}
	for _, sc := range s.List {
		if !sc.CommHeavy {
			continue
		}
		switch {
		case !(sc.ReferenceParameters > 0), !(sc.SamplesPerGPUStep > 0), sc.FlopsPerSample < 0:
			return nil, fmt.Errorf("scenarios.yaml: %s: comm_heavy needs reference_parameters and samples_per_gpu_step above 0 (and flops_per_sample ≥ 0)", sc.Name)
		case !(sc.MFU > 0 || sc.StepMFU > 0) || sc.MFU > 1 || sc.StepMFU > 1, sc.Overlap < 0 || sc.Overlap > 1:
			return nil, fmt.Errorf("scenarios.yaml: %s: comm_heavy needs mfu or step_mfu within (0, 1], and overlap within [0, 1]", sc.Name)
		}
	}
	if c := s.Comm; !(c.AssumedLinkGBs > 0) || !(c.AssumedNetworkGbps > 0) || !(c.ReferenceNetworkGbps > 0) || !(c.BucketBytes > 0) {
		return nil, fmt.Errorf("scenarios.yaml: communication needs assumed_link_gbs, assumed_network_gbps, reference_network_gbps and bucket_bytes above 0")
	}
	f, err := loadFabrics(fabricsYAML)
	if err != nil {
		return nil, err
	}
	s.Comm.fabrics = f
	return &s, nil
}

// Names lists the scenario names.
func (s *Scenarios) Names() []string {
	out := make([]string, len(s.List))
	for i, sc := range s.List {
		out[i] = sc.Name
	}
	return out
}

// Get returns a scenario by name.
func (s *Scenarios) Get(name string) (*Scenario, error) {
	for i := range s.List {
		if s.List[i].Name == name {
			return &s.List[i], nil
		}
	}
	return nil, fmt.Errorf("unknown scenario %q; want one of %s", name, strings.Join(s.Names(), ", "))
}

// precisionOrder lists, per precision, the figures to use in turn when the
// hardware lacks one (V100 and T4 have no BF16: their FP16 tensor rate stands in).
var precisionOrder = map[string][]string{
	"bf16": {"bf16", "fp16"},
	"fp16": {"fp16", "bf16"},
	"fp8":  {"fp8", "bf16", "fp16"},
	"tf32": {"tf32", "fp32"},
	"fp32": {"fp32"},
}

// precisionFigure returns the dense TFLOP/s figure a GPU has at a precision
// and the dtype it stands for; an unknown figure is never skipped over.
func precisionFigure(g *catalog.GPU, precision string) (catalog.Figure, string) {
	figs := map[string]catalog.Figure{"bf16": g.BF16, "fp16": g.FP16, "fp8": g.FP8, "tf32": g.TF32, "fp32": g.FP32}
	for _, name := range precisionOrder[precision] {
		f := figs[name]
		if f.Known || !f.Unsupported {
			return f, name
		}
	}
	return catalog.Figure{}, precision
}

// noBF16Exclusion is why a GPU without bf16 gets no plan for a scenario
// that requires it.
func noBF16Exclusion(sc *Scenario, g *catalog.GPU) string {
	return fmt.Sprintf("%s has no bf16: %s trains in bf16, and fp16 instead needs loss scaling and can overflow on weights pre-trained in bf16; FlashAttention-2 also needs an Ampere or newer GPU", g.Name, sc.Name)
}

// fp16Stand says how a GPU without bf16 runs a bf16 scenario (fp16 at its
// fp16 rate), or "" where it has bf16 or the scenario is not bf16.
func fp16Stand(sc *Scenario, weights string, g *catalog.GPU) string {
	bf16 := sc.Precision == "bf16" || weights == "bf16"
	if !bf16 || !g.BF16.Unsupported {
		return ""
	}
	if weights == "bf16" {
		return fmt.Sprintf("%s has no bf16: the bf16 weights are served in fp16 (vLLM and TGI cast them), at the fp16 rate; a model whose activations exceed fp16's range (65,504) can overflow: check its outputs, or serve --weights fp16 or int8", g.Name)
	}
	return fmt.Sprintf("%s has no bf16: %s runs in fp16 mixed precision with loss scaling, at the fp16 rate", g.Name, sc.Name)
}
