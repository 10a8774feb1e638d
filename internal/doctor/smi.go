package doctor

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// SMI is what `nvidia-smi -q -x` says about the driver and its GPUs.
type SMI struct {
	Driver string // "580.159.04"
	CUDA   string // the newest CUDA driver API the driver supports: "13.0"
	GPUs   []SMIGPU
}

// SMIGPU is one GPU of an `nvidia-smi -q -x` log. Text fields hold the
// values as nvidia-smi writes them ("Enabled", "Pass-Through", "N/A");
// numbers nvidia-smi cannot read are 0.
type SMIGPU struct {
	Index          int    // position in the log, which is the driver's order
	Name           string // "NVIDIA H200"
	Brand          string // "NVIDIA", "Tesla", "GeForce", ...
	Architecture   string // "Hopper"
	UUID           string
	BusID          string
	MemoryMiB      int64
	Persistence    string // "Enabled", "Disabled"
	MIGCurrent     string // "Enabled", "Disabled", "N/A"
	MIGPending     string
	Virtualization string // "None", "Pass-Through", "VGPU", "Host VGPU", ...
	ECCCurrent     string // "Enabled", "Disabled", "N/A"
	ECCPending     string
	PCIeGen        int // current link generation
	PCIeGenMax     int
	PCIeWidth      int // current link width (lanes)
	PCIeWidthMax   int
}

// smiXML mirrors the parts of nvidia-smi's XML log (nvsmi_device_v13.dtd)
// that doctor reads; everything else is ignored.
type smiXML struct {
	XMLName xml.Name `xml:"nvidia_smi_log"`
	Driver  string   `xml:"driver_version"`
	CUDA    string   `xml:"cuda_version"`
	GPUs    []struct {
		ID           string `xml:"id,attr"`
		Name         string `xml:"product_name"`
		Brand        string `xml:"product_brand"`
		Architecture string `xml:"product_architecture"`
		Persistence  string `xml:"persistence_mode"`
		MIG          struct {
			Current string `xml:"current_mig"`
			Pending string `xml:"pending_mig"`
		} `xml:"mig_mode"`
		UUID string `xml:"uuid"`
		Virt struct {
			Mode string `xml:"virtualization_mode"`
		} `xml:"gpu_virtualization_mode"`
		PCI struct {
			BusID string `xml:"pci_bus_id"`
			Link  struct {
				Gen struct {
					Max     string `xml:"max_link_gen"`
					Current string `xml:"current_link_gen"`
				} `xml:"pcie_gen"`
				Width struct {
					Max     string `xml:"max_link_width"`
					Current string `xml:"current_link_width"`
				} `xml:"link_widths"`
			} `xml:"pci_gpu_link_info"`
		} `xml:"pci"`
		FB struct {
			Total string `xml:"total"`
		} `xml:"fb_memory_usage"`
		ECC struct {
			Current string `xml:"current_ecc"`
			Pending string `xml:"pending_ecc"`
		} `xml:"ecc_mode"`
	} `xml:"gpu"`
}

// maxSMIBytes bounds the log doctor parses: a node with 16 GPUs writes
// about 400 KB.
const maxSMIBytes = 16 << 20

// ParseSMI reads the output of `nvidia-smi -q -x`.
func ParseSMI(b []byte) (SMI, error) {
	if len(b) > maxSMIBytes {
		return SMI{}, fmt.Errorf("nvidia-smi XML: %d bytes, more than the %d doctor reads", len(b), maxSMIBytes)
	}
	var x smiXML
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	// The log names its DTD; nothing needs to be fetched to read it.
	d.Entity = xml.HTMLEntity
	if err := d.Decode(&x); err != nil {
		return SMI{}, fmt.Errorf("nvidia-smi XML: %w", err)
	}
	s := SMI{Driver: clean(x.Driver), CUDA: clean(x.CUDA)}
	for i, g := range x.GPUs {
		bus := clean(g.PCI.BusID)
		if bus == "" {
			bus = clean(g.ID)
		}
		s.GPUs = append(s.GPUs, SMIGPU{
			Index:          i,
			Name:           clean(g.Name),
			Brand:          clean(g.Brand),
			Architecture:   clean(g.Architecture),
			UUID:           clean(g.UUID),
			BusID:          bus,
			MemoryMiB:      leadingInt(g.FB.Total),
			Persistence:    clean(g.Persistence),
			MIGCurrent:     clean(g.MIG.Current),
			MIGPending:     clean(g.MIG.Pending),
			Virtualization: clean(g.Virt.Mode),
			ECCCurrent:     clean(g.ECC.Current),
			ECCPending:     clean(g.ECC.Pending),
			PCIeGen:        int(leadingInt(g.PCI.Link.Gen.Current)),
			PCIeGenMax:     int(leadingInt(g.PCI.Link.Gen.Max)),
			PCIeWidth:      int(leadingInt(g.PCI.Link.Width.Current)),
			PCIeWidthMax:   int(leadingInt(g.PCI.Link.Width.Max)),
		})
	}
	return s, nil
}

// clean trims a value and bounds its length, so a damaged log cannot fill a
// report line.
func clean(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// leadingInt reads the number that starts a value: "143771 MiB" → 143771,
// "16x" → 16; 0 when there is none ("N/A") or it is out of range.
func leadingInt(s string) int64 {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end > 18 {
		return 0
	}
	n, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		return 0
	}
	return n
}
