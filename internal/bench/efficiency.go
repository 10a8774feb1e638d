package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// lookupSpec finds the catalog GPU a driver's name means; nil unless
// exactly one matches.
func lookupSpec(c *catalog.Catalog, name string) *catalog.GPU {
	if c == nil || name == "" {
		return nil
	}
	gs, err := c.LookupGPU(name)
	if err != nil || len(gs) != 1 {
		return nil
	}
	return gs[0]
}

// migFullSMs are the streaming multiprocessors of whole GPUs that MIG can
// slice, by catalog name, from NVIDIA's architecture whitepapers (A100:
// 108 SMs; H100 SXM5: 132, PCIe: 114; A30: 56): a slice's share of them
// scales the datasheet's throughput. A GPU not listed is not rated.
var migFullSMs = map[string]int{
	"A100-SXM4-40GB": 108, "A100-PCIe-40GB": 108, "A100-40GB": 108, "A100-SXM4-80GB": 108, "A100-PCIe-80GB": 108, "A100-80GB": 108,
	"A30":            56,
	"H100-SXM5-80GB": 132, "H100-PCIe-80GB": 114, "H100-NVL-94GB": 132,
	"H800-SXM5-80GB": 132, "H800-PCIe-80GB": 114,
	"H200-SXM-141GB": 132, "GH200-96GB": 132, "GH200-144GB": 132,
}

// MIGSlice describes a MIG instance: the catalog GPU it is a slice of, its
// profile ("1g.18gb") and its share of that GPU's SMs (0 when unknown).
type MIGSlice struct {
	Of      *catalog.GPU
	Profile string
	SMs     int
	FullSMs int
}

// migSlice recognises a MIG instance by its name ("NVIDIA H200 MIG
// 1g.18gb", as the driver names one) and finds its GPU in the catalog;
// nil for a whole GPU.
func migSlice(c *catalog.Catalog, info gpu.Info) *MIGSlice {
	gpuName, profile, ok := strings.Cut(info.Name, " MIG ")
	if !ok || info.IsCPU {
		return nil
	}
	s := &MIGSlice{Of: lookupSpec(c, gpuName), Profile: profile, SMs: info.Multiprocs}
	if s.Of != nil {
		s.FullSMs = migFullSMs[s.Of.Name]
	}
	return s
}

// spec is the datasheet a slice is rated against: its GPU's throughput
// scaled by its share of the SMs, memory and link bandwidth unknown (a
// slice's share of the memory system is not its share of the SMs); nil
// when the GPU or its SM count is unknown, so that nothing is rated.
func (s *MIGSlice) spec() *catalog.GPU {
	if s == nil || s.Of == nil || s.FullSMs <= 0 || s.SMs <= 0 || s.SMs > s.FullSMs {
		return nil
	}
	g := *s.Of
	g.Name = s.Of.Name + " MIG " + s.Profile
	share := float64(s.SMs) / float64(s.FullSMs)
	for _, f := range []*catalog.Figure{&g.FP32, &g.TF32, &g.BF16, &g.FP16, &g.FP8} {
		f.Value *= share
	}
	g.MemoryBandwidth, g.InterconnectBW = catalog.Figure{}, catalog.Figure{}
	return &g
}

// note says what a slice's figures are rated against, for the detail of
// those with a datasheet figure on a whole GPU.
func (s *MIGSlice) note(name string) string {
	of := "a GPU the catalog does not know"
	if s.Of != nil {
		of = s.Of.Name
	}
	what := fmt.Sprintf("MIG instance %s of %s", s.Profile, of)
	switch {
	case strings.HasPrefix(name, "gemm_") && s.spec() != nil:
		return fmt.Sprintf("%s: efficiency against %d of its %d SMs' share of the datasheet", what, s.SMs, s.FullSMs)
	case strings.HasPrefix(name, "gemm_"):
		return what + ": its share of the GPU's SMs is not known, so no efficiency (not comparable with the whole GPU's datasheet)"
	case name == "hbm_copy":
		return what + ": its share of the memory bandwidth is not known, so no efficiency (not comparable with the whole GPU's datasheet)"
	}
	return ""
}

// Datasheet is the spec figure a measurement compares with, decided once in
// benchreport (which the server and advise --bench check uploads with).
func Datasheet(g *catalog.GPU, name string) catalog.Figure { return benchreport.Datasheet(g, name) }

// efficiency is the measured value ÷ the datasheet figure (benchreport's);
// nil when either is unknown.
func efficiency(g *catalog.GPU, m benchreport.Measurement) *float64 {
	return benchreport.Efficiency(g, m)
}

// GPUEntry describes a GPU for a report, its datasheet name resolved in the
// catalog (a workload's report names the GPU PyTorch ran on this way).
func GPUEntry(info gpu.Info, c *catalog.Catalog) benchreport.GPUEntry {
	return gpuEntry(info, lookupSpec(c, info.Name))
}

// gpuEntry describes a GPU for the report.
func gpuEntry(info gpu.Info, spec *catalog.GPU) benchreport.GPUEntry {
	e := benchreport.GPUEntry{Index: info.Index, Name: info.Name, MemoryGiB: gib(info.MemoryBytes), Driver: info.Driver, UUID: info.UUID,
		CUDA: info.Runtime, ComputeCap: info.ComputeCap, Multiprocs: info.Multiprocs, Virtualization: info.Virtualized,
		MIG: info.MIG, ECC: info.ECC, PowerLimitW: info.PowerLimitW, MaxSMClockMHz: info.MaxClockMHz}
	if info.PCIeGen > 0 && info.PCIeWidth > 0 {
		e.PCIe = fmt.Sprintf("Gen%d x%d", info.PCIeGen, info.PCIeWidth)
	}
	if info.NUMANode >= 0 && !info.IsCPU {
		n := info.NUMANode
		e.NUMANode = &n
	}
	if spec != nil {
		name := spec.Name
		e.CanonicalGPU = &name
	}
	return e
}

// gib is bytes in GiB to one decimal.
func gib(b int64) float64 { return math.Round(float64(b)/(1<<30)*10) / 10 }
