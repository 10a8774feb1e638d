package catalog

import "testing"

// TestGPUTableFigures pins figures corrected against one datasheet each.
func TestGPUTableFigures(t *testing.T) {
	c := mustDefault(t)
	fig := func(g *GPU, name string) Figure {
		for _, nf := range g.Figures() {
			if nf.Name == name {
				return nf.Figure
			}
		}
		t.Fatalf("%s has no figure %s", g.Name, name)
		return Figure{}
	}
	tests := []struct {
		gpu, figure string
		want        float64 // -1: unknown
		source      string
	}{
		// Bidirectional like every other entry: 7 links × 128 GB/s.
		{"MI300X", "interconnect_gbs", 896, "amd-mi300x-datasheet"},
		// HGX B200: 600 TFLOPS FP32 / 8; TF32 18 PFLOPS sparse / 8 / 2.
		{"B200", "fp32_tflops", 75, "nvidia-hgx-b200"},
		{"B200", "tf32_tflops", 1125, "nvidia-hgx-b200"},
		{"B200", "bf16_tflops", 2250, "nvidia-hgx-b200"},
		{"B200", "memory_bandwidth_gbs", 8000, "nvidia-dgx-b200"},
		// L20: Alibaba Cloud's gn8is documentation (NVIDIA's sheet is not public).
		{"L20", "memory_gib", 48, "alibaba-gpu-families"},
		{"L20", "memory_bandwidth_gbs", 864, "alibaba-gpu-families"},
		{"L20", "fp32_tflops", 59.3, "alibaba-gpu-families"},
		{"L20", "tdp_w", 275, "l20-spec-pages"},
		{"L20", "bf16_tflops", -1, ""},
		{"H20", "bf16_tflops", 148, "vendor-datasheets"},
		{"H20", "memory_class_gb", 96, "vendor-datasheets"},
	}
	for _, tt := range tests {
		g := c.GPU(tt.gpu)
		if g == nil {
			t.Fatalf("GPU %s not in the catalog", tt.gpu)
		}
		f := fig(g, tt.figure)
		if tt.want < 0 {
			if f.Known {
				t.Errorf("%s %s = %v (%s), want unknown", tt.gpu, tt.figure, f.Value, f.Source)
			}
			continue
		}
		if !f.Known || f.Value != tt.want || f.Source != tt.source {
			t.Errorf("%s %s = %v (known %v, %s), want %v (%s)", tt.gpu, tt.figure, f.Value, f.Known, f.Source, tt.want, tt.source)
		}
	}
}
