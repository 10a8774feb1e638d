package catalog

import "testing"

// The inter-node network of the training instances, as the cited pages give
// it: kind, Gbps and a source id every offering row carries.
func TestNetworkFromSources(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		kind string
		gbps float64
		src  string
		fast bool
	}{
		"p4d.24xlarge":  {NetEFA, 400, "aws-efa-network", true},
		"p5.48xlarge":   {NetEFA, 3200, "aws-efa-network", true},
		"a3-highgpu-8g": {NetTCPX, 1000, "gcp-gpu-network-bandwidth", true},
		"a3-megagpu-8g": {NetTCPXO, 1800, "gcp-gpu-network-bandwidth", true}, // A3 Mega: TCPXO, not TCPX
		"g5.48xlarge":   {NetEFA, 100, "karpenter-aws-instance-types@1d927085", true},
		"g6.48xlarge":   {NetEFA, 100, "karpenter-aws-instance-types@1d927085", true},
		"g6e.48xlarge":  {NetEFA, 400, "karpenter-aws-instance-types@1d927085", true},
		"g7e.48xlarge":  {NetEFA, 1600, "karpenter-aws-instance-types@1d927085", true},
		"g5.xlarge":     {NetEthernet, 2.5, "karpenter-aws-instance-types@1d927085", false}, // no EFA; the baseline of "up to 10"
		"p3.16xlarge":   {NetEthernet, 25, "awsdocs-ec2-user-guide@5bcb1f49", false},        // ENA only
		"inf2.48xlarge": {NetEthernet, 100, "karpenter-aws-instance-types@1d927085", false}, // ENA only: not a GPU fabric
		// Nebius names InfiniBand for its 8-GPU H100/H200 VMs but no bandwidth: known kind, unknown Gbps, not fast.
		"gpu-h100-sxm_8gpu-128vcpu-1600gb": {NetInfiniBand, 0, "nebius-solution-library@b2a14f03", false},
		"gpu-h200-sxm_8gpu-128vcpu-1600gb": {NetInfiniBand, 0, "nebius-solution-library@b2a14f03", false},
		"gpu-h100-sxm_1gpu-16vcpu-200gb":   {NetworkUnknown, 0, "", false},
		"a2-highgpu-8g":                    {NetEthernet, 100, "gcp-gpu-network-bandwidth", false},
		"Standard_ND96isr_H100_v5":         {NetInfiniBand, 3200, "azure-nd-infiniband", true}, // 8 × 400 Gb/s NDR
		"Standard_ND96asr_v4":              {NetInfiniBand, 1600, "azure-nd-infiniband", true}, // 8 × 200 Gb/s HDR
		"gpu_8x_h100_sxm5":                 {NetworkUnknown, 0, "", false},                     // Lambda: not sourced
	}
	seen := map[string]bool{}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		w, ok := want[o.InstanceType]
		if !ok {
			continue
		}
		seen[o.InstanceType] = true
		if o.Network() != w.kind || o.NetworkGbps != w.gbps || o.NetworkSource != w.src || o.FastNetwork() != w.fast {
			t.Errorf("%s %s: network %s %g Gbps (%s) fast %v; want %s %g Gbps (%s) fast %v", o.Provider, o.InstanceType,
				o.Network(), o.NetworkGbps, o.NetworkSource, o.FastNetwork(), w.kind, w.gbps, w.src, w.fast)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no offering %s", k)
		}
	}
	if p := c.Provider("vast"); p == nil || !p.Marketplace {
		t.Error("vast is not marked a marketplace")
	}
}
