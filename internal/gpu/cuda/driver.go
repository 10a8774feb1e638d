package cuda

import (
	"time"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// driverFuncs are the CUDA driver API functions gpuscout binds, with the _v2
// names of the CUDA 3.2/4.0 ABI where the signature is the same; never
// cuCtxSynchronize_v2, whose newer signature differs.
type driverFuncs struct {
	init             func(flags uint32) int32
	driverGetVersion func(v *int32) int32
	deviceGetCount   func(n *int32) int32
	deviceGet        func(dev *int32, ordinal int32) int32
	deviceGetName    func(buf *byte, n int32, dev int32) int32
	deviceTotalMem   func(bytes *uint64, dev int32) int32
	deviceGetAttr    func(v *int32, attr int32, dev int32) int32
	deviceGetPCIBus  func(buf *byte, n int32, dev int32) int32
	deviceGetUUID    func(uuid *[16]byte, dev int32) int32
	primaryRetain    func(ctx *uintptr, dev int32) int32
	primaryRelease   func(dev int32) int32
	ctxSetCurrent    func(ctx uintptr) int32
	streamCreate     func(s *uintptr, flags uint32) int32
	streamDestroy    func(s uintptr) int32
	streamSync       func(s uintptr) int32
	memAlloc         func(p *uint64, n uint64) int32
	memFree          func(p uint64) int32
	memAllocHost     func(p *unsafe.Pointer, n uint64) int32
	memFreeHost      func(p unsafe.Pointer) int32
	memcpyHtoD       func(dst uint64, src unsafe.Pointer, n uint64, s uintptr) int32
	memcpyDtoH       func(dst unsafe.Pointer, src uint64, n uint64, s uintptr) int32
	memcpyDtoD       func(dst, src uint64, n uint64, s uintptr) int32
	memsetD32        func(dst uint64, v uint32, n uint64, s uintptr) int32
	eventCreate      func(e *uintptr, flags uint32) int32
	eventRecord      func(e, s uintptr) int32
	eventSync        func(e uintptr) int32
	eventElapsed     func(ms *float32, start, end uintptr) int32
	eventDestroy     func(e uintptr) int32
	memGetInfo       func(free, total *uint64) int32
	canAccessPeer    func(can *int32, dev, peer int32) int32
	enablePeer       func(peerCtx uintptr, flags uint32) int32
	memcpyPeer       func(dst uint64, dstCtx uintptr, src uint64, srcCtx uintptr, n uint64, s uintptr) int32
	getErrorName     func(code int32, s *unsafe.Pointer) int32
	getErrorString   func(code int32, s *unsafe.Pointer) int32
}

func (f *driverFuncs) table() []dl.Symbol {
	return []dl.Symbol{
		dl.Sym(&f.init, "cuInit"),
		dl.Sym(&f.driverGetVersion, "cuDriverGetVersion"),
		dl.Sym(&f.deviceGetCount, "cuDeviceGetCount"),
		dl.Sym(&f.deviceGet, "cuDeviceGet"),
		dl.Sym(&f.deviceGetName, "cuDeviceGetName"),
		dl.Sym(&f.deviceTotalMem, "cuDeviceTotalMem_v2"),
		dl.Sym(&f.deviceGetAttr, "cuDeviceGetAttribute"),
		dl.OptSym(&f.deviceGetPCIBus, "cuDeviceGetPCIBusId"),
		dl.OptSym(&f.deviceGetUUID, "cuDeviceGetUuid_v2", "cuDeviceGetUuid"),
		dl.Sym(&f.primaryRetain, "cuDevicePrimaryCtxRetain"),
		dl.Sym(&f.primaryRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
		dl.Sym(&f.ctxSetCurrent, "cuCtxSetCurrent"),
		dl.Sym(&f.streamCreate, "cuStreamCreate"),
		dl.Sym(&f.streamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy"),
		dl.Sym(&f.streamSync, "cuStreamSynchronize"),
		dl.Sym(&f.memAlloc, "cuMemAlloc_v2"),
		dl.Sym(&f.memFree, "cuMemFree_v2"),
		dl.Sym(&f.memAllocHost, "cuMemAllocHost_v2"),
		dl.Sym(&f.memFreeHost, "cuMemFreeHost"),
		dl.Sym(&f.memcpyHtoD, "cuMemcpyHtoDAsync_v2"),
		dl.Sym(&f.memcpyDtoH, "cuMemcpyDtoHAsync_v2"),
		dl.Sym(&f.memcpyDtoD, "cuMemcpyDtoDAsync_v2"),
		dl.Sym(&f.memsetD32, "cuMemsetD32Async"),
		dl.Sym(&f.eventCreate, "cuEventCreate"),
		dl.Sym(&f.eventRecord, "cuEventRecord"),
		dl.Sym(&f.eventSync, "cuEventSynchronize"),
		// CUDA 13's header maps cuEventElapsedTime to _v2 (same signature).
		dl.Sym(&f.eventElapsed, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
		dl.Sym(&f.eventDestroy, "cuEventDestroy_v2", "cuEventDestroy"),
		dl.OptSym(&f.memGetInfo, "cuMemGetInfo_v2"),
		dl.OptSym(&f.canAccessPeer, "cuDeviceCanAccessPeer"),
		dl.OptSym(&f.enablePeer, "cuCtxEnablePeerAccess"),
		dl.OptSym(&f.memcpyPeer, "cuMemcpyPeerAsync"),
		// The driver's own names and messages for its codes (CUDA 6.0 on).
		dl.OptSym(&f.getErrorName, "cuGetErrorName"),
		dl.OptSym(&f.getErrorString, "cuGetErrorString"),
	}
}

// Device attributes (CUdevice_attribute) read for gpu.Info.
const (
	attrClockRateKHz     = 13
	attrMultiprocessors  = 16
	attrECCEnabled       = 32
	attrMemClockKHz      = 36
	attrMemBusWidthBits  = 37
	attrComputeCapMajor  = 75
	attrComputeCapMinor  = 76
	streamNonBlocking    = 1 // CU_STREAM_NON_BLOCKING
	eventDefault         = 0 // CU_EVENT_DEFAULT: timing enabled
	uuidBytes            = 16
	pciBusIDBufferLength = 32
)

// driver is a loaded, bound and initialised libcuda.
type driver struct {
	lib        *dl.Library
	bound      dl.Bound
	f          driverFuncs
	version    string // "13.0"
	versionNum int    // cuDriverGetVersion's 13000
}

// loadDriver opens, binds and initialises libcuda; cuInit runs under the
// watchdog's deadline. The driver's version is read before cuInit (it
// needs no initialisation), so that a failed cuInit still says which
// driver failed.
func loadDriver(env dl.Env, deadline time.Duration, exit func(string)) (*driver, error) {
	lib, err := dl.OpenEnv(dl.CUDA, env)
	if err != nil {
		return nil, err
	}
	d := &driver{lib: lib}
	if d.bound, err = lib.Bind(d.f.table()); err != nil {
		return nil, err
	}
	var v int32
	if err := cuErr(d, -1, "cuDriverGetVersion", d.f.driverGetVersion(&v)); err != nil {
		return nil, err
	}
	d.version, d.versionNum = dl.CUDAVersion(int(v)), int(v)
	var rc int32
	guarded("CUDA", "cuInit", deadline, exit, func() { rc = d.f.init(0) })
	if err := cuErr(d, -1, "cuInit", rc); err != nil {
		return nil, err
	}
	return d, nil
}

// errorText asks the driver for a code's name or message (cuGetErrorName,
// cuGetErrorString; neither needs cuInit); "" when it has none.
func (d *driver) errorText(f func(int32, *unsafe.Pointer) int32, code int32) string {
	if f == nil {
		return ""
	}
	var p unsafe.Pointer
	if f(code, &p) != 0 || p == nil {
		return ""
	}
	return cStringAt(p, 256)
}

// cStringAt copies a NUL-terminated C string of at most max bytes.
func cStringAt(p unsafe.Pointer, max int) string {
	n := 0
	for n < max && *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}
