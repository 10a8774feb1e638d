// Package nvml binds NVIDIA's management library (libnvidia-ml.so.1) at run
// time with purego: driver and CUDA versions, devices, memory, PCI and PCIe,
// clocks, power, energy, utilisation, temperature, clock-event reasons, ECC
// mode and error counts, remapped memory rows, Xid error events, PCIe
// throughput, MIG and virtualisation modes, compute mode, NVLink and
// peer-to-peer status, compute processes and their names; a CUDA device
// (whole GPU or MIG instance) is found by its UUID. A Device is a
// gpu.Sampler, and FillInfo completes a gpu.Info.
// bench, doctor and the agent use it; nothing here is benchmark-specific.
// A NOT_SUPPORTED answer is a fact (IsNotSupported), not a failure.
package nvml

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// NVML is an initialised NVML. Its methods are safe for concurrent use
// (NVML is thread-safe). Close shuts it down.
type NVML struct {
	lib   *dl.Library
	bound dl.Bound
	f     funcs

	mu     sync.Mutex
	closed bool
}

// funcs are the bound C functions; optional ones may be nil.
type funcs struct {
	initV2            func() int32
	shutdown          func() int32
	driverVersion     func(buf *byte, n uint32) int32
	nvmlVersion       func(buf *byte, n uint32) int32
	cudaDriverVersion func(v *int32) int32
	deviceCount       func(n *uint32) int32
	handleByIndex     func(i uint32, h *uintptr) int32

	name          func(h uintptr, buf *byte, n uint32) int32
	uuid          func(h uintptr, buf *byte, n uint32) int32
	memoryInfo    func(h uintptr, m *memory) int32
	pciInfo       func(h uintptr, p *pciInfo) int32
	currPcieGen   func(h uintptr, v *uint32) int32
	currPcieWidth func(h uintptr, v *uint32) int32
	maxPcieGen    func(h uintptr, v *uint32) int32
	maxPcieWidth  func(h uintptr, v *uint32) int32
	clockInfo     func(h uintptr, typ uint32, v *uint32) int32
	maxClockInfo  func(h uintptr, typ uint32, v *uint32) int32
	powerUsage    func(h uintptr, mW *uint32) int32
	powerLimit    func(h uintptr, mW *uint32) int32
	energy        func(h uintptr, mJ *uint64) int32
	utilization   func(h uintptr, u *utilization) int32
	temperature   func(h uintptr, sensor uint32, v *uint32) int32
	clockReasons  func(h uintptr, r *uint64) int32
	eccMode       func(h uintptr, cur, pending *uint32) int32
	migMode       func(h uintptr, cur, pending *uint32) int32
	virtMode      func(h uintptr, m *uint32) int32
	nvLinkState   func(h uintptr, link uint32, active *uint32) int32
	p2pStatus     func(h1, h2 uintptr, idx uint32, st *uint32) int32
	topology      func(h1, h2 uintptr, level *uint32) int32
	computeProcs  func(h uintptr, count *uint32, infos *processInfo) int32
	numaNode      func(h uintptr, node *uint32) int32
	architecture  func(h uintptr, a *uint32) int32
	computeCap    func(h uintptr, major, minor *int32) int32
	eccErrors     func(h uintptr, errType, counter uint32, n *uint64) int32
	pcieTput      func(h uintptr, counter uint32, kbps *uint32) int32
	eventSetNew   func(set *uintptr) int32
	eventSetFree  func(set uintptr) int32
	eventRegister func(h uintptr, types uint64, set uintptr) int32
	eventWait     func(set uintptr, data *eventData, timeoutMs uint32) int32

	computeMode  func(h uintptr, mode *int32) int32
	remappedRows func(h uintptr, corr, unc, pending, failure *uint32) int32
	handleByUUID func(uuid *byte, h *uintptr) int32
	migParent    func(mig uintptr, h *uintptr) int32
	isMigHandle  func(h uintptr, is *uint32) int32
	processName  func(pid uint32, name *byte, n uint32) int32
}

// table is the binding table: name alternates preferred first.
func (f *funcs) table() []dl.Symbol {
	return []dl.Symbol{
		dl.Sym(&f.initV2, "nvmlInit_v2"),
		dl.Sym(&f.shutdown, "nvmlShutdown"),
		dl.Sym(&f.driverVersion, "nvmlSystemGetDriverVersion"),
		dl.OptSym(&f.nvmlVersion, "nvmlSystemGetNVMLVersion"),
		dl.OptSym(&f.cudaDriverVersion, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"),
		dl.Sym(&f.deviceCount, "nvmlDeviceGetCount_v2"),
		dl.Sym(&f.handleByIndex, "nvmlDeviceGetHandleByIndex_v2"),
		dl.Sym(&f.name, "nvmlDeviceGetName"),
		dl.Sym(&f.uuid, "nvmlDeviceGetUUID"),
		dl.Sym(&f.memoryInfo, "nvmlDeviceGetMemoryInfo"),
		dl.OptSym(&f.pciInfo, "nvmlDeviceGetPciInfo_v3"),
		dl.OptSym(&f.currPcieGen, "nvmlDeviceGetCurrPcieLinkGeneration"),
		dl.OptSym(&f.currPcieWidth, "nvmlDeviceGetCurrPcieLinkWidth"),
		dl.OptSym(&f.maxPcieGen, "nvmlDeviceGetMaxPcieLinkGeneration"),
		dl.OptSym(&f.maxPcieWidth, "nvmlDeviceGetMaxPcieLinkWidth"),
		dl.OptSym(&f.clockInfo, "nvmlDeviceGetClockInfo"),
		dl.OptSym(&f.maxClockInfo, "nvmlDeviceGetMaxClockInfo"),
		dl.OptSym(&f.powerUsage, "nvmlDeviceGetPowerUsage"),
		dl.OptSym(&f.powerLimit, "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"),
		dl.OptSym(&f.energy, "nvmlDeviceGetTotalEnergyConsumption"),
		dl.OptSym(&f.utilization, "nvmlDeviceGetUtilizationRates"),
		dl.OptSym(&f.temperature, "nvmlDeviceGetTemperature"),
		dl.OptSym(&f.clockReasons, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"),
		dl.OptSym(&f.eccMode, "nvmlDeviceGetEccMode"),
		dl.OptSym(&f.migMode, "nvmlDeviceGetMigMode"),
		dl.OptSym(&f.virtMode, "nvmlDeviceGetVirtualizationMode"),
		dl.OptSym(&f.nvLinkState, "nvmlDeviceGetNvLinkState"),
		dl.OptSym(&f.p2pStatus, "nvmlDeviceGetP2PStatus"),
		dl.OptSym(&f.topology, "nvmlDeviceGetTopologyCommonAncestor"),
		// _v2 and _v3 share the 24-byte nvmlProcessInfo_t; the plain one does not.
		dl.OptSym(&f.computeProcs, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"),
		dl.OptSym(&f.numaNode, "nvmlDeviceGetNumaNodeId"),
		dl.OptSym(&f.architecture, "nvmlDeviceGetArchitecture"),
		dl.OptSym(&f.computeCap, "nvmlDeviceGetCudaComputeCapability"),
		dl.OptSym(&f.eccErrors, "nvmlDeviceGetTotalEccErrors"),
		dl.OptSym(&f.pcieTput, "nvmlDeviceGetPcieThroughput"),
		dl.OptSym(&f.eventSetNew, "nvmlEventSetCreate"),
		dl.OptSym(&f.eventSetFree, "nvmlEventSetFree"),
		dl.OptSym(&f.eventRegister, "nvmlDeviceRegisterEvents"),
		dl.OptSym(&f.eventWait, "nvmlEventSetWait_v2"),
		dl.OptSym(&f.computeMode, "nvmlDeviceGetComputeMode"),
		dl.OptSym(&f.remappedRows, "nvmlDeviceGetRemappedRows"),
		dl.OptSym(&f.handleByUUID, "nvmlDeviceGetHandleByUUID"),
		dl.OptSym(&f.migParent, "nvmlDeviceGetDeviceHandleFromMigDeviceHandle"),
		dl.OptSym(&f.isMigHandle, "nvmlDeviceIsMigDeviceHandle"),
		dl.OptSym(&f.processName, "nvmlSystemGetProcessName"),
	}
}

// Open loads libnvidia-ml.so.1 from where dl finds it and initialises NVML.
func Open() (*NVML, error) { return OpenEnv(dl.SystemEnv()) }

// OpenEnv is Open with an injected library search environment.
func OpenEnv(env dl.Env) (*NVML, error) {
	lib, err := dl.OpenEnv(dl.NVML, env)
	if err != nil {
		return nil, err
	}
	return openLib(lib)
}

func openLib(lib *dl.Library) (*NVML, error) {
	n := &NVML{lib: lib}
	b, err := lib.Bind(n.f.table())
	if err != nil {
		return nil, err
	}
	n.bound = b
	if err := check("nvmlInit_v2", n.f.initV2()); err != nil {
		return nil, err
	}
	return n, nil
}

// Library is the file that loaded.
func (n *NVML) Library() *dl.Library { return n.lib }

// Bound says which symbol names were bound and which optional ones are
// missing (for doctor and diagnostics).
func (n *NVML) Bound() dl.Bound { return n.bound }

// Close shuts NVML down; devices from it must not be used after.
func (n *NVML) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	return check("nvmlShutdown", n.f.shutdown())
}

// missing is the error for an optional function this NVML lacks.
func missing(fn string) error { return &Error{Func: fn, Code: ErrorFunctionMissing} }

// DriverVersion is the kernel driver's version: "580.159.04".
func (n *NVML) DriverVersion() (string, error) {
	buf := make([]byte, 80) // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
	if err := check("nvmlSystemGetDriverVersion", n.f.driverVersion(&buf[0], uint32(len(buf)))); err != nil {
		return "", err
	}
	return cString(buf), nil
}

// NVMLVersion is NVML's own version: "13.580.159.04".
func (n *NVML) NVMLVersion() (string, error) {
	if n.f.nvmlVersion == nil {
		return "", missing("nvmlSystemGetNVMLVersion")
	}
	buf := make([]byte, 80) // NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE
	if err := check("nvmlSystemGetNVMLVersion", n.f.nvmlVersion(&buf[0], uint32(len(buf)))); err != nil {
		return "", err
	}
	return cString(buf), nil
}

// CUDADriverVersion is the newest CUDA version the driver supports: "13.0".
func (n *NVML) CUDADriverVersion() (string, error) {
	if n.f.cudaDriverVersion == nil {
		return "", missing("nvmlSystemGetCudaDriverVersion")
	}
	var v int32
	if err := check(n.bound.Names["nvmlSystemGetCudaDriverVersion_v2"], n.f.cudaDriverVersion(&v)); err != nil {
		return "", err
	}
	return dl.CUDAVersion(int(v)), nil
}

// DeviceCount is the number of GPUs NVML sees.
func (n *NVML) DeviceCount() (int, error) {
	var c uint32
	if err := check("nvmlDeviceGetCount_v2", n.f.deviceCount(&c)); err != nil {
		return 0, err
	}
	return int(c), nil
}

// Device returns the i-th GPU (NVML's order: PCI bus order).
func (n *NVML) Device(i int) (*Device, error) {
	if i < 0 {
		return nil, fmt.Errorf("nvml: device index %d is negative", i)
	}
	var h uintptr
	if err := check("nvmlDeviceGetHandleByIndex_v2", n.f.handleByIndex(uint32(i), &h)); err != nil {
		return nil, err
	}
	return &Device{n: n, h: h, index: i}, nil
}

// Devices returns every GPU.
func (n *NVML) Devices() ([]*Device, error) {
	c, err := n.DeviceCount()
	if err != nil {
		return nil, err
	}
	out := make([]*Device, 0, c)
	for i := range c {
		d, err := n.Device(i)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// FindDevice returns the GPU with this UUID ("GPU-8a89…", or a MIG
// instance's "MIG-…": see DeviceByUUID) or PCI bus id (any zero padding of
// the domain: "0000:00:06.0" finds "00000000:00:06.0"), which is how a CUDA
// device, numbered differently, finds its NVML twin.
func (n *NVML) FindDevice(uuid, busID string) (*Device, error) {
	if uuid != "" && n.f.handleByUUID != nil {
		if d, err := n.DeviceByUUID(uuid); err == nil {
			return d, nil
		}
	}
	ds, err := n.Devices()
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if uuid != "" {
			if u, err := d.UUID(); err == nil && u == uuid {
				return d, nil
			}
		}
		if busID != "" {
			if p, err := d.PCI(); err == nil && SameBusID(p.BusID, busID) {
				return d, nil
			}
		}
	}
	return nil, fmt.Errorf("nvml: no GPU with uuid %q or bus id %q", uuid, busID)
}

// cString reads a NUL-terminated string from a buffer C filled.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
