package nvml

import (
	"fmt"
	"strings"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// Device is one GPU as NVML sees it, or one MIG instance of a GPU (a MIG
// device handle: IsMIG, Parent).
type Device struct {
	n     *NVML
	h     uintptr
	index int // NVML's index of the GPU (of the parent, for a MIG instance)
	// parent is the GPU of a MIG instance; nil for a GPU.
	parent *Device
}

// C structs, laid out as nvml.h has them (checked by the tests).
type (
	memory struct{ total, free, used uint64 }
	// pciInfo is nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it: 68 bytes.
	pciInfo struct {
		busIDLegacy [16]byte
		domain      uint32
		bus         uint32
		device      uint32
		pciDeviceID uint32
		subsystemID uint32
		busID       [32]byte
	}
	utilization struct{ gpu, memory uint32 }
	// processInfo is nvmlProcessInfo_t (v2/v3 layout): 24 bytes.
	processInfo struct {
		pid               uint32
		usedGPUMemory     uint64
		gpuInstanceID     uint32
		computeInstanceID uint32
	}
)

// Index is NVML's index of the device (of its GPU, for a MIG instance).
func (d *Device) Index() int { return d.index }

// IsMIG says whether the device is a MIG instance rather than a GPU.
func (d *Device) IsMIG() bool { return d.parent != nil }

// Parent is the GPU a MIG instance is part of, and a GPU itself: where the
// telemetry, clocks and modes are read (NVML reports them per GPU).
func (d *Device) Parent() *Device {
	if d.parent != nil {
		return d.parent
	}
	return d
}

// Name is the marketing name: "NVIDIA H200".
func (d *Device) Name() (string, error) {
	buf := make([]byte, 96) // NVML_DEVICE_NAME_V2_BUFFER_SIZE
	if err := check("nvmlDeviceGetName", d.n.f.name(d.h, &buf[0], uint32(len(buf)))); err != nil {
		return "", err
	}
	return cString(buf), nil
}

// UUID is "GPU-8a89bb26-…".
func (d *Device) UUID() (string, error) {
	buf := make([]byte, 96) // NVML_DEVICE_UUID_V2_BUFFER_SIZE
	if err := check("nvmlDeviceGetUUID", d.n.f.uuid(d.h, &buf[0], uint32(len(buf)))); err != nil {
		return "", err
	}
	return cString(buf), nil
}

// Memory is the framebuffer in bytes.
type Memory struct{ Total, Free, Used int64 }

// Memory reads total, free and used memory.
func (d *Device) Memory() (Memory, error) {
	var m memory
	if err := check("nvmlDeviceGetMemoryInfo", d.n.f.memoryInfo(d.h, &m)); err != nil {
		return Memory{}, err
	}
	return Memory{Total: int64(m.total), Free: int64(m.free), Used: int64(m.used)}, nil
}

// PCI is a device's PCI identity.
type PCI struct {
	BusID       string // "00000000:00:06.0"
	Domain      uint32
	Bus         uint32
	Device      uint32
	DeviceID    uint32 // 0x233510de: device id << 16 | vendor id
	SubsystemID uint32
}

// PCI reads the PCI identity (nvmlDeviceGetPciInfo_v3).
func (d *Device) PCI() (PCI, error) {
	if d.n.f.pciInfo == nil {
		return PCI{}, missing("nvmlDeviceGetPciInfo_v3")
	}
	var p pciInfo
	if err := check("nvmlDeviceGetPciInfo_v3", d.n.f.pciInfo(d.h, &p)); err != nil {
		return PCI{}, err
	}
	return PCI{BusID: cString(p.busID[:]), Domain: p.domain, Bus: p.bus, Device: p.device,
		DeviceID: p.pciDeviceID, SubsystemID: p.subsystemID}, nil
}

// SameBusID compares PCI bus ids whatever the domain's zero padding
// ("0000:00:06.0" from CUDA, "00000000:00:06.0" from NVML) and case.
func SameBusID(a, b string) bool { return normBusID(a) == normBusID(b) }

func normBusID(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	dom, rest, ok := strings.Cut(s, ":")
	if !ok || strings.Count(rest, ":") != 1 {
		return s
	}
	dom = strings.TrimLeft(dom, "0")
	return dom + ":" + rest
}

// PCIeLink is a PCIe generation and width.
type PCIeLink struct{ Gen, Width int }

// String writes the link as "Gen5 x16".
func (l PCIeLink) String() string { return fmt.Sprintf("Gen%d x%d", l.Gen, l.Width) }

// PCIeLink reads the current link (it drops to a lower generation at idle
// on some GPUs) or, with max, the best the GPU and slot can do.
func (d *Device) PCIeLink(max bool) (PCIeLink, error) {
	genF, widthF := d.n.f.currPcieGen, d.n.f.currPcieWidth
	genN, widthN := "nvmlDeviceGetCurrPcieLinkGeneration", "nvmlDeviceGetCurrPcieLinkWidth"
	if max {
		genF, widthF = d.n.f.maxPcieGen, d.n.f.maxPcieWidth
		genN, widthN = "nvmlDeviceGetMaxPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkWidth"
	}
	if genF == nil {
		return PCIeLink{}, missing(genN)
	}
	if widthF == nil {
		return PCIeLink{}, missing(widthN)
	}
	var g, w uint32
	if err := check(genN, genF(d.h, &g)); err != nil {
		return PCIeLink{}, err
	}
	if err := check(widthN, widthF(d.h, &w)); err != nil {
		return PCIeLink{}, err
	}
	return PCIeLink{Gen: int(g), Width: int(w)}, nil
}

// Clock is an nvmlClockType_t.
type Clock uint32

// The clocks NVML reports.
const (
	ClockGraphics Clock = 0
	ClockSM       Clock = 1
	ClockMem      Clock = 2
	ClockVideo    Clock = 3
)

// ClockMHz reads a clock now, or with max its highest (boost) value.
func (d *Device) ClockMHz(c Clock, max bool) (int, error) {
	f, name := d.n.f.clockInfo, "nvmlDeviceGetClockInfo"
	if max {
		f, name = d.n.f.maxClockInfo, "nvmlDeviceGetMaxClockInfo"
	}
	if f == nil {
		return 0, missing(name)
	}
	if c > ClockVideo {
		return 0, fmt.Errorf("nvml: clock type %d is not one of 0..3", c)
	}
	var v uint32
	if err := check(name, f(d.h, uint32(c), &v)); err != nil {
		return 0, err
	}
	return int(v), nil
}

// PowerW is the power draw now, in watts.
func (d *Device) PowerW() (float64, error) {
	return d.milliwatts(d.n.f.powerUsage, "nvmlDeviceGetPowerUsage")
}

// PowerLimitW is the enforced power limit, in watts.
func (d *Device) PowerLimitW() (float64, error) {
	return d.milliwatts(d.n.f.powerLimit, d.n.bound.Names["nvmlDeviceGetEnforcedPowerLimit"])
}

func (d *Device) milliwatts(f func(uintptr, *uint32) int32, name string) (float64, error) {
	if f == nil {
		return 0, missing("nvmlDeviceGetPowerUsage|nvmlDeviceGetEnforcedPowerLimit")
	}
	var mW uint32
	if err := check(name, f(d.h, &mW)); err != nil {
		return 0, err
	}
	return float64(mW) / 1000, nil
}

// EnergyJ is the energy used since the driver loaded, in joules (from
// millijoules): the difference of two readings is a region's energy.
func (d *Device) EnergyJ() (float64, error) {
	if d.n.f.energy == nil {
		return 0, missing("nvmlDeviceGetTotalEnergyConsumption")
	}
	var mJ uint64
	if err := check("nvmlDeviceGetTotalEnergyConsumption", d.n.f.energy(d.h, &mJ)); err != nil {
		return 0, err
	}
	return float64(mJ) / 1000, nil
}

// Utilization is the fraction (0..1) of the last sample period in which a
// kernel ran (GPU) and in which memory was read or written (Memory).
type Utilization struct{ GPU, Memory float64 }

// Utilization reads nvmlDeviceGetUtilizationRates.
func (d *Device) Utilization() (Utilization, error) {
	if d.n.f.utilization == nil {
		return Utilization{}, missing("nvmlDeviceGetUtilizationRates")
	}
	var u utilization
	if err := check("nvmlDeviceGetUtilizationRates", d.n.f.utilization(d.h, &u)); err != nil {
		return Utilization{}, err
	}
	return Utilization{GPU: float64(u.gpu) / 100, Memory: float64(u.memory) / 100}, nil
}

// TemperatureC is the GPU core temperature.
func (d *Device) TemperatureC() (float64, error) {
	if d.n.f.temperature == nil {
		return 0, missing("nvmlDeviceGetTemperature")
	}
	var v uint32
	const sensorGPU = 0 // NVML_TEMPERATURE_GPU
	if err := check("nvmlDeviceGetTemperature", d.n.f.temperature(d.h, sensorGPU, &v)); err != nil {
		return 0, err
	}
	return float64(v), nil
}

// ClockEventReasons reads the bit mask of why clocks are held down now
// (ReasonNames names it).
func (d *Device) ClockEventReasons() (uint64, error) {
	if d.n.f.clockReasons == nil {
		return 0, missing("nvmlDeviceGetCurrentClocksEventReasons")
	}
	var r uint64
	if err := check(d.n.bound.Names["nvmlDeviceGetCurrentClocksEventReasons"], d.n.f.clockReasons(d.h, &r)); err != nil {
		return 0, err
	}
	return r, nil
}

// ECC reads whether ECC is on now: "enabled" or "disabled".
func (d *Device) ECC() (string, error) {
	return d.mode(d.n.f.eccMode, "nvmlDeviceGetEccMode")
}

// MIG reads whether MIG is on now: "enabled" or "disabled".
func (d *Device) MIG() (string, error) {
	return d.mode(d.n.f.migMode, "nvmlDeviceGetMigMode")
}

func (d *Device) mode(f func(uintptr, *uint32, *uint32) int32, name string) (string, error) {
	if f == nil {
		return "", missing(name)
	}
	var cur, pending uint32
	if err := check(name, f(d.h, &cur, &pending)); err != nil {
		return "", err
	}
	if cur != 0 {
		return "enabled", nil
	}
	return "disabled", nil
}

var virtModes = []string{"NONE", "PASSTHROUGH", "VGPU", "HOST_VGPU", "HOST_VSGA"}

// Virtualization reads NVML's virtualisation mode: "NONE" (bare metal),
// "PASSTHROUGH" (a whole GPU given to a VM), "VGPU" (a slice of one), …
func (d *Device) Virtualization() (string, error) {
	if d.n.f.virtMode == nil {
		return "", missing("nvmlDeviceGetVirtualizationMode")
	}
	var m uint32
	if err := check("nvmlDeviceGetVirtualizationMode", d.n.f.virtMode(d.h, &m)); err != nil {
		return "", err
	}
	if int(m) < len(virtModes) {
		return virtModes[m], nil
	}
	return fmt.Sprintf("MODE_%d", m), nil
}

// NUMANode is the CPU NUMA node nearest the GPU.
func (d *Device) NUMANode() (int, error) {
	if d.n.f.numaNode == nil {
		return -1, missing("nvmlDeviceGetNumaNodeId")
	}
	var v uint32
	if err := check("nvmlDeviceGetNumaNodeId", d.n.f.numaNode(d.h, &v)); err != nil {
		return -1, err
	}
	return int(v), nil
}

var archNames = map[uint32]string{2: "Kepler", 3: "Maxwell", 4: "Pascal", 5: "Volta", 6: "Turing",
	7: "Ampere", 8: "Ada", 9: "Hopper", 10: "Blackwell"}

// Architecture is the GPU generation: "Hopper".
func (d *Device) Architecture() (string, error) {
	if d.n.f.architecture == nil {
		return "", missing("nvmlDeviceGetArchitecture")
	}
	var a uint32
	if err := check("nvmlDeviceGetArchitecture", d.n.f.architecture(d.h, &a)); err != nil {
		return "", err
	}
	if n, ok := archNames[a]; ok {
		return n, nil
	}
	return fmt.Sprintf("arch %d", a), nil
}

// ComputeCapability is CUDA's compute capability: "9.0".
func (d *Device) ComputeCapability() (string, error) {
	if d.n.f.computeCap == nil {
		return "", missing("nvmlDeviceGetCudaComputeCapability")
	}
	var major, minor int32
	if err := check("nvmlDeviceGetCudaComputeCapability", d.n.f.computeCap(d.h, &major, &minor)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d.%d", major, minor), nil
}

// Process is a compute process using the GPU (PID, memory used, -1 when
// NVML cannot say, and a name where OtherProcesses found one).
type Process = gpu.Process

// ComputeProcesses lists the compute processes on the GPU.
func (d *Device) ComputeProcesses() ([]Process, error) {
	if d.n.f.computeProcs == nil {
		return nil, missing("nvmlDeviceGetComputeRunningProcesses_v3")
	}
	name := d.n.bound.Names["nvmlDeviceGetComputeRunningProcesses_v3"]
	// The count may grow between calls: retry with room to spare.
	for n := uint32(16); n <= 4096; n *= 4 {
		infos := make([]processInfo, n)
		count := n
		rc := Return(d.n.f.computeProcs(d.h, &count, &infos[0]))
		if rc == ErrorInsufficientSz {
			continue
		}
		if err := check(name, int32(rc)); err != nil {
			return nil, err
		}
		if count > n {
			count = n
		}
		out := make([]Process, 0, count)
		for _, p := range infos[:count] {
			used := int64(p.usedGPUMemory)
			if p.usedGPUMemory == ^uint64(0) {
				used = -1
			}
			out = append(out, Process{PID: int(p.pid), UsedBytes: used})
		}
		return out, nil
	}
	return nil, &Error{Func: name, Code: ErrorInsufficientSz}
}
