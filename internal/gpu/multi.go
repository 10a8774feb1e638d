package gpu

import (
	"errors"
	"time"
)

// Peer is a Device that can reach another device of the same machine
// directly: the unit of a peer-to-peer bandwidth and latency matrix. The
// CUDA bindings implement it for NVIDIA GPUs opened together; a device of
// another kind (or another Open) is refused with an error.
type Peer interface {
	Device
	// CanAccessPeer reports whether this device can address other's memory
	// directly (NVLink or PCIe peer-to-peer).
	CanAccessPeer(other Device) (bool, error)
	// EnablePeer lets this device's copies reach other's memory directly;
	// enabling twice is not an error.
	EnablePeer(other Device) error
	// CopyFromPeer queues, on this device's stream, a copy of n bytes from
	// src on other to dst on this device. Without peer access the driver
	// stages it through host memory.
	CopyFromPeer(dst Ptr, other Device, src Ptr, n int64) error
	// PeerLink names the path to other: "NVLink", a PCIe topology word
	// ("PIX", "PXB", "PHB", "NODE", "SYS") or "unknown"; ErrUnsupported
	// wrapped when the device cannot say.
	PeerLink(other Device) (string, error)
}

// Comm is a collective communicator over several devices (NCCL on NVIDIA
// GPUs), for the all-reduce measurement. It owns its buffers: one send and
// one receive buffer per device, grown to the largest size asked for.
type Comm interface {
	// AllReduce sums bytes of dt elementwise across the devices (out of
	// place): warmup untimed all-reduces, then iters timed ones, all queued
	// back to back, and returns the device time of one timed all-reduce: the
	// slowest device's. Each device's start is marked on its stream behind
	// the warm-up, from the thread that queues the all-reduces, so that the
	// time counts neither a thread hand-off nor the host's queueing while
	// the warm-up still keeps the devices busy. bytes must be a positive
	// multiple of dt's size. An implementation that can check the sum
	// returns an error for a wrong one.
	AllReduce(dt DType, bytes int64, warmup, iters int) (time.Duration, error)
	// Devices is how many devices take part.
	Devices() int
	// Describe names the library and its version ("NCCL 2.27.3").
	Describe() string
	// Settings are the environment variables set for the library that
	// change which algorithm, protocol or path it takes (NCCL_ALGO=Ring,
	// NCCL_NVLS_ENABLE=0), by name; empty when it chooses on its own.
	Settings() map[string]string
	// Choice is the algorithm and protocol the library chose for the
	// all-reduces of bytes run so far, as its own log says (NCCL's debug
	// log), or ChoiceUnknown for both and why: never a guess.
	Choice(bytes int64) Choice
	// Close frees the buffers and the communicator (before the devices close).
	Close() error
}

// Choice is what a collective library chose for an operation: the
// algorithm and protocol as the library names them (NCCL: "RING", "NVLS";
// "LL", "SIMPLE"), or ChoiceUnknown for both, with Why saying why.
type Choice struct {
	Algorithm string
	Protocol  string
	Why       string // when unknown
}

// ChoiceUnknown is a Choice's algorithm and protocol when the library's
// choice cannot be read.
const ChoiceUnknown = "unknown"

// UnknownChoice is the Choice that is not known, for why.
func UnknownChoice(why string) Choice {
	return Choice{Algorithm: ChoiceUnknown, Protocol: ChoiceUnknown, Why: why}
}

// Known reports whether both the algorithm and the protocol are known.
func (c Choice) Known() bool {
	return c.Algorithm != "" && c.Algorithm != ChoiceUnknown && c.Protocol != "" && c.Protocol != ChoiceUnknown
}

// CommOpener opens a communicator over devs (all of one kind, opened
// together). It returns an error wrapping ErrNoCollective when the library
// is missing.
type CommOpener func(devs []Device) (Comm, error)

// ErrNoCollective says that the collective-communication library (NCCL) is
// not installed: the all-reduce is not measured, which is not a failure.
var ErrNoCollective = errors.New("no collective-communication library")
