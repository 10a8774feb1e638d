package nvml

import "fmt"

// MaxNvLinks is NVML_NVLINK_MAX_LINKS: links are numbered 0..17.
const MaxNvLinks = 18

// NvLinks reads which NVLink links are active. A GPU without NVLink (or a
// one-GPU VM, like the recorded H200) answers NOT_SUPPORTED: IsNotSupported
// is true of the error, and that is a fact to report, not a failure.
func (d *Device) NvLinks() ([]bool, error) {
	if d.n.f.nvLinkState == nil {
		return nil, missing("nvmlDeviceGetNvLinkState")
	}
	var out []bool
	for l := range uint32(MaxNvLinks) {
		var active uint32
		rc := d.n.f.nvLinkState(d.h, l, &active)
		if Return(rc) == ErrorInvalidArgument && l > 0 {
			break // past the GPU's last link
		}
		if err := check("nvmlDeviceGetNvLinkState", rc); err != nil {
			if l > 0 && IsNotSupported(err) {
				break
			}
			return nil, err
		}
		out = append(out, active != 0)
	}
	return out, nil
}

// P2PCap is an nvmlGpuP2PCapsIndex_t.
type P2PCap uint32

// Peer-to-peer capabilities NVML reports.
const (
	P2PRead    P2PCap = 0
	P2PWrite   P2PCap = 1
	P2PNvLink  P2PCap = 2
	P2PAtomics P2PCap = 3
	P2PPCI     P2PCap = 4 // NVML_P2P_CAPS_INDEX_PROP / _PCI
)

// P2PStatus is an nvmlGpuP2PStatus_t.
type P2PStatus uint32

var p2pNames = []string{"OK", "CHIPSET_NOT_SUPPORTED", "GPU_NOT_SUPPORTED", "IOH_TOPOLOGY_NOT_SUPPORTED",
	"DISABLED_BY_REGKEY", "NOT_SUPPORTED", "UNKNOWN"}

// String names the status as nvml.h does, without the NVML_P2P_STATUS_ prefix.
func (s P2PStatus) String() string {
	if int(s) < len(p2pNames) {
		return p2pNames[s]
	}
	return fmt.Sprintf("STATUS_%d", uint32(s))
}

// P2P reads whether this GPU can use capability c with peer.
func (d *Device) P2P(peer *Device, c P2PCap) (P2PStatus, error) {
	if d.n.f.p2pStatus == nil {
		return 0, missing("nvmlDeviceGetP2PStatus")
	}
	var st uint32
	if err := check("nvmlDeviceGetP2PStatus", d.n.f.p2pStatus(d.h, peer.h, uint32(c), &st)); err != nil {
		return 0, err
	}
	return P2PStatus(st), nil
}

// topologyNames are nvidia-smi topo -m's words for nvmlGpuTopologyLevel_t.
var topologyNames = map[uint32]string{0: "internal", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}

// Topology reads the closest common ancestor of two GPUs in the PCIe tree,
// in nvidia-smi's words: "internal" (one board), "PIX" (one PCIe switch),
// "PXB" (several switches), "PHB" (a host bridge), "NODE" (one NUMA node),
// "SYS" (across the inter-socket link).
func (d *Device) Topology(peer *Device) (string, error) {
	if d.n.f.topology == nil {
		return "", missing("nvmlDeviceGetTopologyCommonAncestor")
	}
	var lvl uint32
	if err := check("nvmlDeviceGetTopologyCommonAncestor", d.n.f.topology(d.h, peer.h, &lvl)); err != nil {
		return "", err
	}
	if n, ok := topologyNames[lvl]; ok {
		return n, nil
	}
	return fmt.Sprintf("level %d", lvl), nil
}

// Link is what NVML says about the path between two GPUs.
type Link struct {
	Type     string // "NVLink", or the PCIe topology word ("PIX", "SYS", …), or "unknown"
	NvLink   P2PStatus
	Read     P2PStatus
	Write    P2PStatus
	Topology string // "" when NVML cannot say
}

// LinkTo describes the path to peer for a P2P matrix. Capabilities NVML
// cannot report are left at UNKNOWN; only a failure other than
// NOT_SUPPORTED is an error.
func (d *Device) LinkTo(peer *Device) (Link, error) {
	l := Link{NvLink: 6, Read: 6, Write: 6}
	for _, q := range []struct {
		c   P2PCap
		dst *P2PStatus
	}{{P2PNvLink, &l.NvLink}, {P2PRead, &l.Read}, {P2PWrite, &l.Write}} {
		st, err := d.P2P(peer, q.c)
		if err != nil && !IsNotSupported(err) {
			return l, err
		}
		if err == nil {
			*q.dst = st
		}
	}
	topo, err := d.Topology(peer)
	if err != nil && !IsNotSupported(err) {
		return l, err
	}
	l.Topology = topo
	switch {
	case l.NvLink == 0:
		l.Type = "NVLink"
	case topo != "":
		l.Type = topo
	default:
		l.Type = "unknown"
	}
	return l, nil
}
