package catalog

import (
	"strings"
	"testing"
)

// TestConservativeGeneric: a generic entry's missing figures come from its
// variants, the lowest of them, and say so; known figures stay as they are.
func TestConservativeGeneric(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		gpu     string
		wantBW  float64 // memory bandwidth GB/s after filling
		wantSrc string  // a word the filled figure's source must hold
		wantBF  float64 // bf16 TFLOP/s (its own figure)
	}{
		// A100-SXM4-80GB 2039 GB/s, A100-PCIe-80GB 1935 GB/s (gpus.yaml): the lower one.
		{"A100-80GB", 1935, "A100-PCIe-80GB", 312},
		// A100-40GB has its own sourced 1555 GB/s: kept, with its own source.
		{"A100-40GB", 1555, "ml-engineering", 312},
		// A non-generic GPU is returned as is.
		{"A100-SXM4-80GB", 2039, "", 312},
	}
	for _, tt := range tests {
		g := c.GPU(tt.gpu)
		if g == nil {
			t.Fatalf("%s not in the table", tt.gpu)
		}
		before := g.MemoryBandwidth
		got := c.Conservative(g)
		if !got.MemoryBandwidth.Known || got.MemoryBandwidth.Value != tt.wantBW {
			t.Errorf("%s: bandwidth = %v, want %g", tt.gpu, got.MemoryBandwidth, tt.wantBW)
		}
		if !strings.Contains(got.MemoryBandwidth.Source, tt.wantSrc) {
			t.Errorf("%s: source %q, want it to name %q", tt.gpu, got.MemoryBandwidth.Source, tt.wantSrc)
		}
		if got.BF16.Value != tt.wantBF {
			t.Errorf("%s: bf16 = %v, want %g", tt.gpu, got.BF16, tt.wantBF)
		}
		if g.MemoryBandwidth != before {
			t.Errorf("%s: Conservative changed the catalog's entry", tt.gpu)
		}
	}
}
