package cuda

import (
	"context"
	"fmt"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// Identity is what the driver says of one CUDA device without opening it.
type Identity struct {
	Ordinal int    // CUDA's number: what cuda:N and CUDA_VISIBLE_DEVICES' order give
	UUID    string // "GPU-…" as cuDeviceGetUuid gives it (a MIG instance's bytes too)
	BusID   string // "0000:00:06.0"
}

// Identify asks the driver for CUDA device ordinal's UUID and PCI bus id
// (cuInit, cuDeviceGet, cuDeviceGetUuid, cuDeviceGetPCIBusId: no context
// is created). The ordinal is CUDA's, after CUDA_VISIBLE_DEVICES and
// CUDA_DEVICE_ORDER, as PyTorch's cuda:N is.
func Identify(ordinal int, opts Options) (Identity, error) {
	if opts.CallTimeout <= 0 || opts.CallTimeout > MaxCallTimeout {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.Exit == nil {
		opts.Exit = defaultExit
	}
	env := dl.SystemEnv()
	if opts.Env != nil {
		env = *opts.Env
	}
	drv, err := loadDriver(env, opts.CallTimeout, opts.Exit)
	if err != nil {
		return Identity{}, err
	}
	var count, dev int32
	var rc int32
	guarded("CUDA", "cuDeviceGetCount", opts.CallTimeout, opts.Exit, func() { rc = drv.f.deviceGetCount(&count) })
	if err := cuErr(drv, -1, "cuDeviceGetCount", rc); err != nil {
		return Identity{}, err
	}
	if ordinal < 0 || ordinal >= int(count) {
		return Identity{}, fmt.Errorf("CUDA device %d does not exist: CUDA sees %d (after CUDA_VISIBLE_DEVICES)", ordinal, count)
	}
	guarded(fmt.Sprintf("GPU %d", ordinal), "cuDeviceGet", opts.CallTimeout, opts.Exit, func() { rc = drv.f.deviceGet(&dev, int32(ordinal)) })
	if err := cuErr(drv, ordinal, "cuDeviceGet", rc); err != nil {
		return Identity{}, err
	}
	id := Identity{Ordinal: ordinal}
	if f := drv.f.deviceGetUUID; f != nil {
		var u [uuidBytes]byte
		guarded(fmt.Sprintf("GPU %d", ordinal), "cuDeviceGetUuid", opts.CallTimeout, opts.Exit, func() { rc = f(&u, dev) })
		if rc == 0 {
			id.UUID = formatUUID(u)
		}
	}
	if f := drv.f.deviceGetPCIBus; f != nil {
		buf := make([]byte, pciBusIDBufferLength)
		guarded(fmt.Sprintf("GPU %d", ordinal), "cuDeviceGetPCIBusId", opts.CallTimeout, opts.Exit, func() { rc = f(&buf[0], int32(len(buf)), dev) })
		if rc == 0 {
			id.BusID = cString(buf)
		}
	}
	if id.UUID == "" && id.BusID == "" {
		return id, fmt.Errorf("GPU %d: the driver gives neither its UUID nor its PCI bus id", ordinal)
	}
	return id, nil
}

// SamplerFor is the NVML telemetry of CUDA device ordinal (bench workload's
// cuda:N), found by UUID, else PCI bus id, never by index: NVML numbers GPUs
// in PCI order and ignores CUDA_VISIBLE_DEVICES, so NVML's index N is
// another GPU whenever CUDA's numbering differs. For a MIG instance it is
// its GPU's telemetry (NVML reports power, clocks and utilisation per GPU).
// closeFn shuts NVML down.
func SamplerFor(ordinal int, opts Options) (s gpu.Sampler, closeFn func(), err error) {
	id, err := Identify(ordinal, opts)
	if err != nil {
		return nil, nil, err
	}
	env := dl.SystemEnv()
	if opts.Env != nil {
		env = *opts.Env
	}
	nv, err := nvml.OpenEnv(env)
	if err != nil {
		return nil, nil, err
	}
	nd, err := nv.FindDevice(id.UUID, id.BusID)
	if err != nil {
		nv.Close()
		return nil, nil, fmt.Errorf("CUDA device %d (%s): %w", ordinal, id.UUID, err)
	}
	return nd.Parent(), func() { nv.Close() }, nil
}

// Probe opens the GPUs (Open) and runs inspect on the result, then closes
// them, all on a goroutine of its own, and waits for it: for a diagnosis
// that must report a hung driver instead of ending the process. When a
// driver call does not return within opts.CallTimeout, or ctx ends first,
// Probe returns at once with the watchdog's message (the hung call, and
// inspect's goroutine with it, are left behind: the caller reports and
// exits). opts.Exit is replaced; "" means inspect ran to the end.
func Probe(ctx context.Context, opts Options, inspect func(devs []gpu.Device, err error)) (hung string) {
	hungc := make(chan string, 1)
	opts.Exit = func(msg string) {
		select {
		case hungc <- msg:
		default:
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		devs, err := Open(opts)
		defer func() {
			for _, d := range devs {
				_ = d.Close()
			}
		}()
		inspect(devs, err)
	}()
	select {
	case <-done:
		return ""
	case msg := <-hungc:
		return msg
	case <-ctx.Done():
		return "the GPU probe was stopped: " + ctx.Err().Error()
	}
}
