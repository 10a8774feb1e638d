package catalog

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v3"
)

// Figure is one spec figure: known with a value and a source, unknown, or
// not supported by the hardware (T4 has no BF16).
type Figure struct {
	Value       float64
	Known       bool
	Unsupported bool
	Source      string
}

// UnmarshalYAML reads a number, or "none" for an unsupported feature.
func (f *Figure) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number or none", n.Line)
	}
	if n.Value == "none" {
		f.Unsupported = true
		return nil
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Errorf("line %d: %q is not a non-negative number or none", n.Line, n.Value)
	}
	f.Value, f.Known = v, true
	return nil
}

// String renders the figure for a table: the value, "n/a" when unsupported, "?" when unknown.
func (f Figure) String() string {
	switch {
	case f.Unsupported:
		return "n/a"
	case !f.Known:
		return "?"
	}
	return strconv.FormatFloat(f.Value, 'f', -1, 64)
}

// GPU is one accelerator model with its datasheet figures (dense, no sparsity).
type GPU struct {
	Name       string   `yaml:"name"`
	Vendor     string   `yaml:"vendor"`
	Family     string   `yaml:"family"`
	FormFactor string   `yaml:"form_factor"`
	Generic    bool     `yaml:"generic"` // the form factor is not known; figures common to all variants
	Aliases    []string `yaml:"aliases"`

	// MemoryGiB is the memory per GPU in GiB: the datasheet's binary size, or
	// what NVML reports (MiB / 1024) where that is the source.
	MemoryGiB Figure `yaml:"memory_gib"`
	// MemoryClassGB is the nominal memory class the vendor markets ("80 GB").
	// Vendors write binary sizes as GB: an "80 GB" H100 or A100 carries
	// 80 GiB (81,920 MiB; 85.9 decimal GB) of HBM. NVML (nvidia-smi
	// memory.total) reports MiB usable by the driver, which is at or slightly
	// below that: 81,920 MiB on an A100 80 GB, 81,559 MiB (79.6 GiB) on an
	// H100 SXM5 80 GB (SkyPilot's Vast rows), 143,771 MiB (140.4 GiB) on an
	// H200 141 GB (shared/data/gpu/h200-2026-11-30). Feeds that copy NVML's
	// figure therefore list 79.6 GiB for an 80 GB card; memory filters compare
	// against the class (Offering.GPUMemoryClassGB) so that such a card still
	// counts as 80 GB.
	MemoryClassGB   Figure `yaml:"memory_class_gb"`
	MemoryBandwidth Figure `yaml:"memory_bandwidth_gbs"`
	FP32            Figure `yaml:"fp32"`
	TF32            Figure `yaml:"tf32"`
	BF16            Figure `yaml:"bf16"`
	FP16            Figure `yaml:"fp16"`
	FP8             Figure `yaml:"fp8"`
	Interconnect    string `yaml:"interconnect"`
	InterconnectBW  Figure `yaml:"interconnect_gbs"`
	TDP             Figure `yaml:"tdp_w"`
	// BoardLink is how eight of these GPUs on one baseboard are linked (nvswitch on HGX A100/H100/H200/B200).
	BoardLink string `yaml:"board_link"`

	Source  string            `yaml:"source"`  // default source id of every figure
	Sources map[string]string `yaml:"sources"` // per-figure overrides, keyed by yaml field name
	Notes   string            `yaml:"notes"`
	// Estimate names a GPU whose figures stand in where this one's
	// throughput is published nowhere (AWS's A10G and T4G), with how far
	// off that may be; nil where the GPU's own figures are the only ones.
	Estimate *GPUEstimate `yaml:"estimate"`
}

// GPUEstimate is how a GPU without published compute figures is
// estimated: From's dense TFLOP/s and memory bandwidth stand in where its
// own are unknown, and its throughput may be off by up to Uncertainty (a
// share of the estimate; 0.5: ±50%). Basis says why From is close, citing
// Source.
type GPUEstimate struct {
	From        string  `yaml:"from"`
	Uncertainty float64 `yaml:"uncertainty"`
	Source      string  `yaml:"source"`
	Basis       string  `yaml:"basis"`
	// FromGPU is From resolved when the table is loaded.
	FromGPU *GPU `yaml:"-"`
}

// checkEstimate validates g's estimate against the table: a known other
// GPU with compute figures, an uncertainty in (0, 1), a source and a basis.
func (c *Catalog) checkEstimate(g *GPU) error {
	e := g.Estimate
	if e == nil {
		return nil
	}
	from := c.GPU(e.From)
	switch {
	case from == nil || from == g:
		return fmt.Errorf("gpus.yaml: %s: estimate.from %q: want another GPU of the table", g.Name, e.From)
	case from.Estimate != nil:
		return fmt.Errorf("gpus.yaml: %s: estimate.from %s is itself estimated: name a GPU with its own figures", g.Name, e.From)
	case !from.BF16.Known && !from.FP16.Known:
		return fmt.Errorf("gpus.yaml: %s: estimate.from %s has no bf16 or fp16 TFLOP/s to stand in", g.Name, e.From)
	case !(e.Uncertainty > 0 && e.Uncertainty < 1):
		return fmt.Errorf("gpus.yaml: %s: estimate.uncertainty %g: want a share above 0 and below 1 (0.5: ±50%%)", g.Name, e.Uncertainty)
	case e.Basis == "":
		return fmt.Errorf("gpus.yaml: %s: estimate needs a basis: why %s is close", g.Name, e.From)
	case c.Source(e.Source) == nil:
		return fmt.Errorf("gpus.yaml: %s: estimate cites unknown source %q", g.Name, e.Source)
	}
	e.FromGPU = from
	return nil
}

// Figures lists the named figures in display order, with their sources resolved.
func (g *GPU) Figures() []NamedFigure {
	list := []NamedFigure{
		{"memory_gib", g.MemoryGiB}, {"memory_class_gb", g.MemoryClassGB}, {"memory_bandwidth_gbs", g.MemoryBandwidth},
		{"fp32_tflops", g.FP32}, {"tf32_tflops", g.TF32}, {"bf16_tflops", g.BF16},
		{"fp16_tflops", g.FP16}, {"fp8_tflops", g.FP8}, {"interconnect_gbs", g.InterconnectBW}, {"tdp_w", g.TDP},
	}
	return list
}

// NamedFigure pairs a figure with its JSON name.
type NamedFigure struct {
	Name   string
	Figure Figure
}

var figureYAMLNames = map[string]string{
	"memory_gib": "memory_gib", "memory_class_gb": "memory_class_gb", "memory_bandwidth_gbs": "memory_bandwidth_gbs", "fp32": "fp32_tflops",
	"tf32": "tf32_tflops", "bf16": "bf16_tflops", "fp16": "fp16_tflops", "fp8": "fp8_tflops",
	"interconnect_gbs": "interconnect_gbs", "tdp_w": "tdp_w",
}

// setSources fills each known figure's source from the per-figure map or the default.
func (g *GPU) setSources() error {
	for k := range g.Sources {
		if _, ok := figureYAMLNames[k]; !ok {
			return fmt.Errorf("gpu %s: sources names unknown figure %q", g.Name, k)
		}
	}
	for yamlName, f := range map[string]*Figure{
		"memory_gib": &g.MemoryGiB, "memory_class_gb": &g.MemoryClassGB, "memory_bandwidth_gbs": &g.MemoryBandwidth, "fp32": &g.FP32, "tf32": &g.TF32,
		"bf16": &g.BF16, "fp16": &g.FP16, "fp8": &g.FP8, "interconnect_gbs": &g.InterconnectBW, "tdp_w": &g.TDP,
	} {
		if !f.Known {
			continue
		}
		src := g.Source
		if s, ok := g.Sources[yamlName]; ok {
			src = s
		}
		if src == "" {
			return fmt.Errorf("gpu %s: figure %s has a value but no source", g.Name, yamlName)
		}
		f.Source = src
	}
	return nil
}

// SourceIDs lists the distinct sources behind the GPU's figures.
func (g *GPU) SourceIDs() []string {
	set := map[string]bool{}
	for _, nf := range g.Figures() {
		if nf.Figure.Source != "" {
			set[nf.Figure.Source] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func (g *GPU) keys() []string {
	ks := []string{NormalizeGPUName(g.Name), NormalizeGPUName(g.Family)}
	for _, a := range g.Aliases {
		ks = append(ks, NormalizeGPUName(a))
	}
	return ks
}

var gpuStopWords = map[string]bool{"nvidia": true, "tesla": true, "amd": true, "instinct": true, "aws": true, "geforce": true, "quadro": true}

// NormalizeGPUName folds the many spellings of a GPU name ("NVIDIA A100-SXM4-80GB",
// "a100_sxm4_80gb") into one lookup key.
func NormalizeGPUName(s string) string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var b strings.Builder
	for _, f := range fields {
		if !gpuStopWords[f] {
			b.WriteString(f)
		}
	}
	return b.String()
}

// GPU returns the GPU with exactly this canonical name, or nil.
func (c *Catalog) GPU(name string) *GPU {
	for _, g := range c.GPUs {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// LookupGPU resolves a user's GPU name to the GPUs it means: a canonical name
// or alias gives that GPU; a generic name (A100-80GB) gives every variant with
// that family and memory; a family (A100) gives the whole family.
func (c *Catalog) LookupGPU(name string) ([]*GPU, error) {
	key := NormalizeGPUName(name)
	hits := c.gpuIndex[key]
	if len(hits) == 0 {
		return nil, &UnknownGPUError{Name: name, Suggestions: c.closestGPUNames(key, 5)}
	}
	if len(hits) == 1 && hits[0].Generic {
		g := hits[0]
		var out []*GPU
		for _, x := range c.GPUs {
			if x.Family == g.Family && x.MemoryGiB.Known && g.MemoryGiB.Known && x.MemoryGiB.Value == g.MemoryGiB.Value {
				out = append(out, x)
			}
		}
		return out, nil
	}
	return hits, nil
}

// UnknownGPUError is returned for a GPU name nobody knows; it carries the closest known names.
type UnknownGPUError struct {
	Name        string
	Suggestions []string
}

func (e *UnknownGPUError) Error() string {
	return fmt.Sprintf("unknown GPU %q; closest known names: %s (gpuscout gpus lists all)", e.Name, strings.Join(e.Suggestions, ", "))
}

func (c *Catalog) closestGPUNames(key string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	seen := map[string]bool{}
	for _, g := range c.GPUs {
		for _, nm := range append([]string{g.Name, g.Family}, g.Aliases...) {
			if seen[nm] {
				continue
			}
			seen[nm] = true
			d := levenshtein.ComputeDistance(key, NormalizeGPUName(nm))
			if strings.Contains(NormalizeGPUName(nm), key) && key != "" {
				d = 0
			}
			cs = append(cs, cand{nm, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, x := range cs {
		if len(out) == n {
			break
		}
		out = append(out, x.name)
	}
	return out
}

// ResolveFeedGPU maps a price feed's accelerator name to one GPU, using the
// per-GPU memory the feed reports (0 if unknown) and form-factor hints taken
// from the instance type (sxm, pcie, nvl, nvlink). When the form factor stays
// ambiguous, the family's generic entry for that memory size is used, so no
// figure is claimed that the variant might not have.
func (c *Catalog) ResolveFeedGPU(name string, memGiB float64, hint string) (*GPU, error) {
	cands := c.gpuIndex[NormalizeGPUName(name)]
	if len(cands) == 0 {
		return nil, &UnknownGPUError{Name: name, Suggestions: c.closestGPUNames(NormalizeGPUName(name), 3)}
	}
	if len(cands) == 1 && !cands[0].Generic {
		return cands[0], nil
	}
	// A name that names one generic entry still widens to its variants, so hints can pick one.
	if len(cands) == 1 && cands[0].Generic {
		cands, _ = c.LookupGPU(cands[0].Name)
	}
	if memGiB > 0 {
		var byMem []*GPU
		for _, g := range cands {
			if g.MemoryGiB.Known && math.Abs(g.MemoryGiB.Value-memGiB)/g.MemoryGiB.Value <= 0.08 {
				byMem = append(byMem, g)
			}
		}
		if len(byMem) == 0 {
			return nil, fmt.Errorf("GPU %q with %.1f GiB matches no %s variant in the spec table", name, memGiB, name)
		}
		cands = byMem
	}
	if ff := formFactorHint(hint); ff != "" && len(cands) > 1 {
		var byFF []*GPU
		for _, g := range cands {
			if strings.HasPrefix(strings.ToLower(g.FormFactor), ff) {
				byFF = append(byFF, g)
			}
		}
		if len(byFF) == 1 {
			return byFF[0], nil
		}
		if len(byFF) > 1 {
			cands = byFF
		}
	}
	if len(cands) == 1 {
		return cands[0], nil
	}
	var generic []*GPU
	for _, g := range cands {
		if g.Generic {
			generic = append(generic, g)
		}
	}
	if len(generic) == 1 {
		return generic[0], nil
	}
	names := make([]string, len(cands))
	for i, g := range cands {
		names[i] = g.Name
	}
	return nil, fmt.Errorf("GPU %q (%.1f GiB, hint %q) is ambiguous: %s", name, memGiB, hint, strings.Join(names, ", "))
}

// formFactorHint reads a form factor from an instance-type name or a curated hint.
func formFactorHint(s string) string {
	s = strings.ToLower(s)
	switch {
	case strings.Contains(s, "nvlink"), strings.Contains(s, "sxm"):
		return "sxm"
	case strings.Contains(s, "pcie"):
		return "pcie"
	case strings.Contains(s, "nvl"):
		return "nvl"
	}
	return ""
}

// Conservative returns g with each figure it lacks taken from its variants,
// conservatively: the lowest value among the variants that LookupGPU(g.Name)
// gives, and only where every variant has the figure. A figure filled so
// says so in its Source ("lowest of A100-SXM4-80GB, A100-PCIe-80GB"). A
// non-generic GPU, or one with nothing to fill, is returned as is; g itself
// is never changed.
func (c *Catalog) Conservative(g *GPU) *GPU {
	if g == nil || !g.Generic {
		return g
	}
	vs, err := c.LookupGPU(g.Name)
	if err != nil {
		return g
	}
	var variants []*GPU
	var names []string
	for _, v := range vs {
		if v != g && !v.Generic {
			variants = append(variants, v)
			names = append(names, v.Name)
		}
	}
	if len(variants) == 0 {
		return g
	}
	out := *g
	changed := false
	pick := func(get func(*GPU) Figure) (Figure, bool) {
		low := Figure{}
		for _, v := range variants {
			f := get(v)
			if !f.Known {
				return Figure{}, false
			}
			if !low.Known || f.Value < low.Value {
				low = f
			}
		}
		low.Source = fmt.Sprintf("lowest of %s (%s)", strings.Join(names, ", "), low.Source)
		return low, true
	}
	for _, f := range []struct {
		dst *Figure
		get func(*GPU) Figure
	}{
		{&out.MemoryBandwidth, func(x *GPU) Figure { return x.MemoryBandwidth }},
		{&out.FP32, func(x *GPU) Figure { return x.FP32 }},
		{&out.TF32, func(x *GPU) Figure { return x.TF32 }},
		{&out.BF16, func(x *GPU) Figure { return x.BF16 }},
		{&out.FP16, func(x *GPU) Figure { return x.FP16 }},
		{&out.FP8, func(x *GPU) Figure { return x.FP8 }},
		{&out.MemoryGiB, func(x *GPU) Figure { return x.MemoryGiB }},
		{&out.MemoryClassGB, func(x *GPU) Figure { return x.MemoryClassGB }},
	} {
		if f.dst.Known || f.dst.Unsupported {
			continue
		}
		if v, ok := pick(f.get); ok {
			*f.dst, changed = v, true
		}
	}
	if !changed {
		return g
	}
	return &out
}
