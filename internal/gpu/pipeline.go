package gpu

import "time"

// Pipeliner is a Device that can time work it keeps queued: the sustained
// GEMM's way of keeping a GPU busy. Time waits for what it timed, so
// between two timed regions the device idles while the host records,
// waits and queues again; Pipeline never lets the queue drain.
type Pipeliner interface {
	// Pipeline queues batch (which queues work on this device) once
	// untimed, then again and again, with a timestamp on the device's
	// stream between batches, and
	// queues the next batch before it waits for the one before: the device
	// always has a batch queued while the host waits. Before each batch it
	// asks more(done), done being the batches finished so far; when more
	// is false it waits for what is queued and returns every timed batch's
	// device time, in order. batch and more run on the device's own thread: they
	// must not wait for another goroutine that uses this device.
	Pipeline(batch func() error, more func(done int) bool) ([]time.Duration, error)
}
