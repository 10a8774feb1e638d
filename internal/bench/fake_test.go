package bench

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// fakeDev is a gpu.Device that really stores and computes (small sizes) but
// takes programmed times: each operation advances its clock by its duration,
// and Time returns the sum of the durations of what it ran. It records the
// calls it gets.
type fakeDev struct {
	info  gpu.Info
	mem   map[gpu.Ptr][]byte
	next  gpu.Ptr
	clock time.Time
	timed time.Duration

	gemmTime func(dt gpu.DType, call int) time.Duration // call counts products from 0
	copyTime func(bytes int64, call int) time.Duration
	fillTime func(call int) time.Duration
	hostTime func(bytes int64) time.Duration

	unsupported map[gpu.DType]bool
	// notImplemented: types the device has but cannot drive (gpu.ErrNotImplemented)
	notImplemented map[gpu.DType]bool
	wrong          map[gpu.DType]bool // the product writes A instead of A·B
	allocLimit     int64              // allocations above this fail (0: none)
	sleep          bool               // each operation also takes its time on the wall clock
	// plainA: the product reads A untransposed even where the type takes
	// it transposed (gpu.DType.GemmTransA): a binding with the wrong layout.
	plainA bool

	gemms, copies, fills int
	calls                []string
}

func newFake(name string) *fakeDev {
	return &fakeDev{
		info:     gpu.Info{Name: name, MemoryBytes: 80 << 30, Multiprocs: 108, NUMANode: -1},
		mem:      map[gpu.Ptr][]byte{},
		next:     4096,
		clock:    time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		gemmTime: func(gpu.DType, int) time.Duration { return time.Millisecond },
		copyTime: func(int64, int) time.Duration { return time.Millisecond },
		fillTime: func(int) time.Duration { return time.Microsecond },
		hostTime: func(int64) time.Duration { return time.Millisecond },
	}
}

func (f *fakeDev) now() time.Time { return f.clock }

func (f *fakeDev) spend(d time.Duration) {
	f.clock = f.clock.Add(d)
	f.timed += d
	if f.sleep {
		time.Sleep(d)
	}
}

func (f *fakeDev) span(p gpu.Ptr, n int64) ([]byte, error) {
	for base, b := range f.mem {
		if p >= base && int64(p-base)+n <= int64(len(b)) {
			return b[p-base : int64(p-base)+n], nil
		}
	}
	return nil, fmt.Errorf("fake: %#x+%d outside any allocation", uint64(p), n)
}

func (f *fakeDev) Info() gpu.Info { return f.info }

func (f *fakeDev) Alloc(n int64) (gpu.Ptr, error) {
	f.calls = append(f.calls, fmt.Sprintf("Alloc %d", n))
	if f.allocLimit > 0 && n > f.allocLimit {
		return 0, errors.New("out of memory")
	}
	p := f.next
	f.mem[p] = make([]byte, n)
	f.next += gpu.Ptr(n + 4096)
	return p, nil
}

func (f *fakeDev) Free(p gpu.Ptr) error {
	if _, ok := f.mem[p]; !ok {
		return errors.New("fake: free of a non-allocation")
	}
	delete(f.mem, p)
	return nil
}

func (f *fakeDev) HostAlloc(n int64) ([]byte, error) { return make([]byte, n), nil }
func (f *fakeDev) HostFree([]byte) error             { return nil }

func (f *fakeDev) Upload(dst gpu.Ptr, src []byte) error {
	b, err := f.span(dst, int64(len(src)))
	if err != nil {
		return err
	}
	copy(b, src)
	f.spend(f.hostTime(int64(len(src))))
	return nil
}

func (f *fakeDev) Download(dst []byte, src gpu.Ptr) error {
	b, err := f.span(src, int64(len(dst)))
	if err != nil {
		return err
	}
	copy(dst, b)
	f.spend(f.hostTime(int64(len(dst))))
	return nil
}

func (f *fakeDev) Copy(dst, src gpu.Ptr, n int64) error {
	to, err := f.span(dst, n)
	if err != nil {
		return err
	}
	from, err := f.span(src, n)
	if err != nil {
		return err
	}
	copy(to, from)
	f.spend(f.copyTime(n, f.copies))
	f.copies++
	return nil
}

func (f *fakeDev) Fill32(dst gpu.Ptr, v uint32, n int64) error {
	b, err := f.span(dst, 4*n)
	if err != nil {
		return err
	}
	for i := range n {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	f.spend(f.fillTime(f.fills))
	f.fills++
	return nil
}

func (f *fakeDev) Gemm(dt gpu.DType, m, n, k int, a, b, c gpu.Ptr) error {
	if f.unsupported[dt] {
		return fmt.Errorf("fake gemm %s: %w", dt, gpu.ErrUnsupported)
	}
	if f.notImplemented[dt] {
		return fmt.Errorf("fake gemm %s: %w", dt, gpu.ErrNotImplemented)
	}
	// As gpu.Device says: C in dt.GemmOutput(), A transposed (k×m) where
	// dt.GemmTransA().
	eb, out := int64(dt.ElemBytes()), dt.GemmOutput()
	ab, err1 := f.span(a, int64(m*k)*eb)
	bb, err2 := f.span(b, int64(k*n)*eb)
	cb, err3 := f.span(c, int64(m*n)*int64(out.ElemBytes()))
	if err := errors.Join(err1, err2, err3); err != nil {
		return err
	}
	aAt := func(i, p int) int { return i + p*m }
	if dt.GemmTransA() && !f.plainA {
		aAt = func(i, p int) int { return p + i*k }
	}
	for j := range n {
		for i := range m {
			var s float64
			for p := range k {
				s += at(dt, ab, aAt(i, p)) * at(dt, bb, p+j*k)
			}
			if f.wrong[dt] {
				s = at(dt, ab, i+j*m)
			}
			put(out, cb, i+j*m, float32(s))
		}
	}
	f.spend(f.gemmTime(dt, f.gemms))
	f.gemms++
	return nil
}

func (f *fakeDev) Time(run func() error) (time.Duration, error) {
	f.timed = 0
	err := run()
	return f.timed, err
}

func (f *fakeDev) Sync() error  { return nil }
func (f *fakeDev) Close() error { return nil }

// fakeSampler adds scripted telemetry to a fakeDev; Sample may be called
// from another goroutine than the device's.
type fakeSampler struct {
	*fakeDev
	mu     sync.Mutex
	script []gpu.Sample
	taken  int
}

func (s *fakeSampler) Sample() (gpu.Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.script[s.taken%len(s.script)]
	s.taken++
	x.At = time.Now()
	return x, nil
}
