package benchreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// MaxOverDatasheet bounds a measured figure by its GPU's datasheet figure:
// more than twice the datasheet's dense peak is no measurement (a unit
// mistake, a sparse figure, a wrong GPU or an edited file) and is refused
// wherever a report is read: the server's upload, advise --bench, the
// API's stored reports, bench compare. Above 1× (100%) it is read with a
// warning: a boost clock or NVLink SHARP can pass the datasheet a little.
const MaxOverDatasheet = 2.0

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

// Efficiency is the measured value ÷ the datasheet figure, to four
// significant figures; nil when either is unknown, or for a peer copy over
// PCIe (not measured against NVLink's speed).
func Efficiency(g *catalog.GPU, m Measurement) *float64 {
	f := Datasheet(g, m.Name)
	if !m.OK() || !f.Known || f.Value <= 0 {
		return nil
	}
	if m.Name == "p2p" && m.Link != "NVLink" {
		return nil
	}
	e := *m.Value / f.Value
	if e <= 0 || math.IsInf(e, 0) || math.IsNaN(e) {
		return F(0)
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(e)))
	return F(math.Round(e*p) / p)
}

// SpecOf is the catalog GPU a device of the document is: a measurement's
// "gpuN" (or "gpuA>gpuB": A), "node" the first GPU's, when the GPUs are one
// model. It is the entry's canonical_gpu, else its driver name when that
// names one catalog GPU; nil when unknown (the host CPU, a GPU the catalog
// does not know).
func (d *Document) SpecOf(c *catalog.Catalog, device string) *catalog.GPU {
	if c == nil || len(d.GPUs) == 0 {
		return nil
	}
	var entry *GPUEntry
	switch {
	case device == DeviceNode:
		for _, g := range d.GPUs[1:] {
			if g.Name != d.GPUs[0].Name {
				return nil
			}
		}
		entry = &d.GPUs[0]
	case strings.HasPrefix(device, "gpu"):
		from, _, _ := strings.Cut(device, ">")
		for i := range d.GPUs {
			if DeviceName(d.GPUs[i].Index) == from {
				entry = &d.GPUs[i]
				break
			}
		}
	}
	if entry == nil {
		return nil
	}
	if entry.CanonicalGPU != nil {
		return c.GPU(*entry.CanonicalGPU)
	}
	if gs, err := c.LookupGPU(entry.Name); err == nil && len(gs) == 1 {
		return gs[0]
	}
	return nil
}

// CheckDatasheet checks every measured figure of the document against its
// GPU's datasheet: more than MaxOverDatasheet times it is an error naming
// the measurement; above 1× a warning. Figures without a datasheet figure
// (latency, the CPU's, a GPU the catalog does not know) are not checked.
func (d *Document) CheckDatasheet(c *catalog.Catalog) (warnings []string, err error) {
	for i, m := range d.Measurements {
		g := d.SpecOf(c, m.Device)
		if g == nil || !m.OK() || (m.Name == "p2p" && m.Link != "NVLink") {
			continue
		}
		w, err := overSheet(fmt.Sprintf("measurements[%d] (%s on %s)", i, m.Name, m.Device), g, m.Name, *m.Value, m.Unit)
		if err != nil {
			return nil, err
		}
		if w != "" {
			warnings = append(warnings, w)
		}
	}
	return warnings, nil
}

// CheckDatasheet checks the report's figures against g's datasheet as
// Document.CheckDatasheet does: GEMM per type, memory bandwidth, NCCL bus
// bandwidth. A scenario throughput has no datasheet figure.
func (r *Report) CheckDatasheet(g *catalog.GPU) (warnings []string, err error) {
	check := func(field, name string, v float64, unit string) error {
		if v == 0 {
			return nil
		}
		w, err := overSheet(field, g, name, v, unit)
		if w != "" {
			warnings = append(warnings, w)
		}
		return err
	}
	for _, dt := range gemmDTypes {
		if v, ok := r.GEMMTFLOPS[dt]; ok {
			if err := check("gemm_tflops."+dt, "gemm_"+dt, v, "TFLOP/s"); err != nil {
				return nil, err
			}
		}
	}
	if err := check("memory_bandwidth_gbs", "hbm_copy", r.MemoryBandwidthGBs, "GB/s"); err != nil {
		return nil, err
	}
	if err := check("nccl_busbw_gbs", "nccl_allreduce_busbw", r.NCCLBusBWGBs, "GB/s"); err != nil {
		return nil, err
	}
	return warnings, nil
}

// overSheet compares one figure with its datasheet figure: an error above
// MaxOverDatasheet times it, a warning above 1×.
func overSheet(what string, g *catalog.GPU, name string, v float64, unit string) (string, error) {
	f := Datasheet(g, name)
	if !f.Known || f.Value <= 0 {
		return "", nil
	}
	ratio := v / f.Value
	switch {
	case ratio > MaxOverDatasheet:
		return "", fmt.Errorf("%s = %g %s is %.3g× the %s datasheet's %g %s; want at most %g× it (a unit mistake, a sparse figure, the wrong GPU or an edited report?)",
			what, v, unit, ratio, g.Name, f.Value, unit, MaxOverDatasheet)
	case ratio > 1:
		return fmt.Sprintf("%s = %g %s is %.0f%% of the %s datasheet's %g %s: above the datasheet peak; check the measurement", what, v, unit, 100*ratio, g.Name, f.Value, unit), nil
	}
	return "", nil
}
