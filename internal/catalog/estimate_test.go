package catalog

import (
	"fmt"
	"strings"
	"testing"
)

// The embedded table's estimates resolve to GPUs with their own figures;
// a bad estimate is refused naming the GPU and the field.
func TestGPUEstimates(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	a10g := c.GPU("A10G")
	if a10g == nil || a10g.Estimate == nil || a10g.Estimate.FromGPU != c.GPU("A10") || a10g.Estimate.Uncertainty != 0.5 {
		t.Fatalf("A10G estimate %+v; want A10's figures, ±50%%", a10g.Estimate)
	}
	if a10g.BF16.Known || a10g.FP16.Known {
		t.Error("A10G has its own tensor figure now: is the estimate still needed?")
	}
	a10 := c.GPU("A10")
	for _, tc := range []struct {
		e    GPUEstimate
		want string
	}{
		{GPUEstimate{From: "NoSuchGPU", Uncertainty: 0.5, Source: "baseten-a10g", Basis: "x"}, `estimate.from "NoSuchGPU"`},
		{GPUEstimate{From: "A10G", Uncertainty: 0.5, Source: "baseten-a10g", Basis: "x"}, "estimate.from A10G is itself estimated"},
		{GPUEstimate{From: "A10", Uncertainty: 0, Source: "baseten-a10g", Basis: "x"}, "estimate.uncertainty 0"},
		{GPUEstimate{From: "A10", Uncertainty: 1, Source: "baseten-a10g", Basis: "x"}, "estimate.uncertainty 1"},
		{GPUEstimate{From: "A10", Uncertainty: 0.5, Source: "baseten-a10g"}, "estimate needs a basis"},
		{GPUEstimate{From: "A10", Uncertainty: 0.5, Source: "nowhere", Basis: "x"}, `unknown source "nowhere"`},
		{GPUEstimate{From: "K80", Uncertainty: 0.5, Source: "baseten-a10g", Basis: "x"}, "has no bf16 or fp16"},
	} {
		g := &GPU{Name: "Test", Estimate: &tc.e}
		if tc.e.From == "K80" && (c.GPU("K80") == nil || c.GPU("K80").FP16.Known || c.GPU("K80").BF16.Known) {
			continue // the table has its figures now
		}
		err := c.checkEstimate(g)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Test") {
			t.Errorf("%+v: %v; want an error naming Test and %q", tc.e, err, tc.want)
		}
	}
	if err := c.checkEstimate(&GPU{Name: "Test", Estimate: &GPUEstimate{From: "A10", Uncertainty: 0.2, Source: "baseten-a10g", Basis: "x"}}); err != nil || a10 == nil {
		t.Errorf("a good estimate refused: %v", err)
	}
}

// The gpus command's table (GPUTable, the GPU table alone) is the full
// catalog's: the same GPUs, figures, sources and estimates.
func TestGPUTableIsDefaults(t *testing.T) {
	full, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	table, err := GPUTable()
	if err != nil {
		t.Fatal(err)
	}
	if len(table.GPUs) != len(full.GPUs) {
		t.Fatalf("%d GPUs, want %d", len(table.GPUs), len(full.GPUs))
	}
	for i, g := range table.GPUs {
		f := full.GPUs[i]
		if g.Name != f.Name || fmt.Sprint(g.Figures()) != fmt.Sprint(f.Figures()) || (g.Estimate == nil) != (f.Estimate == nil) ||
			g.Estimate != nil && g.Estimate.FromGPU.Name != f.Estimate.FromGPU.Name {
			t.Errorf("%s differs from the full catalog's %s", g.Name, f.Name)
		}
	}
	if gs, err := table.LookupGPU("A100-80GB"); err != nil || len(gs) < 2 {
		t.Errorf("generic lookup: %v, %v", gs, err)
	}
}
