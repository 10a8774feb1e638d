package bench

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// copyPattern fills copied buffers (not zero: some memory systems compress zeros).
const copyPattern = 0x3f9e3779

// CopyBandwidth is the memory bandwidth of a device-to-device copy of size
// bytes taking t seconds, in GB/s: the copy reads size bytes and writes
// size bytes, so it moves 2·size (as DCGM and CUDA's bandwidthTest count).
func CopyBandwidth(size int64, seconds float64) float64 { return 2 * float64(size) / seconds / 1e9 }

// deviceCopy measures device memory bandwidth: hbm_copy on a GPU,
// cpu_mem_copy on the CPU.
func (r *run) deviceCopy() benchreport.Measurement {
	name := "hbm_copy"
	if r.info.IsCPU {
		name = "cpu_mem_copy"
	}
	size := r.plan.CopyBytes &^ 3
	src, err := r.dev.Alloc(size)
	if err != nil {
		return r.failure(name, UnitGBs, err)
	}
	defer r.dev.Free(src)
	dst, err := r.dev.Alloc(size)
	if err != nil {
		return r.failure(name, UnitGBs, err)
	}
	defer r.dev.Free(dst)
	if err := r.fill(src, size); err != nil {
		return r.failure(name, UnitGBs, err)
	}
	perOp, reps, err := r.timeOp(func() error { return r.dev.Copy(dst, src, size) })
	if err == nil {
		err = r.checkWords(dst, size)
	}
	if err != nil {
		return r.failure(name, UnitGBs, err)
	}
	m := r.rate(name, UnitGBs, CopyBandwidth(size, 1), perOp) // GB moved per copy
	m.Detail = fmt.Sprintf("%s buffers, bytes read + written, %d per sample", mib(size), reps)
	return m
}

// hostCopy measures pinned host → device (h2d) or device → host (d2h)
// bandwidth, counting the bytes once.
func (r *run) hostCopy(up bool) benchreport.Measurement {
	name := "d2h"
	if up {
		name = "h2d"
	}
	size := r.plan.HostBytes &^ 3
	host, err := r.dev.HostAlloc(size)
	if err != nil {
		return r.failure(name, UnitGBs, err)
	}
	defer r.dev.HostFree(host)
	for i := 0; i+4 <= len(host); i += 4 {
		binary.LittleEndian.PutUint32(host[i:], copyPattern)
	}
	d, err := r.dev.Alloc(size)
	if err != nil {
		return r.failure(name, UnitGBs, err)
	}
	defer r.dev.Free(d)
	op := func() error { return r.dev.Download(host, d) }
	if up {
		op = func() error { return r.dev.Upload(d, host) }
	} else if err := r.fill(d, size); err != nil {
		return r.failure(name, UnitGBs, err)
	}
	perOp, reps, err := r.timeOp(op)
	if err == nil && !up && binary.LittleEndian.Uint32(host[len(host)-4:]) != copyPattern {
		err = fmt.Errorf("wrong result: the last word read back is %#x, want %#x", binary.LittleEndian.Uint32(host[len(host)-4:]), uint32(copyPattern))
	}
	if err == nil && up {
		err = r.checkWords(d, size)
	}
	if err != nil {
		return r.failure(name, UnitGBs, err)
	}
	m := r.rate(name, UnitGBs, float64(size)/1e9, perOp)
	m.Detail = fmt.Sprintf("%s, pinned host memory, %d per sample", mib(size), reps)
	if b := r.info.NUMABinding; b != "" {
		// Across sockets the copy is slower: where the buffer was is part
		// of the figure.
		m.Detail += "; " + b
	}
	return m
}

// fill sets a buffer to copyPattern and waits for it.
func (r *run) fill(p gpu.Ptr, size int64) error {
	if err := r.dev.Fill32(p, copyPattern, size/4); err != nil {
		return err
	}
	return r.dev.Sync()
}

// checkWords reads back the first and last words of a copy's destination.
func (r *run) checkWords(p gpu.Ptr, size int64) error {
	w := make([]byte, 4)
	for _, off := range []int64{0, size - 4} {
		if err := r.dev.Download(w, p+gpu.Ptr(off)); err != nil {
			return err
		}
		if got := binary.LittleEndian.Uint32(w); got != copyPattern {
			return fmt.Errorf("wrong result: the word at byte %d of the copy is %#x, want %#x", off, got, uint32(copyPattern))
		}
	}
	return nil
}

// mib writes a size in MiB or GiB.
func mib(b int64) string {
	if b >= 1<<30 && b%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", b>>30)
	}
	return fmt.Sprintf("%d MiB", b>>20)
}
