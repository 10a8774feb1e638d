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

// Datasheet returns the spec figure a measurement compares with: the dense
// TFLOP/s of its GEMM type (burst and sustained too), the memory bandwidth for
// hbm_copy, the NVLink speed in one direction (half the datasheet's
// bidirectional figure, as advise takes it) for p2p and
// nccl_allreduce_busbw; unknown otherwise.
func Datasheet(g *catalog.GPU, name string) catalog.Figure {
	if g == nil {
		return catalog.Figure{}
	}
	switch name {
	case "hbm_copy":
		return g.MemoryBandwidth
	case "p2p", "nccl_allreduce_busbw":
		f := g.InterconnectBW
		if !strings.HasPrefix(g.Interconnect, "NVLink") || !f.Known {
			return catalog.Figure{}
		}
		f.Value /= 2
		return f
	}
	dt, ok := strings.CutPrefix(name, "gemm_")
	if !ok {
		return catalog.Figure{}
	}
	dt = strings.TrimSuffix(strings.TrimSuffix(dt, "_sustained"), "_burst")
	switch dt {
	case "fp32":
		return g.FP32
	case "tf32":
		return g.TF32
	case "bf16":
		return g.BF16
	case "fp16":
		return g.FP16
	case "fp8":
		return g.FP8
	}
	return catalog.Figure{}
}

// efficiency is the measured value ÷ the datasheet figure; nil when either
// is unknown.
func efficiency(g *catalog.GPU, m benchreport.Measurement) *float64 {
	f := Datasheet(g, m.Name)
	if !m.OK() || !f.Known || f.Value <= 0 {
		return nil
	}
	if m.Name == "p2p" && m.Link != "NVLink" { // a PCIe path is not measured against NVLink's speed
		return nil
	}
	// Four significant figures: the ratio of two measured-to-a-percent numbers.
	e := *m.Value / f.Value
	if e <= 0 {
		return benchreport.F(0)
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(e)))
	return benchreport.F(math.Round(e*p) / p)
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
