package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// Device is one NVIDIA GPU driven through the CUDA driver API, cuBLAS and
// (for FP8 products) cuBLASLt: a gpu.Device, and a gpu.Sampler when NVML
// knows the GPU.
type Device struct {
	ord  int32 // the driver's ordinal
	dev  int32 // the CUdevice handle cuDeviceGet gave for it
	drv  *driver
	blas *blas // nil when no cuBLAS could start
	// blasErr says why blas is nil; blasNotes the libraries passed over.
	blasErr   error
	blasNotes []string
	lt        *blasLt // nil when no cuBLASLt could start
	// ltErr says why lt is nil; ltNotes the libraries passed over.
	ltErr   error
	ltNotes []string

	w        *worker
	info     gpu.Info
	nv       *nvml.Device // the GPU: telemetry, modes
	nvSelf   *nvml.Device // the device CUDA sees: the GPU, or its MIG instance
	selfPIDs map[int]bool // this process as NVML may number it (see OtherProcesses)
	release  func()       // drops this device's hold on shared NVML

	// What Open was given, for what opens later (NCCL).
	timeout time.Duration
	exit    func(string)
	env     dl.Env

	// Owned by the worker's thread.
	ctx, stream, start, end, handle uintptr
	// cuBLASLt's handle, and what FP8 products use (made at the first):
	// the device's fp32 1.0 that scales A and B, the workspace, the plan
	// of the last shape.
	ltHandle        uintptr
	ltScale, ltWork uint64
	ltPlan          *ltPlan

	mu     sync.Mutex
	host   map[unsafe.Pointer]int64 // pinned host allocations
	closed bool
}

var _ gpu.Device = (*Device)(nil)
var _ gpu.Sampler = (*Device)(nil)
var _ gpu.ProcessLister = (*Device)(nil)
var _ gpu.Pipeliner = (*Device)(nil)

// call runs a driver call on the device's thread and maps its result.
func (d *Device) call(name string, f func() int32) error {
	var rc int32
	if err := d.w.do(name, func() { rc = f() }); err != nil {
		return err
	}
	return cuErr(d.drv, int(d.ord), name, rc)
}

// setup runs on the worker thread: the primary context, made current for
// good, one non-blocking stream, two timing events, the free memory, a
// cuBLAS handle on that stream from the first cuBLAS that starts, and a
// cuBLASLt handle from the first cuBLASLt that starts (the one beside that
// cuBLAS first).
func (d *Device) setup(picker *libPicker[*blas], ltPicker *libPicker[*blasLt]) error {
	f := &d.drv.f
	steps := []struct {
		name string
		fn   func() int32
	}{
		{"cuDevicePrimaryCtxRetain", func() int32 { return f.primaryRetain(&d.ctx, d.dev) }},
		{"cuCtxSetCurrent", func() int32 { return f.ctxSetCurrent(d.ctx) }},
		{"cuStreamCreate", func() int32 { return f.streamCreate(&d.stream, streamNonBlocking) }},
		{"cuEventCreate(start)", func() int32 { return f.eventCreate(&d.start, eventDefault) }},
		{"cuEventCreate(end)", func() int32 { return f.eventCreate(&d.end, eventDefault) }},
	}
	for _, s := range steps {
		if err := d.call(s.name, s.fn); err != nil {
			return err
		}
	}
	if f.memGetInfo != nil {
		var free, total uint64
		if d.call("cuMemGetInfo_v2", func() int32 { return f.memGetInfo(&free, &total) }) == nil {
			d.info.MemoryFreeBytes = int64(free)
		}
	}
	for b := picker.current(); b != nil; b = picker.current() {
		err := d.startBLAS(b)
		if err == nil {
			d.blas = b
			break
		}
		if errors.Is(err, errWorkerStopped) {
			return err
		}
		picker.drop(b, err)
	}
	d.blasNotes = picker.skipped()
	if d.blas == nil {
		d.blasErr = picker.noneError(d.drv.versionNum)
		d.info.Libraries["cublas_error"] = d.blasErr.Error()
	} else {
		d.info.Libraries["cublas"] = d.blas.lib.Path
		if d.blas.version != "" {
			d.info.Libraries["cublas_version"] = d.blas.version
		}
	}
	ltPicker.prefer(d.blas.companion())
	for lt := ltPicker.current(); lt != nil; lt = ltPicker.current() {
		err := d.startLt(lt)
		if err == nil {
			d.lt = lt
			break
		}
		if errors.Is(err, errWorkerStopped) {
			return err
		}
		ltPicker.drop(lt, err)
	}
	d.ltNotes = ltPicker.skipped()
	if d.lt == nil {
		d.ltErr = ltNoneError(ltPicker, d.drv.versionNum)
		d.info.Libraries["cublaslt_error"] = d.ltErr.Error()
		return nil
	}
	d.info.Libraries["cublaslt"] = d.lt.lib.Path
	if d.lt.version != "" {
		d.info.Libraries["cublaslt_version"] = d.lt.version
	}
	return nil
}

// startBLAS creates a cuBLAS handle of b on the device's stream; on a
// failure nothing of it is left.
func (d *Device) startBLAS(b *blas) error {
	var rc int32
	name := "cublasCreate_v2"
	err := d.w.do("cuBLAS setup", func() {
		if rc = b.f.create(&d.handle); rc != 0 {
			d.handle = 0
			return
		}
		name = "cublasSetStream_v2"
		if rc = b.f.setStrm(d.handle, d.stream); rc == 0 && b.f.setMath != nil {
			name = "cublasSetMathMode"
			rc = b.f.setMath(d.handle, mathDefault)
		}
		if rc != 0 {
			b.f.destroy(d.handle)
			d.handle = 0
		}
	})
	if err != nil {
		return err
	}
	return blasErr(int(d.ord), name, rc)
}

// BLASError says why GEMMs cannot run on this GPU (no cuBLAS starts: each
// library tried and why, and the fix); nil when cuBLAS works.
func (d *Device) BLASError() error { return d.blasErr }

// BLASSkipped lists the cuBLAS libraries passed over before the one in
// use, and why (built for a newer CUDA than the driver's, cublasCreate
// failed).
func (d *Device) BLASSkipped() []string { return slices.Clone(d.blasNotes) }

// OtherProcesses lists the compute processes other than this one on the
// GPU (on its MIG instance, for one), through NVML; gpu.ErrUnsupported
// without NVML.
//
// This process is left out by its PID and, in a container whose PID
// namespace NVML does not translate, as the process that appeared on the
// GPU while Open created this process's context.
func (d *Device) OtherProcesses() ([]gpu.Process, error) {
	if d.nvSelf == nil {
		return nil, fmt.Errorf("GPU %d: listing its processes needs NVML: %w", d.ord, gpu.ErrUnsupported)
	}
	ps, err := d.nvSelf.OtherProcesses()
	if err != nil {
		return nil, err
	}
	out := ps[:0]
	for _, p := range ps {
		if !d.selfPIDs[p.PID] {
			out = append(out, p)
		}
	}
	return out, nil
}

// computePIDs are the PIDs computing on the GPU now; nil when NVML cannot
// say.
func (d *Device) computePIDs() map[int]bool {
	if d.nvSelf == nil {
		return nil
	}
	ps, err := d.nvSelf.ComputeProcesses()
	if err != nil {
		return nil
	}
	m := make(map[int]bool, len(ps))
	for _, p := range ps {
		m[p.PID] = true
	}
	return m
}

// notSelf records the PIDs that appeared on the GPU while this process
// created its context (before: the PIDs just before): this process, as
// NVML numbers it.
func (d *Device) notSelf(before map[int]bool) {
	after := d.computePIDs()
	if before == nil || after == nil {
		return
	}
	for pid := range after {
		if !before[pid] {
			if d.selfPIDs == nil {
				d.selfPIDs = map[int]bool{}
			}
			d.selfPIDs[pid] = true
		}
	}
}

// NVML is the GPU's NVML device (the whole GPU for a MIG instance), nil
// without NVML: for doctor's checks of modes, clocks and memory health.
func (d *Device) NVML() *nvml.Device { return d.nv }

// Info describes the GPU (driver attributes, completed by NVML).
func (d *Device) Info() gpu.Info {
	i := d.info
	i.Libraries = make(map[string]string, len(d.info.Libraries))
	for k, v := range d.info.Libraries {
		i.Libraries[k] = v
	}
	return i
}

// Sample reads NVML's telemetry for this GPU.
func (d *Device) Sample() (gpu.Sample, error) {
	if d.nv == nil {
		return gpu.Sample{}, fmt.Errorf("GPU %d: no NVML telemetry: %w", d.ord, gpu.ErrUnsupported)
	}
	return d.nv.Sample()
}

// Alloc reserves device memory (cuMemAlloc_v2).
func (d *Device) Alloc(bytes int64) (gpu.Ptr, error) {
	if bytes <= 0 {
		return 0, fmt.Errorf("alloc: %d bytes; want at least 1", bytes)
	}
	var p uint64
	err := d.call("cuMemAlloc_v2", func() int32 { return d.drv.f.memAlloc(&p, uint64(bytes)) })
	return gpu.Ptr(p), err
}

// Free releases device memory (cuMemFree_v2).
func (d *Device) Free(p gpu.Ptr) error {
	if p == 0 {
		return nil
	}
	return d.call("cuMemFree_v2", func() int32 { return d.drv.f.memFree(uint64(p)) })
}

// HostAlloc returns page-locked host memory (cuMemAllocHost_v2).
func (d *Device) HostAlloc(bytes int64) ([]byte, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("host alloc: %d bytes; want at least 1", bytes)
	}
	var p unsafe.Pointer
	if err := d.call("cuMemAllocHost_v2", func() int32 { return d.drv.f.memAllocHost(&p, uint64(bytes)) }); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("GPU %d: cuMemAllocHost_v2 returned no memory", d.ord)
	}
	d.mu.Lock()
	d.host[p] = bytes
	d.mu.Unlock()
	return unsafe.Slice((*byte)(p), bytes), nil
}

// HostFree releases memory from HostAlloc (cuMemFreeHost).
func (d *Device) HostFree(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	d.mu.Lock()
	_, ok := d.host[p]
	delete(d.host, p)
	d.mu.Unlock()
	if !ok {
		return fmt.Errorf("GPU %d: host free of memory HostAlloc did not return", d.ord)
	}
	return d.call("cuMemFreeHost", func() int32 { return d.drv.f.memFreeHost(p) })
}

// Upload copies host bytes to the device and waits for the copy.
func (d *Device) Upload(dst gpu.Ptr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(src))
	err := d.call("cuMemcpyHtoDAsync_v2+cuStreamSynchronize", func() int32 {
		if rc := d.drv.f.memcpyHtoD(uint64(dst), p, uint64(len(src)), d.stream); rc != 0 {
			return rc
		}
		return d.drv.f.streamSync(d.stream)
	})
	runtime.KeepAlive(src)
	return err
}

// Download copies device bytes to the host and waits for the copy.
func (d *Device) Download(dst []byte, src gpu.Ptr) error {
	if len(dst) == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(dst))
	err := d.call("cuMemcpyDtoHAsync_v2+cuStreamSynchronize", func() int32 {
		if rc := d.drv.f.memcpyDtoH(p, uint64(src), uint64(len(dst)), d.stream); rc != 0 {
			return rc
		}
		return d.drv.f.streamSync(d.stream)
	})
	runtime.KeepAlive(dst)
	return err
}

// Copy queues a device-to-device copy of n bytes on the device's stream.
func (d *Device) Copy(dst, src gpu.Ptr, n int64) error {
	if n < 0 {
		return fmt.Errorf("copy: %d bytes; want 0 or more", n)
	}
	if n == 0 {
		return nil
	}
	return d.call("cuMemcpyDtoDAsync_v2", func() int32 { return d.drv.f.memcpyDtoD(uint64(dst), uint64(src), uint64(n), d.stream) })
}

// Fill32 queues setting n 32-bit words at dst to v.
func (d *Device) Fill32(dst gpu.Ptr, v uint32, n int64) error {
	if n < 0 {
		return fmt.Errorf("fill: %d words; want 0 or more", n)
	}
	if n == 0 {
		return nil
	}
	return d.call("cuMemsetD32Async", func() int32 { return d.drv.f.memsetD32(uint64(dst), v, uint64(n), d.stream) })
}

// Gemm queues C = A·B (column-major, no transposes) with cublasGemmEx:
// fp32, tf32 (CUBLAS_COMPUTE_32F_FAST_TF32), bf16 and fp16 with fp32
// accumulation, fp64. fp8 (E4M3, A transposed, a bf16 C) runs through
// cublasLtMatmul (gemmFP8) on a GPU that has FP8 tensor cores, and is
// gpu.ErrUnsupported on one that has not.
func (d *Device) Gemm(dt gpu.DType, m, n, k int, a, b, c gpu.Ptr) error {
	if dt == gpu.FP8 {
		return d.gemmFP8(m, n, k, a, b, c)
	}
	elem, compute, ok := gemmTypes(dt)
	if !ok {
		return fmt.Errorf("GPU %d: gemm %s: %w", d.ord, dt, gpu.ErrUnsupported)
	}
	if err := checkGemmDims(m, n, k); err != nil {
		return err
	}
	if d.blas == nil {
		return fmt.Errorf("GPU %d: gemm needs cuBLAS: %w", d.ord, d.blasErr)
	}
	// alpha and beta are read through pointers, in the compute type.
	var alpha, beta unsafe.Pointer
	if compute == computeF64 {
		one, zero := new(float64), new(float64)
		*one = 1
		alpha, beta = unsafe.Pointer(one), unsafe.Pointer(zero)
	} else {
		one, zero := new(float32), new(float32)
		*one = 1
		alpha, beta = unsafe.Pointer(one), unsafe.Pointer(zero)
	}
	var rc int32
	err := d.w.do("cublasGemmEx", func() {
		rc = d.blas.f.gemmEx(d.handle, opN, opN, int32(m), int32(n), int32(k), alpha, uint64(a), elem, int32(m),
			uint64(b), elem, int32(k), beta, uint64(c), elem, int32(m), compute, gemmDefault)
	})
	runtime.KeepAlive(alpha)
	runtime.KeepAlive(beta)
	if err != nil {
		return err
	}
	return blasErr(int(d.ord), "cublasGemmEx", rc)
}

// Time runs f, which queues work on this device, between two CUDA events
// and returns the GPU time between them, after waiting for the work. The
// whole region runs on the device's thread, so no hand-off between f's calls
// lengthens it; f must only call this and other devices' methods, never wait
// for another goroutine that uses this device.
func (d *Device) Time(f func() error) (time.Duration, error) {
	var ms float32
	var rc int32
	var ferr error
	var fn string
	err := d.w.do("a timed region", func() {
		step := func(name string) { fn = name; d.w.mark(name) }
		step("cuEventRecord(start)")
		if rc = d.drv.f.eventRecord(d.start, d.stream); rc != 0 {
			return
		}
		if ferr = f(); ferr != nil {
			step("cuStreamSynchronize")
			rc = d.drv.f.streamSync(d.stream)
			return
		}
		step("cuEventRecord(end)")
		if rc = d.drv.f.eventRecord(d.end, d.stream); rc != 0 {
			return
		}
		step("cuEventSynchronize")
		if rc = d.drv.f.eventSync(d.end); rc != 0 {
			return
		}
		step("cuEventElapsedTime")
		rc = d.drv.f.eventElapsed(&ms, d.start, d.end)
	})
	if err != nil {
		return 0, err
	}
	if ferr != nil {
		return 0, errors.Join(ferr, cuErr(d.drv, int(d.ord), fn, rc))
	}
	if err := cuErr(d.drv, int(d.ord), fn, rc); err != nil {
		return 0, err
	}
	return eventDuration(ms), nil
}

// pipelineDepth is how many timed batches Pipeline keeps queued ahead of
// the one it waits for: enough to ride out the host being late by a few
// batches (a descheduled thread, a garbage collection).
const pipelineDepth = 3

// Pipeline queues batch again and again with an event after each, keeping
// pipelineDepth batches queued beyond the one it waits for, so the GPU
// always has work while the host waits and records (gpu.Pipeliner):
// back-to-back work, each batch timed by the GPU between the events
// around it. A first batch is queued untimed, ahead of the first event, so
// that the first time is the GPU's too, not the host's launch. The events
// are the run's own; the whole run is one region of the device's thread,
// each driver call under the watchdog's deadline.
func (d *Device) Pipeline(batch func() error, more func(done int) bool) ([]time.Duration, error) {
	var times []time.Duration
	var rc int32
	var fn string
	var ferr error
	err := d.w.do("a pipelined region", func() {
		call := func(name string, f func() int32) bool {
			fn = name
			d.w.mark(name)
			rc = f()
			return rc == 0
		}
		var evs [pipelineDepth + 2]uintptr
		defer func() {
			for _, e := range evs {
				if e != 0 {
					if r := d.drv.f.eventDestroy(e); r != 0 && rc == 0 {
						fn, rc = "cuEventDestroy_v2", r
					}
				}
			}
		}()
		for i := range evs {
			if !call("cuEventCreate", func() int32 { return d.drv.f.eventCreate(&evs[i], eventDefault) }) {
				return
			}
		}
		ev := func(i int) uintptr { return evs[i%len(evs)] }
		queue := func(end uintptr) bool {
			if ferr = batch(); ferr != nil {
				call("cuStreamSynchronize", func() int32 { return d.drv.f.streamSync(d.stream) })
				return false
			}
			return end == 0 || call("cuEventRecord", func() int32 { return d.drv.f.eventRecord(end, d.stream) })
		}
		if !more(0) || !queue(0) || !call("cuEventRecord", func() int32 { return d.drv.f.eventRecord(ev(0), d.stream) }) {
			return
		}
		// queued counts the timed batches queued: batch k runs between
		// events k and k+1.
		queued, stop := 0, false
		for k := 0; ; k++ {
			for !stop && queued < k+1+pipelineDepth {
				if stop = !more(k); stop && queued > k {
					break
				}
				if stop { // nothing queued to wait for: done
					return
				}
				if !queue(ev(queued + 1)) {
					return
				}
				queued++
			}
			if k >= queued {
				return
			}
			var ms float32
			start, end := ev(k), ev(k+1)
			if !call("cuEventSynchronize", func() int32 { return d.drv.f.eventSync(end) }) ||
				!call("cuEventElapsedTime", func() int32 { return d.drv.f.eventElapsed(&ms, start, end) }) {
				return
			}
			times = append(times, eventDuration(ms))
		}
	})
	if err != nil {
		return nil, err
	}
	if ferr != nil {
		return nil, errors.Join(ferr, cuErr(d.drv, int(d.ord), fn, rc))
	}
	if err := cuErr(d.drv, int(d.ord), fn, rc); err != nil {
		return nil, err
	}
	return times, nil
}

// Sync waits for the device's stream.
func (d *Device) Sync() error {
	return d.call("cuStreamSynchronize", func() int32 { return d.drv.f.streamSync(d.stream) })
}

// Close frees the device's pinned memory, cuBLASLt plan, memory and
// handle, cuBLAS handle, events and stream, releases the primary context
// and ends its thread. Device memory not yet freed goes with the context.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	host := d.host
	d.host = nil
	d.mu.Unlock()
	var errs []error
	f := &d.drv.f
	for p := range host {
		errs = append(errs, d.call("cuMemFreeHost", func() int32 { return f.memFreeHost(p) }))
	}
	errs = append(errs, d.closeLt()...)
	if d.blas != nil && d.handle != 0 {
		var rc int32
		if err := d.w.do("cublasDestroy_v2", func() { rc = d.blas.f.destroy(d.handle) }); err == nil {
			errs = append(errs, blasErr(int(d.ord), "cublasDestroy_v2", rc))
		}
	}
	for _, s := range []struct {
		name string
		h    uintptr
		fn   func(uintptr) int32
	}{{"cuEventDestroy_v2", d.start, f.eventDestroy}, {"cuEventDestroy_v2", d.end, f.eventDestroy},
		{"cuStreamDestroy_v2", d.stream, f.streamDestroy}} {
		if s.h != 0 {
			errs = append(errs, d.call(s.name, func() int32 { return s.fn(s.h) }))
		}
	}
	if d.ctx != 0 {
		errs = append(errs, d.call("cuDevicePrimaryCtxRelease_v2", func() int32 { return f.primaryRelease(d.dev) }))
	}
	d.w.stop()
	if d.release != nil {
		d.release()
	}
	return errors.Join(errs...)
}
