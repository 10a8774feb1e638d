package agentconfig

import "path"

// Collect says what the collectors count.
type Collect struct {
	// GPU is how GPUs are found: auto (NVML when it loads; none otherwise),
	// nvml (NVML must load; while it does not, the gpu collector is down) or
	// off. agent.fake_gpus replaces NVML.
	GPU string `yaml:"gpu,omitempty"`
	// PCIe also reads each GPU's PCIe throughput. NVML samples it for about
	// 20 ms per direction and GPU (measured on an H200), so it is off by
	// default: with 8 GPUs it adds some 330 ms to every sample.
	PCIe    bool    `yaml:"pcie,omitempty"`
	Network Network `yaml:"network,omitempty"`
}

// GPU collection modes.
const (
	GPUAuto = "auto"
	GPUNVML = "nvml"
	GPUOff  = "off"
)

// Network says which interfaces count and how egress is estimated.
//
// The agent reads per-interface byte counters (/proc/net/dev); it cannot see
// where bytes go. So all bytes sent on the counted interfaces are an upper
// bound of billed egress: traffic to private addresses (same VPC, peered
// networks) is billed at a lower rate or not at all. Exclude the interfaces
// that carry only private traffic (an InfiniBand or cluster-network NIC, a
// container bridge) so that the bound is tight.
type Network struct {
	// Include lists interface name patterns (path.Match globs: eth*, ens5)
	// to count; empty counts every interface not excluded.
	Include []string `yaml:"include,omitempty"`
	// Exclude lists interface name patterns not to count (default: lo,
	// docker*, veth*, br-*, cni*, flannel*, cali*, virbr*, ib*, the loopback,
	// container and InfiniBand interfaces).
	Exclude []string `yaml:"exclude,omitempty"`
	// EgressBasis is what the egress projection counts: transmit (every byte
	// sent on the counted interfaces, an upper bound of billed egress;
	// default) or off (no projection).
	EgressBasis string `yaml:"egress_basis,omitempty"`
}

// Egress bases.
const (
	EgressTransmit = "transmit"
	EgressOff      = "off"
)

// DefaultExclude is the interfaces not counted unless the config says otherwise.
var DefaultExclude = []string{"lo", "docker*", "veth*", "br-*", "cni*", "flannel*", "cali*", "virbr*", "ib*"}

// MaxPatterns bounds each interface pattern list.
const MaxPatterns = 64

func (c *Collect) applyDefaults() {
	if c.GPU == "" {
		c.GPU = GPUAuto
	}
	if c.Network.Exclude == nil {
		c.Network.Exclude = append([]string(nil), DefaultExclude...)
	}
	if c.Network.EgressBasis == "" {
		c.Network.EgressBasis = EgressTransmit
	}
}

func (c *Collect) validate() error {
	switch c.GPU {
	case GPUAuto, GPUNVML, GPUOff:
	default:
		return fieldErr("collect.gpu", "value %q: want %s, %s or %s", c.GPU, GPUAuto, GPUNVML, GPUOff)
	}
	for _, l := range []struct {
		field string
		pats  []string
	}{{"collect.network.include", c.Network.Include}, {"collect.network.exclude", c.Network.Exclude}} {
		if len(l.pats) > MaxPatterns {
			return fieldErr(l.field, "%d patterns; at most %d", len(l.pats), MaxPatterns)
		}
		for _, p := range l.pats {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				return fieldErr(l.field, "pattern %q is not a glob; want an interface name or a pattern such as eth*", p)
			}
		}
	}
	switch c.Network.EgressBasis {
	case EgressTransmit, EgressOff:
	default:
		return fieldErr("collect.network.egress_basis", "value %q: want %s (all bytes sent, an upper bound of billed egress) or %s", c.Network.EgressBasis, EgressTransmit, EgressOff)
	}
	return nil
}

// Counts reports whether interface name is counted under n.
func (n *Network) Counts(name string) bool {
	for _, p := range n.Exclude {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if len(n.Include) == 0 {
		return true
	}
	for _, p := range n.Include {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
