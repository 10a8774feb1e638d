package advise

import (
	"fmt"
	"math"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
)

// speedModel gives a GPU's speed relative to the reference GPU for a scenario.
type speedModel struct {
	sc    *Scenario
	ref   *catalog.GPU
	bench map[*catalog.GPU]*benchreport.Report
	// cat resolves a generic GPU's variants (linkGBs: NVSwitch means the
	// SXM module); nil in tests that need no variants.
	cat *catalog.Catalog
}

// figures returns compute (TFLOP/s at the scenario's precision) and memory
// bandwidth, measured where a report has them, with how each was obtained.
func (m *speedModel) figures(g *catalog.GPU) (compute, bw float64, cNote, bNote string, ok bool) {
	f, dtype := precisionFigure(g, m.sc.Precision)
	if f.Known {
		compute, cNote = f.Value, fmt.Sprintf("%s %g TF (datasheet, %s)", dtype, f.Value, f.Source)
	}
	if g.MemoryBandwidth.Known {
		bw, bNote = g.MemoryBandwidth.Value, fmt.Sprintf("%g GB/s (datasheet)", g.MemoryBandwidth.Value)
	}
	if from := m.estimatedFrom(g); from != nil {
		if compute == 0 {
			f, dtype, _ := computeFigure(g, m.sc.Precision)
			compute, cNote = f.Value, fmt.Sprintf("%s %g TF (%s's, standing in: estimated)", dtype, f.Value, from.Name)
		}
		if bw == 0 && from.MemoryBandwidth.Known {
			bw, bNote = from.MemoryBandwidth.Value, fmt.Sprintf("%g GB/s (%s's, standing in: estimated)", from.MemoryBandwidth.Value, from.Name)
		}
	}
	if r := m.bench[g]; r != nil {
		if v, okc := r.GEMMTFLOPS[dtype]; okc {
			compute, cNote = v, fmt.Sprintf("%s %g TF (measured, %s)", dtype, v, r.Path)
		}
		if r.MemoryBandwidthGBs > 0 {
			bw, bNote = r.MemoryBandwidthGBs, fmt.Sprintf("%g GB/s (measured, %s)", r.MemoryBandwidthGBs, r.Path)
		}
	}
	return compute, bw, cNote, bNote, compute > 0 && (bw > 0 || m.sc.BandwidthWeight == 0)
}

// speed is g's throughput relative to the reference GPU for the scenario:
// a measured scenario throughput ratio where both have one, else
// (compute/ref)^(1−β)·(bandwidth/ref)^β.
func (m *speedModel) speed(g *catalog.GPU) (float64, string, error) {
	if rg, rr := m.bench[g], m.bench[m.ref]; rg != nil && rr != nil {
		a, okA := rg.ScenarioThroughput[m.sc.Name]
		b, okB := rr.ScenarioThroughput[m.sc.Name]
		if okA && okB {
			s := a / b
			return s, fmt.Sprintf("%s is %.2f× %s for %s (measured %s throughput %g vs %g)", g.Name, s, m.ref.Name, m.sc.Name, m.sc.Name, a, b), nil
		}
	}
	c, b, cn, bn, ok := m.figures(g)
	if !ok {
		return 0, "", fmt.Errorf("throughput unknown for %s: no sourced %s TFLOP/s or memory bandwidth; measure it and pass --bench", g.Name, m.sc.Precision)
	}
	rc, rb, _, _, rok := m.figures(m.ref)
	if !rok {
		return 0, "", fmt.Errorf("throughput unknown for the reference %s", m.ref.Name)
	}
	beta := m.sc.BandwidthWeight
	s := math.Pow(c/rc, 1-beta)
	if beta > 0 {
		s *= math.Pow(b/rb, beta)
	}
	how := fmt.Sprintf("%s is %.2f× %s for %s: (%s vs %g)^%.2g × (%s vs %g GB/s)^%.2g", g.Name, s, m.ref.Name, m.sc.Name, cn, rc, 1-beta, bn, rb, beta)
	return s, how, nil
}

// estimatedFrom is the GPU whose figures stand in for g's (gpus.yaml
// estimate), or nil: g has its own compute figure at the scenario's
// precision and its own bandwidth, or no estimate, or a bench report.
func (m *speedModel) estimatedFrom(g *catalog.GPU) *catalog.GPU {
	if g.Estimate == nil || m.bench[g] != nil {
		return nil
	}
	if f, _ := precisionFigure(g, m.sc.Precision); f.Known && (g.MemoryBandwidth.Known || m.sc.BandwidthWeight == 0) {
		return nil
	}
	return g.Estimate.FromGPU
}

// computeFigure is a GPU's dense TFLOP/s at a precision: its own datasheet
// figure, else, for a GPU with a gpus.yaml estimate, its sibling's (from is
// then that sibling). The one place the estimate stands in for compute: the
// speed model and the reference's work (sizing.go) both read it.
func computeFigure(g *catalog.GPU, precision string) (f catalog.Figure, dtype string, from *catalog.GPU) {
	f, dtype = precisionFigure(g, precision)
	if f.Known || g.Estimate == nil || g.Estimate.FromGPU == nil {
		return f, dtype, nil
	}
	f, dtype = precisionFigure(g.Estimate.FromGPU, precision)
	if !f.Known {
		return f, dtype, nil
	}
	return f, dtype, g.Estimate.FromGPU
}
