package bench

import (
	"errors"
	"fmt"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// PairName is the device of a peer-to-peer measurement: a copy from GPU
// src to GPU dst is "gpu0>gpu1".
func PairName(src, dst int) string {
	return benchreport.DeviceName(src) + ">" + benchreport.DeviceName(dst)
}

// p2pBuffers are one GPU's buffers of the matrix: a source filled with
// copyPattern, and a destination; the latency copies use their first bytes.
type p2pBuffers struct {
	src, dst gpu.Ptr
}

// p2p measures every ordered pair of GPUs: the unidirectional bandwidth of
// a large peer copy (bytes counted once) and the time of a small one, each
// a copy-engine copy queued and timed on the destination GPU, as
// nvbandwidth's memcpy tests do. Peer access is enabled where the driver
// allows it; elsewhere the driver stages the copy through host memory and
// the detail says so. The link is the one NVML names.
func p2p(runs []*run) []benchreport.Measurement {
	if len(runs) < 2 {
		return []benchreport.Measurement{commEntry(GroupP2P, len(runs), "")}
	}
	peers := make([]gpu.Peer, len(runs))
	for i, r := range runs {
		p, ok := r.dev.(gpu.Peer)
		if !ok {
			return []benchreport.Measurement{commEntry(GroupP2P, len(runs), fmt.Sprintf("needs peer copies, which %s's driver binding does not offer", r.name))}
		}
		peers[i] = p
	}
	plan := runs[0].plan
	size := max(plan.P2PBytes&^3, 4)
	bufs := make([]p2pBuffers, len(runs))
	defer func() {
		for i, b := range bufs {
			for _, p := range []gpu.Ptr{b.src, b.dst} {
				if p != 0 {
					_ = runs[i].dev.Free(p)
				}
			}
		}
	}()
	var out []benchreport.Measurement
	for i, r := range runs {
		var err error
		if bufs[i].src, err = r.dev.Alloc(size); err == nil {
			if bufs[i].dst, err = r.dev.Alloc(size); err == nil {
				err = r.fill(bufs[i].src, size)
			}
		}
		if err != nil {
			m := r.failure("p2p", UnitGBs, fmt.Errorf("preparing two %s buffers on %s: %w", mib(size), r.name, err))
			m.Device = benchreport.DeviceNode
			return []benchreport.Measurement{m}
		}
	}
	for si := range runs { // gpu0>gpu1, gpu0>gpu2, …, gpu1>gpu0, …
		for di, dst := range runs {
			if si == di {
				continue
			}
			if err := dst.ctx.Err(); err != nil {
				return out
			}
			out = append(out, pair(runs, di, si, peers, bufs, size)...)
		}
	}
	return out
}

// pair measures copies from src to dst: p2p (GB/s) and p2p_latency (µs).
// p2p_latency is a copy latency: the time of one small copy-engine copy
// queued behind others on the destination's stream (setup and completion
// of a DMA), several µs, not the sub-µs one-way latency a kernel's load or
// store sees across NVLink.
func pair(runs []*run, di, si int, peers []gpu.Peer, bufs []p2pBuffers, size int64) []benchreport.Measurement {
	dst, src := runs[di], runs[si]
	name := PairName(src.info.Index, dst.info.Index)
	// A run that times on the destination under the pair's name.
	r := *dst
	r.name = name
	pd, ps := peers[di], peers[si]
	fail := func(err error) []benchreport.Measurement {
		return []benchreport.Measurement{r.failure("p2p", UnitGBs, err), r.failure("p2p_latency", UnitUS, err)}
	}
	link, err := pd.PeerLink(ps)
	if err != nil {
		if !errors.Is(err, gpu.ErrUnsupported) {
			return fail(err)
		}
		link = "unknown"
	}
	can, err := pd.CanAccessPeer(ps)
	if err != nil && !errors.Is(err, gpu.ErrUnsupported) {
		return fail(err)
	}
	access := "peer access"
	if !can {
		access = "no peer access: the driver staged the copies through host memory"
	} else if err := pd.EnablePeer(ps); err != nil {
		// A GPU has at most 8 peers (CUDA_ERROR_TOO_MANY_PEERS): the copy
		// still works, staged, and is measured as such.
		access = fmt.Sprintf("peer access refused (%v): the driver staged the copies through host memory", err)
	}
	from, to := bufs[si].src, bufs[di].dst
	perOp, reps, err := r.timeOp(func() error { return pd.CopyFromPeer(to, ps, from, size) })
	if err == nil {
		err = r.checkWords(to, size)
	}
	var bw benchreport.Measurement
	if err != nil {
		bw = r.failure("p2p", UnitGBs, err)
	} else {
		bw = r.rate("p2p", UnitGBs, float64(size)/1e9, perOp)
		bw.Detail = fmt.Sprintf("%s, %s; %s copies, bytes counted once, %d per sample", link, access, mib(size), reps)
	}
	small := max(r.plan.P2PLatencyBytes, 1)
	perOp, reps, err = r.timeOp(func() error { return pd.CopyFromPeer(to, ps, from, small) })
	var lat benchreport.Measurement
	if err != nil {
		lat = r.failure("p2p_latency", UnitUS, err)
	} else {
		lat = r.duration("p2p_latency", perOp)
		lat.Detail = fmt.Sprintf("%s, %s; %d-byte copies back to back, %d per sample: the time of one copy-engine copy "+
			"(cuMemcpyPeerAsync), a copy latency, not the one-way latency of a load or store across the link", link, access, small, reps)
	}
	bw.Link, lat.Link = link, link
	bw.Efficiency = efficiency(r.spec, bw)
	return []benchreport.Measurement{bw, lat}
}

// duration is a latency measurement: the median operation time in µs.
func (r *run) duration(name string, perOp []time.Duration) benchreport.Measurement {
	st := Summarize(perOp)
	m := benchreport.Measurement{Name: name, Device: r.name, Unit: UnitUS, Samples: st.N, Status: benchreport.StatusOK, Value: benchreport.F(st.P50 * 1e6)}
	timing(&m, st)
	return m
}
