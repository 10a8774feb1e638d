package catalog

import (
	"strings"
	"testing"
)

// TestChineseCloudAndAzureCoverage: the GPU families users of the Chinese
// clouds and Azure ask for are in the catalog with the specs of the
// providers' documentation, and every price from the provider's own table.
func TestChineseCloudAndAzureCoverage(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		provider, typ, gpu string
		count, vcpus, mem  float64
		link               string // "" = not checked
	}{
		{"alibaba", "ecs.gn7e-c16g1.4xlarge", "A100-80GB", 1, 16, 125, ""},
		{"alibaba", "ecs.gn7e-c16g1.32xlarge", "A100-80GB", 8, 128, 1000, LinkNVLink},
		{"alibaba", "ecs.gn7s-c32g1.32xlarge", "A30", 4, 128, 1000, LinkPCIe},
		{"alibaba", "ecs.gn6e-c12g1.24xlarge", "V100-SXM2-32GB", 8, 96, 736, LinkNVLink},
		{"alibaba", "ecs.gn8is-8x.32xlarge", "L20", 8, 128, 1024, LinkPCIe},
		{"alibaba", "ecs.gn8v.4xlarge", "H20", 1, 16, 96, LinkNone},
		{"alibaba", "ecs.gn8v-8x.48xlarge", "H20", 8, 192, 1024, LinkNVLink},
		{"alibaba", "ecs.ebmgn8v.48xlarge", "H20", 8, 192, 1024, LinkNVLink},
		{"tencent", "GT4.4XLARGE96", "A100-SXM4-40GB", 1, 16, 96, LinkNone},
		{"tencent", "GT4.8XLARGE192", "A100-SXM4-40GB", 2, 32, 192, LinkNVLink},
		{"tencent", "GT4.20XLARGE474", "A100-SXM4-40GB", 4, 82, 474, LinkNVLink},
		{"tencent", "GT4.41XLARGE948", "A100-SXM4-40GB", 8, 164, 948, LinkNVLink},
		{"tencent", "GN10X.18XLARGE320", "V100-SXM2-32GB", 8, 72, 320, LinkNVLink},
		{"tencent", "PNV4.56XLARGE932", "A10", 8, 224, 932, LinkPCIe},
		{"azure", "Standard_ND96isr_H100_v5", "H100-SXM5-80GB", 8, 96, 1900, LinkNVSwitch},
		{"azure", "Standard_ND96isr_H200_v5", "H200-SXM-141GB", 8, 96, 1850, LinkNVSwitch},
		{"azure", "Standard_ND96isr_MI300X_v5", "MI300X", 8, 96, 1850, ""},
		{"azure", "Standard_NC40ads_H100_v5", "H100-NVL-94GB", 1, 40, 320, LinkNone},
		{"azure", "Standard_NC80adis_H100_v5", "H100-NVL-94GB", 2, 80, 640, ""},
		{"azure", "Standard_NC96ads_A100_v4", "A100-PCIe-80GB", 4, 96, 880, LinkPCIe},
	}
	coveragePriceSources := map[string]string{"azure": "karpenter-azure@", "alibaba": "karpenter-alibaba@", "tencent": "tencent-"}
	for _, tt := range tests {
		var o *Offering
		for i := range c.Offerings {
			if x := &c.Offerings[i]; x.Provider == tt.provider && x.InstanceType == tt.typ {
				o = x
				break
			}
		}
		if o == nil {
			t.Errorf("%s/%s is not in the catalog", tt.provider, tt.typ)
			continue
		}
		if o.GPU.Name != tt.gpu || o.GPUCount != tt.count || o.VCPUs != tt.vcpus || o.MemoryGiB != tt.mem {
			t.Errorf("%s: %s ×%g, %g vCPU, %g GiB; want %s ×%g, %g vCPU, %g GiB", o.Key(), o.GPU.Name, o.GPUCount, o.VCPUs, o.MemoryGiB, tt.gpu, tt.count, tt.vcpus, tt.mem)
		}
		if tt.link != "" && o.Interconnect != tt.link {
			t.Errorf("%s: link %s, want %s", o.Key(), o.Interconnect, tt.link)
		}
		if c.Source(o.SpecSource) == nil || c.Source(o.SpecSource).URL == "" {
			t.Errorf("%s: spec source %q has no URL", o.Key(), o.SpecSource)
		}
		if want := coveragePriceSources[tt.provider]; o.OnDemand.Known && !strings.HasPrefix(o.OnDemand.Source, want) {
			t.Errorf("%s: price %s from %q; want a price from %s*", o.Key(), o.OnDemand.Value, o.OnDemand.Source, want)
		}
	}
}
