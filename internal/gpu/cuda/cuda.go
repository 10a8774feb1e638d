// Package cuda drives NVIDIA GPUs through the CUDA driver API
// (libcuda.so.1), cuBLAS and cuBLASLt, loaded at run time with purego, as
// gpu.Devices: device memory, pinned host memory, copies, fills, matrix
// products (cublasGemmEx; FP8 through cublasLtMatmul) and CUDA-event timing. Each GPU has one goroutine locked to
// one OS thread that holds its primary context and makes every call for it,
// so a Device may be used from any goroutine. A watchdog ends the process
// when a driver call hangs, naming the call. NVML, when present, completes
// each device's Info and gives its telemetry (gpu.Sampler) and the other
// programs on it (gpu.ProcessLister), found by UUID (a MIG instance's too),
// never by index.
//
// Each GPU opens on its own: one that cannot be opened is a gpu.Unopened
// whose error names the cause and the fix, beside the ones that open. The
// driver names its own error codes (cuGetErrorName, cuGetErrorString).
// cuBLAS, cuBLASLt and NCCL are chosen to match the driver's CUDA version: a library
// built for a newer CUDA major release is skipped, one that loads but does
// not start is passed over for the next, and each one passed over is
// reported with why.
package cuda

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// DefaultCallTimeout is how long one driver call may take before the
// watchdog declares the driver hung.
const DefaultCallTimeout = 60 * time.Second

// MaxCallTimeout bounds Options.CallTimeout.
const MaxCallTimeout = time.Hour

// Options choose what Open opens.
type Options struct {
	// Devices are the driver ordinals to open; empty means all.
	Devices []int
	// Env is where to look for the libraries; the zero Env means the
	// system's (dl.SystemEnv).
	Env *dl.Env
	// CallTimeout is the watchdog's deadline for one driver call: 0 means
	// DefaultCallTimeout; at most MaxCallTimeout.
	CallTimeout time.Duration
	// Exit is called with a message when a call hangs; nil prints the message
	// on stderr and exits with status 1 (tests inject their own).
	Exit func(msg string)
	// NoNVML skips NVML (Info then has only what the driver API says).
	NoNVML bool
}

// NoGPU reports whether err means this machine has no usable NVIDIA GPU:
// the driver library is absent or the driver sees no device. Callers say so
// in one line rather than report a failure.
func NoGPU(err error) bool {
	return errors.Is(err, dl.ErrNotFound) || errors.Is(err, ErrNoDevice)
}

func defaultExit(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}

// Open loads the driver (and cuBLAS and NVML where present), opens the
// chosen GPUs and returns them as gpu.Devices (*Device: type-assert for peer
// copies, NCCL and the memory bus width). With no GPU it returns an error
// for which NoGPU is true; a driver that does not start (cuInit failing:
// 802 without the fabric manager) is an error naming the code and the fix.
//
// Each GPU is opened on its own: one that cannot be (another process holds
// it in EXCLUSIVE_PROCESS mode, an Xid left it broken) is in the list as a
// *gpu.Unopened whose error names the cause and the fix, and the others
// open; gpu.OpenError tells them apart. Without a working cuBLAS the devices
// open and Gemm says why (BLASError); without cuBLASLt, FP8 products say why
// (LtError). Info.Libraries holds the files that loaded ("cuda", "cublas",
// "cublaslt", "nvml"), "cublas_version" and "cublaslt_version", and
// "cublas_error" or "cublaslt_error" when none could start.
func Open(opts Options) ([]gpu.Device, error) {
	if opts.CallTimeout < 0 || opts.CallTimeout > MaxCallTimeout {
		return nil, fmt.Errorf("call timeout %s is not in 0..%s", opts.CallTimeout, MaxCallTimeout)
	}
	if opts.CallTimeout == 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.Exit == nil {
		opts.Exit = defaultExit
	}
	env := dl.SystemEnv()
	if opts.Env != nil {
		env = *opts.Env
	}
	opts.Env = &env
	drv, err := loadDriver(env, opts.CallTimeout, opts.Exit)
	if err != nil {
		return nil, err
	}
	var count, rc int32
	guarded("CUDA", "cuDeviceGetCount", opts.CallTimeout, opts.Exit, func() { rc = drv.f.deviceGetCount(&count) })
	if err := cuErr(drv, -1, "cuDeviceGetCount", rc); err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, cuErr(drv, -1, "cuDeviceGetCount", int32(resultNoDevice))
	}
	ords, err := chooseDevices(opts.Devices, int(count))
	if err != nil {
		return nil, err
	}
	benv := env
	benv.DriverCUDA = drv.versionNum
	picker, ltPicker := newBLASPicker(benv), newLtPicker(benv)
	var nv *nvml.NVML
	var nvRefs sync.WaitGroup
	if !opts.NoNVML {
		guarded("NVML", "nvmlInit_v2", opts.CallTimeout, opts.Exit, func() {
			if n, err := nvml.OpenEnv(env); err == nil {
				nv = n
			}
		})
	}
	var devs []gpu.Device
	for _, o := range ords {
		d := newDevice(drv, int32(o), opts)
		if nv != nil {
			nvRefs.Add(1)
			d.release = sync.OnceFunc(nvRefs.Done)
		}
		err := d.identify()
		if err == nil && nv != nil {
			guarded(fmt.Sprintf("GPU %d", o), "NVML queries", opts.CallTimeout, opts.Exit, func() { d.matchNVML(nv) })
		}
		if err == nil {
			driverFill(d)
			d.placeOnNUMA()
			before := d.computePIDs()
			err = d.setup(picker, ltPicker)
			d.notSelf(before)
		}
		if err != nil {
			info := d.Info()
			err = d.explainOpen(err)
			_ = d.Close()
			devs = append(devs, &gpu.Unopened{Desc: info, Err: fmt.Errorf("GPU %d could not be opened: %w", o, err)})
			continue
		}
		devs = append(devs, d)
	}
	if nv != nil {
		go func() { nvRefs.Wait(); nv.Close() }()
	}
	return devs, nil
}

// chooseDevices validates the requested ordinals.
func chooseDevices(want []int, count int) ([]int, error) {
	if len(want) == 0 {
		out := make([]int, count)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	seen := map[int]bool{}
	for _, o := range want {
		if o < 0 || o >= count {
			return nil, fmt.Errorf("GPU %d does not exist: this machine has GPUs 0..%d", o, count-1)
		}
		if seen[o] {
			return nil, fmt.Errorf("GPU %d is chosen twice", o)
		}
		seen[o] = true
	}
	return want, nil
}

// newDevice starts a GPU's thread; nothing is asked of the driver yet.
func newDevice(drv *driver, ord int32, opts Options) *Device {
	d := &Device{ord: ord, drv: drv, host: map[unsafe.Pointer]int64{}}
	d.w = newWorker(fmt.Sprintf("GPU %d", ord), opts.CallTimeout, opts.Exit)
	d.timeout, d.exit, d.env = opts.CallTimeout, opts.Exit, *opts.Env
	d.info = gpu.Info{Index: int(ord), Runtime: drv.version, NUMANode: -1,
		Libraries: map[string]string{"cuda": drv.lib.Path}}
	return d
}

// identify reads what the driver says of the GPU without opening it: its
// CUdevice handle (cuDeviceGet: the handle every later call takes, which
// need not be the ordinal), UUID and PCI bus id.
func (d *Device) identify() error {
	f := &d.drv.f
	if err := d.call("cuDeviceGet", func() int32 { return f.deviceGet(&d.dev, d.ord) }); err != nil {
		return err
	}
	if f.deviceGetUUID != nil {
		var u [uuidBytes]byte
		if d.call("cuDeviceGetUuid", func() int32 { return f.deviceGetUUID(&u, d.dev) }) == nil {
			d.info.UUID = formatUUID(u)
		}
	}
	if f.deviceGetPCIBus != nil {
		buf := make([]byte, pciBusIDBufferLength)
		if d.call("cuDeviceGetPCIBusId", func() int32 { return f.deviceGetPCIBus(&buf[0], int32(len(buf)), d.dev) }) == nil {
			d.info.BusID = cString(buf)
		}
	}
	return nil
}

// matchNVML finds the GPU's NVML device by UUID (a MIG instance's too),
// else by PCI bus id, never by index: CUDA numbers GPUs fastest first and
// after CUDA_VISIBLE_DEVICES, NVML in PCI order. NVML then completes Info;
// a MIG instance keeps its own UUID, name and memory (NVML describes its
// GPU).
func (d *Device) matchNVML(nv *nvml.NVML) {
	nd, err := nv.FindDevice(d.info.UUID, d.info.BusID)
	if err != nil {
		return
	}
	d.nvSelf, d.nv = nd, nd.Parent()
	if !nd.IsMIG() {
		d.nv.FillInfo(&d.info)
		return
	}
	uuid := d.info.UUID
	if u, err := nd.UUID(); err == nil {
		uuid = u
	}
	d.nv.FillInfo(&d.info)
	d.info.UUID, d.info.MIG = uuid, "enabled"
	d.info.Name, d.info.MemoryBytes = "", 0 // the instance's, from the driver
	if n, err := nd.Name(); err == nil {
		d.info.Name = n
	}
}

// explainOpen completes the error of a GPU that did not open with the fix
// for its code, naming the GPU as nvidia-smi -i does and, for one held
// exclusively, its compute mode and the processes holding it.
func (d *Device) explainOpen(err error) error {
	var ce *Error
	if !errors.As(err, &ce) {
		return err
	}
	smiID, mode, holders := d.info.UUID, "", ""
	if d.nvSelf != nil {
		smiID = fmt.Sprint(d.nv.Index())
		if m, err := d.nvSelf.ComputeMode(); err == nil {
			mode = m.String()
		}
		if ps, err := d.nvSelf.OtherProcesses(); err == nil {
			holders = gpu.DescribeProcesses(ps)
		}
	}
	if fix := openFix(Result(ce.Code), smiID, mode, holders); fix != "" {
		ce.Fix = fix
	}
	return err
}

// driverFill completes Info with the driver's attributes where NVML left a
// field empty (or is absent).
func driverFill(d *Device) {
	f := &d.drv.f
	i := &d.info
	if i.Name == "" {
		buf := make([]byte, 256)
		if d.call("cuDeviceGetName", func() int32 { return f.deviceGetName(&buf[0], int32(len(buf)), d.dev) }) == nil {
			i.Name = cString(buf)
		}
	}
	if i.MemoryBytes == 0 {
		var b uint64
		if d.call("cuDeviceTotalMem_v2", func() int32 { return f.deviceTotalMem(&b, d.dev) }) == nil {
			i.MemoryBytes = int64(b)
		}
	}
	attr := func(a int32) (int, bool) {
		var v int32
		err := d.call("cuDeviceGetAttribute", func() int32 { return f.deviceGetAttr(&v, a, d.dev) })
		return int(v), err == nil
	}
	if v, ok := attr(attrMultiprocessors); ok {
		i.Multiprocs = v
	}
	if i.ComputeCap == "" {
		major, ok1 := attr(attrComputeCapMajor)
		minor, ok2 := attr(attrComputeCapMinor)
		if ok1 && ok2 {
			i.ComputeCap = fmt.Sprintf("%d.%d", major, minor)
		}
	}
	if v, ok := attr(attrClockRateKHz); ok && i.MaxClockMHz == 0 {
		i.MaxClockMHz = v / 1000
	}
	if v, ok := attr(attrMemClockKHz); ok && i.MemClockMHz == 0 {
		i.MemClockMHz = v / 1000
	}
	if v, ok := attr(attrECCEnabled); ok && i.ECC == "" {
		i.ECC = map[bool]string{true: "enabled", false: "disabled"}[v != 0]
	}
}

// MemBusWidthBits is the memory bus width the driver reports (for a
// theoretical bandwidth: 2 × memory clock × width / 8).
func (d *Device) MemBusWidthBits() (int, error) {
	var v int32
	err := d.call("cuDeviceGetAttribute(GLOBAL_MEMORY_BUS_WIDTH)", func() int32 {
		return d.drv.f.deviceGetAttr(&v, attrMemBusWidthBits, d.dev)
	})
	return int(v), err
}

// formatUUID writes a CUuuid as NVML does: "GPU-8a89bb26-423b-7217-aa80-469f70fa0196".
func formatUUID(u [uuidBytes]byte) string {
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
