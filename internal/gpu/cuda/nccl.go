package cuda

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// ncclResult_t names (nccl.h).
var ncclNames = map[int32]string{0: "ncclSuccess", 1: "ncclUnhandledCudaError", 2: "ncclSystemError",
	3: "ncclInternalError", 4: "ncclInvalidArgument", 5: "ncclInvalidUsage", 6: "ncclRemoteError", 7: "ncclInProgress"}

func ncclErr(fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	name, ok := ncclNames[rc]
	if !ok {
		name = fmt.Sprintf("ncclResult %d", rc)
	}
	return &Error{Func: fn, Device: -1, Code: rc, Name: name}
}

// ncclDataType_t and ncclRedOp_t values.
const (
	ncclFloat16  = 6
	ncclFloat32  = 7
	ncclFloat64  = 8
	ncclBfloat16 = 9
	ncclSum      = 0
)

type ncclFuncs struct {
	commInitAll func(comms *uintptr, ndev int32, devlist *int32) int32
	commDestroy func(comm uintptr) int32
	allReduce   func(send, recv uint64, count uint64, dtype int32, op int32, comm uintptr, stream uintptr) int32
	groupStart  func() int32
	groupEnd    func() int32
	lastError   func(comm uintptr) unsafe.Pointer
}

func (f *ncclFuncs) table() []dl.Symbol {
	return []dl.Symbol{
		dl.Sym(&f.commInitAll, "ncclCommInitAll"),
		dl.Sym(&f.commDestroy, "ncclCommDestroy"),
		dl.Sym(&f.allReduce, "ncclAllReduce"),
		dl.Sym(&f.groupStart, "ncclGroupStart"),
		dl.Sym(&f.groupEnd, "ncclGroupEnd"),
		// NCCL 2.13 on: what went wrong, in words ("Cuda failure 35 'CUDA
		// driver version is insufficient for CUDA runtime version'").
		dl.OptSym(&f.lastError, "ncclGetLastError"),
	}
}

// describe adds NCCL's own message to a failed call's error, and a fix when
// the message says the driver is too old for this NCCL's CUDA.
func (c *Comm) describe(err error) error {
	var e *Error
	if err == nil || !errors.As(err, &e) || c.f.lastError == nil {
		return err
	}
	if p := c.f.lastError(0); p != nil {
		e.Message = cStringAt(p, 512)
	}
	if strings.Contains(e.Message, "driver version is insufficient") {
		major := c.driverCUDA / 1000
		e.Fix = fmt.Sprintf("this NCCL is built for a newer CUDA than the driver's %s: install NCCL for CUDA %d (pip install nvidia-nccl-cu%d) "+
			"or upgrade the NVIDIA driver (source: %s)", dl.CUDAVersion(c.driverCUDA), major, major, dl.CompatSource)
	}
	return err
}

// Comm is an NCCL communicator over GPUs of this process (ncclCommInitAll),
// for the all-reduce measurement. NCCL's calls for all the GPUs are issued
// together (ncclGroupStart/End) from one locked thread of the Comm's own,
// on the devices' streams; each device's events time its part.
type Comm struct {
	devs       []*Device
	lib        *dl.Library
	version    string
	f          ncclFuncs
	comms      []uintptr
	start, end []uintptr // each GPU's timing events, created on w's thread
	w          *worker
	closed     sync.Once
	driverCUDA int
	// skipped lists the NCCL libraries passed over, and why.
	skipped []string
	// log is NCCL's debug log, read for its choice of algorithm and
	// protocol; tallies what it said for each size's all-reduces.
	log     *ncclLog
	tallies map[int64]*tally
}

// OpenComm opens the communicators for timing: NCCL's log is left as the
// user set it (setupNCCLLog without turnOn), and Choice reads it only
// where the user had NCCL write TUNING lines to a file. See openComm.
func OpenComm(devs []*Device) (*Comm, error) { return openComm(devs, false) }

// openComm loads libnccl.so.2 (loader, toolkit and wheel folders; one
// built for a newer CUDA than the driver's is skipped) and creates one
// communicator per device. When the communicators cannot be created with
// one NCCL (a CUDA 13 build on a CUDA 12 driver, found where its folder
// does not say so), the next NCCL on the machine is tried; the error, when
// none works, lists each with NCCL's own message. The devices must come
// from one Open. logOn turns NCCL's TUNING log on where the user did
// not set NCCL_DEBUG (the probe process of NCCLChoices only).
func openComm(devs []*Device, logOn bool) (*Comm, error) {
	if len(devs) == 0 {
		return nil, errors.New("nccl: no devices")
	}
	d0 := devs[0]
	list := make([]int32, len(devs))
	seen := map[int32]bool{}
	for i, d := range devs {
		if d.drv != d0.drv || seen[d.ord] {
			return nil, fmt.Errorf("nccl: GPU %d is repeated or from another Open", d.ord)
		}
		seen[d.ord] = true
		list[i] = d.ord // NCCL takes CUDA ordinals (cudaSetDevice's numbers)
	}
	env := d0.env
	env.DriverCUDA = d0.drv.versionNum
	cands := dl.Candidates(dl.NCCL, env)
	var skipped []string
	for start := 0; start <= len(cands); {
		lib, err := dl.OpenFrom(dl.NCCL, env, cands[start:])
		if err != nil {
			var oe *dl.OpenError
			if errors.As(err, &oe) {
				for _, a := range oe.TooOld() {
					skipped = append(skipped, a.Path+" skipped: "+a.Error())
				}
			}
			if len(skipped) > 0 {
				// NCCL is there but cannot run here: a failure to fix, not a
				// missing library.
				major := env.DriverCUDA / 1000
				return nil, fmt.Errorf("nccl: %s; no other NCCL loaded; fix: install NCCL for CUDA %d (pip install nvidia-nccl-cu%d) or upgrade the NVIDIA driver (source: %s)",
					strings.Join(skipped, "; "), major, major, dl.CompatSource)
			}
			return nil, err
		}
		for _, a := range lib.Tried {
			if a.TooOld != nil {
				skipped = append(skipped, a.Path+" skipped: "+a.Err)
			}
		}
		c, err := initComm(devs, lib, list, logOn)
		if err == nil {
			c.skipped = skipped
			return c, nil
		}
		what := lib.Path
		if v, verr := lib.Version(); verr == nil {
			what += " (NCCL " + v + ")"
		}
		skipped = append(skipped, what+": "+err.Error())
		k := slices.Index(cands[start:], lib.Candidate)
		if k < 0 {
			break
		}
		start += k + 1
	}
	return nil, fmt.Errorf("nccl: %s", strings.Join(skipped, "; "))
}

// initComm binds lib and creates the communicators on its own thread.
func initComm(devs []*Device, lib *dl.Library, list []int32, logOn bool) (*Comm, error) {
	d0 := devs[0]
	c := &Comm{devs: devs, lib: lib, comms: make([]uintptr, len(devs)), driverCUDA: d0.drv.versionNum}
	if _, err := lib.Bind(c.f.table()); err != nil {
		return nil, err
	}
	c.version, _ = lib.Version()
	// NCCL reads its logging's environment once, at its first log line in
	// ncclCommInitAll: set it up before (nccllog.go).
	c.log, c.tallies = setupNCCLLog(c.version, logOn), map[int64]*tally{}
	c.w = newWorker("NCCL", d0.timeout, d0.exit)
	var rc int32
	if err := c.w.do("ncclCommInitAll", func() { rc = c.f.commInitAll(&c.comms[0], int32(len(devs)), &list[0]) }); err != nil {
		c.log.close()
		return nil, err
	}
	if err := c.describe(ncclErr("ncclCommInitAll", rc)); err != nil {
		c.w.stop()
		c.log.close()
		return nil, err
	}
	c.log.opened()
	if err := c.events(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// events creates each GPU's start and end events on the Comm's thread,
// with the GPU's context current, for AllReduce to record there.
func (c *Comm) events() error {
	c.start, c.end = make([]uintptr, len(c.devs)), make([]uintptr, len(c.devs))
	var rc int32
	var fn string
	var at int
	if err := c.w.do("cuEventCreate", func() {
		for i, d := range c.devs {
			at = int(d.ord)
			fn = "cuCtxSetCurrent"
			if rc = d.drv.f.ctxSetCurrent(d.ctx); rc != 0 {
				return
			}
			fn = "cuEventCreate"
			if rc = d.drv.f.eventCreate(&c.start[i], eventDefault); rc != 0 {
				return
			}
			if rc = d.drv.f.eventCreate(&c.end[i], eventDefault); rc != 0 {
				return
			}
		}
	}); err != nil {
		return err
	}
	return cuErr(c.devs[0].drv, at, fn, rc)
}

// Skipped lists the NCCL libraries passed over before this one, and why.
func (c *Comm) Skipped() []string { return slices.Clone(c.skipped) }

// Version is NCCL's version ("2.27.3"), "" when it does not say.
func (c *Comm) Version() string { return c.version }

// Library is the NCCL file that loaded.
func (c *Comm) Library() string { return c.lib.Path }

func ncclType(dt gpu.DType) (int32, bool) {
	switch dt {
	case gpu.FP32, gpu.TF32:
		return ncclFloat32, true
	case gpu.BF16:
		return ncclBfloat16, true
	case gpu.FP16:
		return ncclFloat16, true
	case gpu.FP64:
		return ncclFloat64, true
	}
	return 0, false
}

// AllReduce sums count elements of dt across the GPUs (send[i] and recv[i]
// on devs[i]; they may be the same buffer): warmup untimed all-reduces,
// then iters timed ones, all queued back to back, and returns the GPU time
// of one timed all-reduce: the slowest device's events over iters.
// algbw = bytes / time; busbw = algbw × 2(n−1)/n.
//
// Everything runs in one region of the Comm's own thread: the warm-up is
// queued, then each GPU's start event is recorded on its stream (with its
// context made current there), then the timed all-reduces and the end
// events. So no thread hand-off stands between a start event and the
// all-reduces it times, and behind a warm-up that still keeps the GPUs
// busy the start event fires when the warm-up ends, not when the host
// recorded it: the host's own queueing of the next all-reduces is hidden
// as long as it keeps ahead of the GPUs.
func (c *Comm) AllReduce(dt gpu.DType, send, recv []gpu.Ptr, count int64, warmup, iters int) (time.Duration, error) {
	nt, ok := ncclType(dt)
	if !ok {
		return 0, fmt.Errorf("nccl all-reduce %s: %w", dt, gpu.ErrUnsupported)
	}
	if len(send) != len(c.devs) || len(recv) != len(c.devs) {
		return 0, fmt.Errorf("nccl: %d send and %d receive buffers for %d GPUs", len(send), len(recv), len(c.devs))
	}
	if count < 1 || iters < 1 || iters > 1_000_000 || warmup < 0 || warmup > 1_000_000 {
		return 0, fmt.Errorf("nccl: count %d, %d warm-up and %d timed iterations; want count ≥ 1, 0..1000000 warm-up and 1..1000000 timed", count, warmup, iters)
	}
	var rc int32
	var fn string
	var cuDev = -1 // the GPU a failed driver call was for; -1 for NCCL's
	ms := make([]float32, len(c.devs))
	launch := func(n int) bool {
		for range n {
			fn = "ncclGroupStart"
			c.w.mark("ncclGroupStart/ncclAllReduce/ncclGroupEnd")
			if rc = c.f.groupStart(); rc != 0 {
				return false
			}
			fn = "ncclAllReduce"
			for i, d := range c.devs {
				if rc = c.f.allReduce(uint64(send[i]), uint64(recv[i]), uint64(count), nt, ncclSum, c.comms[i], d.stream); rc != 0 {
					c.f.groupEnd()
					return false
				}
			}
			fn = "ncclGroupEnd"
			if rc = c.f.groupEnd(); rc != 0 {
				return false
			}
		}
		return true
	}
	// onEach makes each GPU's context current on this thread and calls f.
	onEach := func(name string, f func(i int, d *Device) int32) bool {
		for i, d := range c.devs {
			fn, cuDev = name, int(d.ord)
			c.w.mark(name)
			if rc = d.drv.f.ctxSetCurrent(d.ctx); rc != 0 {
				fn = "cuCtxSetCurrent"
				return false
			}
			if rc = f(i, d); rc != 0 {
				return false
			}
		}
		cuDev = -1
		return true
	}
	err := c.w.do("ncclAllReduce (grouped)", func() {
		_ = launch(warmup) &&
			onEach("cuEventRecord(start)", func(i int, d *Device) int32 { return d.drv.f.eventRecord(c.start[i], d.stream) }) &&
			launch(iters) &&
			onEach("cuEventRecord(end)", func(i int, d *Device) int32 { return d.drv.f.eventRecord(c.end[i], d.stream) }) &&
			onEach("cuEventSynchronize+cuEventElapsedTime", func(i int, d *Device) int32 {
				if rc := d.drv.f.eventSync(c.end[i]); rc != 0 {
					return rc
				}
				return d.drv.f.eventElapsed(&ms[i], c.start[i], c.end[i])
			})
	})
	if err != nil {
		return 0, err
	}
	if rc != 0 {
		if cuDev >= 0 {
			return 0, cuErr(c.devs[0].drv, cuDev, fn, rc)
		}
		return 0, c.describe(ncclErr(fn, rc))
	}
	c.log.note(c.tallies, count*int64(dt.ElemBytes()))
	var slowest time.Duration
	for _, m := range ms {
		slowest = max(slowest, eventDuration(m))
	}
	return slowest / time.Duration(iters), nil
}

// Choice is the algorithm and protocol NCCL's log says it chose for the
// all-reduces of bytes so far: unknown, and why, where the log could not be
// read, had no line for them, had one bench cannot read, or where NCCL chose
// differently between them.
func (c *Comm) Choice(bytes int64) gpu.Choice {
	if c.log == nil {
		return gpu.UnknownChoice("NCCL's log was not set up")
	}
	return c.tallies[bytes].choice()
}

// BusBandwidth is nccl-tests' bus bandwidth of an all-reduce of bytes on n
// GPUs taking t: bytes/t × 2(n−1)/n, in bytes per second; 0 for one GPU.
func BusBandwidth(bytes int64, n int, t time.Duration) float64 {
	if n < 2 || t <= 0 {
		return 0
	}
	return float64(bytes) / t.Seconds() * 2 * float64(n-1) / float64(n)
}

// Close destroys the communicators (before the devices close).
func (c *Comm) Close() error {
	var errs []error
	c.closed.Do(func() {
		var rc int32
		if err := c.w.do("cuEventDestroy_v2", func() {
			for i, d := range c.devs {
				if i >= len(c.start) || i >= len(c.end) {
					break
				}
				for _, e := range []uintptr{c.start[i], c.end[i]} {
					if e == 0 {
						continue
					}
					if rc = d.drv.f.ctxSetCurrent(d.ctx); rc == 0 {
						rc = d.drv.f.eventDestroy(e)
					}
					if rc != 0 {
						errs = append(errs, cuErr(d.drv, int(d.ord), "cuEventDestroy_v2", rc))
					}
				}
			}
		}); err != nil {
			errs = append(errs, err)
		}
		for _, comm := range c.comms {
			if comm == 0 {
				continue
			}
			var rc int32
			if err := c.w.do("ncclCommDestroy", func() { rc = c.f.commDestroy(comm) }); err != nil {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, ncclErr("ncclCommDestroy", rc))
		}
		c.w.stop()
		c.log.close()
	})
	return errors.Join(errs...)
}
