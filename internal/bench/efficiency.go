package bench

import (
	"fmt"
	"math"

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
