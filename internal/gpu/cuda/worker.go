package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// worker owns one GPU's OS thread: a goroutine locked to its thread, on which
// the device's primary context is current, runs every driver and cuBLAS call
// for that GPU (CUDA contexts are per thread). Calls from any goroutine are
// handed to it one at a time.
//
// A watchdog watches the call in progress: a driver call that has not
// returned after the deadline cannot be interrupted, so the watchdog reports
// which call hung and ends the process through exit.
type worker struct {
	dev      int
	deadline time.Duration
	exit     func(msg string)

	mu   sync.Mutex // one call at a time
	req  chan func()
	done chan struct{}
	quit chan struct{}

	busySince atomic.Int64 // unix nanoseconds the current call started; 0 when idle
	busyName  atomic.Pointer[string]
	stopped   atomic.Bool
}

func newWorker(dev int, deadline time.Duration, exit func(string)) *worker {
	w := &worker{dev: dev, deadline: deadline, exit: exit, req: make(chan func()),
		done: make(chan struct{}), quit: make(chan struct{})}
	go w.loop()
	go w.watch()
	return w
}

func (w *worker) loop() {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
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
// calls, for the watchdog's message.
func (w *worker) do(name string, f func()) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped.Load() {
		return fmt.Errorf("GPU %d: %s after Close", w.dev, name)
	}
	w.busyName.Store(&name)
	w.busySince.Store(time.Now().UnixNano())
	w.req <- f
	<-w.done
	w.busySince.Store(0)
	return nil
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
			w.exit(fmt.Sprintf("gpuscout: GPU %d: %s has not returned after %s: the GPU driver is hung, and a hung "+
				"driver call cannot be interrupted, so gpuscout stops here (check nvidia-smi and the kernel log)",
				w.dev, name, w.deadline))
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
