package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// worker owns one GPU's OS thread: a goroutine locked to its thread, on which
// the device's primary context is current, runs every driver and cuBLAS call
// for that GPU (CUDA contexts are per thread). Calls from any goroutine are
// handed to it one at a time.
//
// A watchdog watches the call in progress: a driver call that has not
// returned after the deadline cannot be interrupted, so the watchdog runs
// the hooks of gpu.OnHang (bench writes what it measured so far), then
// reports which call hung and ends the process through exit.
type worker struct {
	label    string // "GPU 0", for messages
	deadline time.Duration
	exit     func(msg string)

	mu   sync.Mutex // one call at a time
	req  chan func()
	done chan struct{}
	quit chan struct{}

	busySince atomic.Int64 // unix nanoseconds the current call started; 0 when idle
	busyName  atomic.Pointer[string]
	stopped   atomic.Bool
	tid       atomic.Int64 // the locked thread's id, set when it starts
	started   chan struct{}
}

func newWorker(label string, deadline time.Duration, exit func(string)) *worker {
	w := &worker{label: label, deadline: deadline, exit: exit, req: make(chan func()),
		done: make(chan struct{}), quit: make(chan struct{}), started: make(chan struct{})}
	go w.loop()
	go w.watch()
	<-w.started
	return w
}

func (w *worker) loop() {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	w.tid.Store(int64(syscall.Gettid()))
	close(w.started)
	for {
		select {
		case f := <-w.req:
			f()
			w.done <- struct{}{}
		case <-w.quit:
			return
		}
	}
}

// do runs f on the worker's thread under the watchdog; name says what f
// calls, for the watchdog's message. Called from the worker's own thread
// (inside a region f runs there, such as Device.Time's), it runs f at once:
// a locked thread runs only its goroutine, so the thread id says who calls.
func (w *worker) do(name string, f func()) error {
	if int64(syscall.Gettid()) == w.tid.Load() {
		outer := w.busyName.Load()
		w.mark(name)
		f()
		// Back in the region: its own code runs again, with a fresh deadline.
		w.busyName.Store(outer)
		w.busySince.Store(time.Now().UnixNano())
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped.Load() {
		return fmt.Errorf("%s: %s after Close: %w", w.label, name, errWorkerStopped)
	}
	w.busyName.Store(&name)
	w.busySince.Store(time.Now().UnixNano())
	w.req <- f
	<-w.done
	w.busySince.Store(0)
	return nil
}

// mark names the driver call the worker's thread is about to make, inside
// a region, and starts its deadline.
func (w *worker) mark(name string) {
	w.busyName.Store(&name)
	w.busySince.Store(time.Now().UnixNano())
}

// watch polls the call in progress a few times per deadline.
func (w *worker) watch() {
	tick := max(w.deadline/8, time.Millisecond)
	t := time.NewTicker(tick)
	defer t.Stop()
	var reported int64
	for {
		select {
		case <-w.quit:
			return
		case now := <-t.C:
			since := w.busySince.Load()
			if since == 0 || since == reported || now.Sub(time.Unix(0, since)) <= w.deadline {
				continue
			}
			reported = since
			name := "a driver call"
			if p := w.busyName.Load(); p != nil {
				name = *p
			}
			msg := hungMessage(w.label, name, w.deadline)
			gpu.Hung(msg) // what was measured so far is written first
			w.exit(msg)
		}
	}
}

// stop ends the worker's goroutines; calls after it fail.
func (w *worker) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped.Swap(true) {
		return
	}
	close(w.quit)
}

func hungMessage(label, name string, deadline time.Duration) string {
	return fmt.Sprintf("gpuscout: %s: %s has not returned after %s: the GPU driver is hung, and a hung "+
		"driver call cannot be interrupted, so gpuscout stops here (check nvidia-smi and the kernel log)",
		label, name, deadline)
}

// errWorkerStopped: a call on a device after Close.
var errWorkerStopped = errors.New("the device is closed")

// guarded runs f, which makes the driver call name, on the calling
// goroutine under a deadline of its own: for the calls made before a
// device's thread exists (cuInit, NVML's initialisation).
func guarded(label, name string, deadline time.Duration, exit func(string), f func()) {
	t := time.AfterFunc(deadline, func() {
		msg := hungMessage(label, name, deadline)
		gpu.Hung(msg)
		exit(msg)
	})
	defer t.Stop()
	f()
}
