// Package host implements gpu.Device for the host CPU, in pure Go: the device
// of `gpuscout bench --device cpu`. Device memory is Go memory, a copy is
// copy(), a product is a cache-blocked loop spread over GOMAXPROCS
// goroutines, and Time is the wall clock (every operation runs to completion
// before it returns). It lets the same measurement code run for real on any
// machine, the test suite's included.
package host

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// MaxAlloc bounds one allocation (64 GiB): more is refused with an error
// rather than left to the Go runtime to fail.
const MaxAlloc = 64 << 30

// Config describes the host to the device's Info. Zero fields are filled:
// Threads from GOMAXPROCS, Name with "CPU".
type Config struct {
	Name        string // the CPU model, as /proc/cpuinfo names it
	MemoryBytes int64  // the host's memory; 0 when unknown
	Threads     int    // goroutines a product uses
}

// Device is the host CPU as a gpu.Device. It is safe for use from several
// goroutines; its operations do not overlap.
type Device struct {
	mu      sync.Mutex
	cfg     Config
	allocs  map[gpu.Ptr][]uint64 // by base address; uint64 backing keeps 8-byte alignment
	bases   []gpu.Ptr            // sorted base addresses
	next    gpu.Ptr
	closed  bool
	elapsed time.Duration // wall time of the operations Time is measuring
}

var _ gpu.Device = (*Device)(nil)

// New returns the host device.
func New(cfg Config) *Device {
	if cfg.Threads <= 0 {
		cfg.Threads = runtime.GOMAXPROCS(0)
	}
	if cfg.Name == "" {
		cfg.Name = "CPU"
	}
	return &Device{cfg: cfg, allocs: map[gpu.Ptr][]uint64{}, next: 1 << 20}
}

// Info describes the host: IsCPU set, Multiprocs the threads a product uses.
func (d *Device) Info() gpu.Info {
	return gpu.Info{Name: d.cfg.Name, MemoryBytes: d.cfg.MemoryBytes, Multiprocs: d.cfg.Threads, IsCPU: true, NUMANode: -1}
}

// Alloc reserves bytes of Go memory, zeroed.
func (d *Device) Alloc(bytes int64) (gpu.Ptr, error) {
	if bytes <= 0 || bytes > MaxAlloc {
		return 0, fmt.Errorf("host alloc of %d bytes: want 1 to %d", bytes, int64(MaxAlloc))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, errClosed
	}
	words := (bytes + 7) / 8
	p := d.next
	d.allocs[p] = make([]uint64, words)
	d.bases = append(d.bases, p) // addresses only grow, so the list stays sorted
	// A gap of one page after each allocation keeps an overrun from landing in the next.
	d.next += gpu.Ptr((words*8 + 4096 + 4095) &^ 4095)
	return p, nil
}

var errClosed = fmt.Errorf("host device is closed")

// Free releases an allocation made by Alloc.
func (d *Device) Free(p gpu.Ptr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.allocs[p]; !ok {
		return fmt.Errorf("host free of %#x: not an allocation", uint64(p))
	}
	delete(d.allocs, p)
	i := sort.Search(len(d.bases), func(i int) bool { return d.bases[i] >= p })
	d.bases = append(d.bases[:i], d.bases[i+1:]...)
	return nil
}

// span returns the n bytes at p, which may point inside an allocation.
// The caller holds d.mu.
func (d *Device) span(p gpu.Ptr, n int64) ([]byte, error) {
	i := sort.Search(len(d.bases), func(i int) bool { return d.bases[i] > p }) - 1
	if i >= 0 && n >= 0 {
		base := d.bases[i]
		words := d.allocs[base]
		size := int64(len(words)) * 8
		off := int64(p - base)
		if off+n <= size {
			all := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), size)
			return all[off : off+n], nil
		}
	}
	return nil, fmt.Errorf("host memory %#x..+%d is not inside one allocation", uint64(p), n)
}

// HostAlloc returns plain Go memory: the CPU has no page-locked staging.
func (d *Device) HostAlloc(bytes int64) ([]byte, error) {
	if bytes <= 0 || bytes > MaxAlloc {
		return nil, fmt.Errorf("host alloc of %d bytes: want 1 to %d", bytes, int64(MaxAlloc))
	}
	return make([]byte, bytes), nil
}

// HostFree does nothing: the garbage collector frees HostAlloc's memory.
func (d *Device) HostFree([]byte) error { return nil }

// Upload copies src to dst.
func (d *Device) Upload(dst gpu.Ptr, src []byte) error {
	return d.op(func() error {
		b, err := d.span(dst, int64(len(src)))
		if err == nil {
			parallelCopy(b, src, d.cfg.Threads)
		}
		return err
	})
}

// Download copies src to dst.
func (d *Device) Download(dst []byte, src gpu.Ptr) error {
	return d.op(func() error {
		b, err := d.span(src, int64(len(dst)))
		if err == nil {
			parallelCopy(dst, b, d.cfg.Threads)
		}
		return err
	})
}

// Copy copies n bytes from src to dst, in parallel for large n.
func (d *Device) Copy(dst, src gpu.Ptr, n int64) error {
	return d.op(func() error {
		to, err := d.span(dst, n)
		if err != nil {
			return err
		}
		from, err := d.span(src, n)
		if err != nil {
			return err
		}
		parallelCopy(to, from, d.cfg.Threads)
		return nil
	})
}

// Fill32 sets n 32-bit words at dst to v.
func (d *Device) Fill32(dst gpu.Ptr, v uint32, n int64) error {
	return d.op(func() error {
		b, err := d.span(dst, 4*n)
		if err != nil || n == 0 {
			return err
		}
		if uintptr(unsafe.Pointer(&b[0]))%4 != 0 {
			return fmt.Errorf("host fill32 at %#x: not 4-byte aligned", uint64(dst))
		}
		w := unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
		for i := range w {
			w[i] = v
		}
		return nil
	})
}

// Gemm computes C = A·B (column-major) in FP32 or FP64; other types are
// gpu.ErrUnsupported.
func (d *Device) Gemm(dt gpu.DType, m, n, k int, a, b, c gpu.Ptr) error {
	if dt != gpu.FP32 && dt != gpu.FP64 {
		return fmt.Errorf("host gemm %s: %w (the CPU device multiplies fp32 and fp64)", dt, gpu.ErrUnsupported)
	}
	if m <= 0 || n <= 0 || k <= 0 {
		return fmt.Errorf("host gemm %d×%d×%d: dimensions must be positive", m, n, k)
	}
	eb := int64(dt.ElemBytes())
	sa, sb, sc := int64(m)*int64(k)*eb, int64(k)*int64(n)*eb, int64(m)*int64(n)*eb
	if overlap(c, sc, a, sa) || overlap(c, sc, b, sb) {
		return fmt.Errorf("host gemm: C at %#x overlaps an operand (A %#x, B %#x)", uint64(c), uint64(a), uint64(b))
	}
	return d.op(func() error {
		ab, err := d.span(a, sa)
		if err != nil {
			return err
		}
		bb, err := d.span(b, sb)
		if err != nil {
			return err
		}
		cb, err := d.span(c, sc)
		if err != nil {
			return err
		}
		if dt == gpu.FP32 {
			gemm(m, n, k, view[float32](ab), view[float32](bb), view[float32](cb), d.cfg.Threads)
		} else {
			gemm(m, n, k, view[float64](ab), view[float64](bb), view[float64](cb), d.cfg.Threads)
		}
		return nil
	})
}

// overlap reports whether [p, p+n) and [q, q+m) share a byte.
func overlap(p gpu.Ptr, n int64, q gpu.Ptr, m int64) bool {
	return int64(p) < int64(q)+m && int64(q) < int64(p)+n
}

// view reinterprets aligned bytes as elements.
func view[T float32 | float64](b []byte) []T {
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

// op runs one operation under the lock, adding its wall time to a Time region.
func (d *Device) op(f func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	start := time.Now()
	err := f()
	d.elapsed += time.Since(start)
	return err
}

// Time runs f and returns the wall time of the operations it ran (host time
// spent between them, in f itself, is not counted).
func (d *Device) Time(f func() error) (time.Duration, error) {
	d.mu.Lock()
	d.elapsed = 0
	d.mu.Unlock()
	err := f()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.elapsed, err
}

// Sync does nothing: every operation has finished when it returns.
func (d *Device) Sync() error { return nil }

// Close frees every allocation; later calls fail.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.allocs, d.bases, d.closed = nil, nil, true
	return nil
}
