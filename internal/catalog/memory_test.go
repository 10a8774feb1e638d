package catalog

import "testing"

// TestGPUMemoryClass: a whole card counts as its nominal class whatever a feed
// copied from NVML; a slice counts as its own memory.
func TestGPUMemoryClass(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		gpu    string
		memGiB float64
		want   float64
	}{
		{"H100-SXM5-80GB", 79.6, 80}, // SkyPilot's Vast rows: NVML's 81,559 MiB
		{"H100-SXM5-80GB", 80, 80},
		{"H100-SXM5-80GB", 0, 80}, // memory not stated: the card's class
		{"H200-SXM-141GB", 140.4, 141},
		{"RTXPRO6000", 95.6, 96},
		{"A10", 12, 12}, // half an A10 (a vGPU slice) is 12, not 24
		{"A100-SXM4-80GB", 10, 10},
		{"RTX4060", 8, 8}, // no class sourced: the listed memory
	}
	for _, tt := range tests {
		g := c.GPU(tt.gpu)
		if g == nil {
			t.Fatalf("GPU %s not in the catalog", tt.gpu)
		}
		o := Offering{GPU: g, GPUCount: 1, GPUMemoryGiB: tt.memGiB}
		if got := o.GPUMemoryClassGB(); got != tt.want {
			t.Errorf("%s listed at %g GiB: class %g, want %g", tt.gpu, tt.memGiB, got, tt.want)
		}
	}
}

// TestMinGPUMemoryKeepsNVMLListedCards: "80GB" keeps every H100 80 GB,
// including Vast's rows listed at 79.6 GiB, and drops 48 GB cards.
func TestMinGPUMemoryKeepsNVMLListedCards(t *testing.T) {
	c := mustDefault(t)
	rows, err := c.Query(Query{Providers: []string{"vast"}, MinGPUMemoryGiB: 80, AllRegions: true})
	if err != nil {
		t.Fatal(err)
	}
	var h100 int
	for _, r := range rows {
		o := r.Offering
		if o.GPU.Name == "H100-SXM5-80GB" {
			h100++
		}
		if o.GPUMemoryClassGB() < 80 {
			t.Errorf("%s (%s, %g GiB) passed an 80 GB filter", o.Key(), o.GPU.Name, o.GPUMemoryGiB)
		}
	}
	var want int
	for i := range c.Offerings {
		if o := &c.Offerings[i]; o.Provider == "vast" && o.GPU.Name == "H100-SXM5-80GB" {
			want++
		}
	}
	if want == 0 || h100 != want {
		t.Errorf("80GB filter kept %d of %d Vast H100 80 GB offerings", h100, want)
	}
}
