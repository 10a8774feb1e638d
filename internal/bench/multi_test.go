package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/gpu"
)

// fakePeer is a fakeDev that copies from other fakePeers: peerTime(n,
// enabled) per copy on the destination's clock; noAccess lists the GPUs
// (by index) it cannot reach directly, links the link type to each.
type fakePeer struct {
	*fakeDev
	noAccess map[int]bool
	refuse   map[int]bool // can access, but enabling fails
	links    map[int]string
	enabled  map[int]bool
	peerTime func(n int64, enabled bool) time.Duration
}

func newPeers(n int) []*fakePeer {
	out := make([]*fakePeer, n)
	for i := range out {
		f := newFake("NVIDIA H200")
		f.info.Index = i
		out[i] = &fakePeer{fakeDev: f, noAccess: map[int]bool{}, refuse: map[int]bool{}, links: map[int]string{}, enabled: map[int]bool{},
			peerTime: func(n int64, on bool) time.Duration {
				if on {
					return time.Microsecond + time.Duration(n/128) // 128 GB/s after 1 µs
				}
				return 5*time.Microsecond + time.Duration(n/32)
			}}
	}
	return out
}

func (p *fakePeer) other(d gpu.Device) (*fakePeer, error) {
	o, ok := d.(*fakePeer)
	if !ok {
		return nil, fmt.Errorf("fake: %T is not a fake peer", d)
	}
	return o, nil
}

func (p *fakePeer) CanAccessPeer(d gpu.Device) (bool, error) {
	o, err := p.other(d)
	return err == nil && !p.noAccess[o.info.Index], err
}

func (p *fakePeer) EnablePeer(d gpu.Device) error {
	o, err := p.other(d)
	if err != nil {
		return err
	}
	if p.noAccess[o.info.Index] || p.refuse[o.info.Index] {
		return errors.New("CUDA_ERROR_TOO_MANY_PEERS")
	}
	p.enabled[o.info.Index] = true
	return nil
}

func (p *fakePeer) CopyFromPeer(dst gpu.Ptr, d gpu.Device, src gpu.Ptr, n int64) error {
	o, err := p.other(d)
	if err != nil {
		return err
	}
	from, err := o.span(src, n)
	if err != nil {
		return err
	}
	to, err := p.span(dst, n)
	if err != nil {
		return err
	}
	copy(to, from)
	p.spend(p.peerTime(n, p.enabled[o.info.Index]))
	return nil
}

func (p *fakePeer) PeerLink(d gpu.Device) (string, error) {
	o, err := p.other(d)
	if err != nil {
		return "", err
	}
	if l, ok := p.links[o.info.Index]; ok {
		return l, nil
	}
	return "", fmt.Errorf("fake: no NVML: %w", gpu.ErrUnsupported)
}

func devices[T gpu.Device](ds []T) []gpu.Device {
	out := make([]gpu.Device, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}

func multiPlan(p *Plan) {
	tiny(p)
	p.P2PBytes, p.P2PLatencyBytes = 1<<20, 8
	p.NCCLMinBytes, p.NCCLMaxBytes, p.NCCLStep, p.NCCLWarmup, p.NCCLSamples, p.NCCLIters = 8, 1<<20, 4, 2, 3, 4
}

// Three GPUs: every ordered pair, timed on the destination. 1 MiB in
// 1 µs + 8192 ns is 1048576/9192 = 114.07 GB/s; 8 B in 1 µs is 1 µs. GPU 2
// cannot reach GPU 0 directly, and the driver refuses it GPU 1: their
// copies are staged (5 µs + n/32 ns: 1048576/37768 = 27.76 GB/s, 8 B in
// 5 µs), measured and said so, not failures.
func TestP2PMatrix(t *testing.T) {
	ps := newPeers(3)
	ps[0].links = map[int]string{1: "NVLink", 2: "SYS"}
	ps[1].links = map[int]string{0: "NVLink", 2: "SYS"}
	ps[2].noAccess[0] = true // no links: NVML cannot say
	ps[2].refuse[1] = true
	rn := &Runner{Tune: multiPlan}
	doc, err := rn.Run(context.Background(), devices(ps), Request{Device: DeviceGPU, Only: []string{GroupP2P}})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, m := range doc.Measurements {
		order = append(order, m.Name+"@"+m.Device)
	}
	want := []string{}
	for _, pair := range []string{"gpu0>gpu1", "gpu0>gpu2", "gpu1>gpu0", "gpu1>gpu2", "gpu2>gpu0", "gpu2>gpu1"} {
		want = append(want, "p2p@"+pair, "p2p_latency@"+pair)
	}
	if !slices.Equal(order, want) {
		t.Fatalf("measurements\n got %v\nwant %v", order, want)
	}
	for _, tc := range []struct {
		pair        string
		gbs, us     float64
		link, notes string
	}{
		{"gpu1>gpu0", 1048576.0 / 9192, 1, "NVLink", "NVLink, peer access; 1 MiB copies, bytes counted once, 32 per sample"},
		{"gpu2>gpu0", 1048576.0 / 9192, 1, "SYS", "SYS, peer access"},
		{"gpu0>gpu1", 1048576.0 / 9192, 1, "NVLink", "NVLink, peer access"},
		{"gpu0>gpu2", 1048576.0 / 37768, 5, "unknown", "unknown, no peer access: the driver staged the copies through host memory"},
		{"gpu1>gpu2", 1048576.0 / 37768, 5, "unknown", "unknown, peer access refused (CUDA_ERROR_TOO_MANY_PEERS): the driver staged the copies through host memory"},
	} {
		bw, lat := find(t, doc, "p2p", tc.pair), find(t, doc, "p2p_latency", tc.pair)
		if !bw.OK() || math.Abs(*bw.Value-tc.gbs) > 1e-9*tc.gbs || bw.Unit != "GB/s" || bw.Link != tc.link || !strings.HasPrefix(bw.Detail, tc.notes) {
			t.Errorf("p2p %s = %v %s link %q (%s); want %.6g GB/s over %s, %q", tc.pair, *bw.Value, bw.Unit, bw.Link, bw.Detail, tc.gbs, tc.link, tc.notes)
		}
		if !lat.OK() || *lat.Value != tc.us || lat.Unit != "µs" || lat.Samples != 5 || lat.Link != tc.link || *lat.P50US != tc.us {
			t.Errorf("p2p_latency %s = %+v; want %v µs", tc.pair, lat, tc.us)
		}
		// What the figure is: a copy's time, not a load's across the link.
		if !strings.HasSuffix(lat.Detail, "the time of one copy-engine copy (cuMemcpyPeerAsync), a copy latency, not the one-way latency of a load or store across the link") {
			t.Errorf("p2p_latency %s detail %q", tc.pair, lat.Detail)
		}
	}
	if !ps[0].enabled[1] || !ps[0].enabled[2] || ps[2].enabled[0] || ps[2].enabled[1] || !ps[1].enabled[2] {
		t.Errorf("peer access enabled: gpu0 %v, gpu2 %v", ps[0].enabled, ps[2].enabled)
	}
	for _, p := range ps {
		if len(p.mem) != 0 {
			t.Errorf("gpu%d: %d buffers left allocated", p.info.Index, len(p.mem))
		}
	}
	if fs := Failures(doc); len(fs) != 0 {
		t.Errorf("failures %+v, want none", fs)
	}
	if err := doc.Validate(); err != nil {
		t.Error(err)
	}
}

// fakeComm times an all-reduce of n bytes at 2 µs + n/64 ns and records
// what it was asked: "fp32 <bytes> <warm-up>+<timed>". choose, when set,
// is what it says it chose for a size.
type fakeComm struct {
	devs     int
	calls    []string
	fail     error
	closed   bool
	settings map[string]string
	choose   func(bytes int64) gpu.Choice
}

func (c *fakeComm) Choice(bytes int64) gpu.Choice {
	if c.choose == nil {
		return gpu.Choice{}
	}
	return c.choose(bytes)
}

func (c *fakeComm) AllReduce(dt gpu.DType, bytes int64, warmup, iters int) (time.Duration, error) {
	c.calls = append(c.calls, fmt.Sprintf("%s %d %d+%d", dt, bytes, warmup, iters))
	if c.fail != nil {
		return 0, c.fail
	}
	return 2*time.Microsecond + time.Duration(bytes/64), nil
}
func (c *fakeComm) Devices() int                { return c.devs }
func (c *fakeComm) Describe() string            { return "fake NCCL 9.9" }
func (c *fakeComm) Settings() map[string]string { return c.settings }
func (c *fakeComm) Close() error                { c.closed = true; return nil }

// Four GPUs, sizes 8 B … 1 MiB in ×4 steps. At 1 MiB one all-reduce takes
// 2000 + 16384 ns: algbw 1048576/18384 = 57.04 GB/s, busbw × 2·3/4 = 85.56;
// at 8 B it takes 2 µs. Each size is probed with the plan's warm-up and
// iterations (2 + 4), then each of 3 samples repeats the all-reduce to last
// about the 100 µs target behind 2 untimed: 50 times at 8 B (2 µs each),
// 6 times at 1 MiB (18.4 µs), never fewer than 4 nor more than 200.
//
// The fake says it chose RING with LL below 128 KiB and NVLS with SIMPLE
// from there, as NCCL's log would; each point of the sweep, and each
// figure's settings at its size, say so.
func TestNCCLSweep(t *testing.T) {
	comm := &fakeComm{devs: 4, choose: func(b int64) gpu.Choice {
		if b >= 128<<10 {
			return gpu.Choice{Algorithm: "NVLS", Protocol: "SIMPLE"}
		}
		return gpu.Choice{Algorithm: "RING", Protocol: "LL"}
	}}
	var opened []gpu.Device
	rn := &Runner{OpenComm: func(ds []gpu.Device) (gpu.Comm, error) { opened = ds; return comm, nil },
		Tune: func(p *Plan) { multiPlan(p); p.SampleTarget = 100 * time.Microsecond }}
	ps := newPeers(4)
	doc, err := rn.Run(context.Background(), devices(ps), Request{Device: DeviceGPU, Only: []string{GroupNCCL}})
	if err != nil {
		t.Fatal(err)
	}
	if len(opened) != 4 || !comm.closed {
		t.Errorf("opened over %d GPUs, closed %v", len(opened), comm.closed)
	}
	bus, lat := find(t, doc, "nccl_allreduce_busbw", "node"), find(t, doc, "nccl_allreduce_latency", "node")
	alg := 1048576.0 / 18384
	if !bus.OK() || math.Abs(*bus.Value-alg*1.5) > 1e-9 || bus.Samples != 3 || bus.Unit != "GB/s" {
		t.Errorf("busbw %+v, want %v GB/s", bus, alg*1.5)
	}
	if want := "fp32 sum over 4 GPUs (fake NCCL 9.9) of 1 MiB: algbw 57.04 GB/s"; !strings.HasPrefix(bus.Detail, want) ||
		!strings.HasSuffix(bus.Detail, "; NCCL's choice of algorithm and protocol (NCCL_ALGO and NCCL_PROTO unset): NVLS with SIMPLE (NCCL's log); median of 3 samples, each 6 all-reduces back to back timed on the GPUs behind 2 untimed; the sweep has 10 sizes from 8 B; NCCL's log: RING/LL at 8 B–32 KiB, NVLS/SIMPLE at 128 KiB–1 MiB") {
		t.Errorf("busbw detail %q", bus.Detail)
	}
	if !strings.HasSuffix(lat.Detail, "of 8 B: the time of one all-reduce; NCCL's choice of algorithm and protocol (NCCL_ALGO and NCCL_PROTO unset): RING with LL (NCCL's log); median of 3 samples, each 50 all-reduces back to back timed on the GPUs behind 2 untimed") {
		t.Errorf("latency detail %q", lat.Detail)
	}
	if want := map[string]string{"NCCL_ALGO_CHOSEN": "NVLS", "NCCL_PROTO_CHOSEN": "SIMPLE"}; !maps.Equal(bus.Settings, want) {
		t.Errorf("busbw settings %v, want %v", bus.Settings, want)
	}
	if want := map[string]string{"NCCL_ALGO_CHOSEN": "RING", "NCCL_PROTO_CHOSEN": "LL"}; !maps.Equal(lat.Settings, want) {
		t.Errorf("latency settings %v, want %v", lat.Settings, want)
	}
	var sizes []int64
	for _, p := range bus.Sweep {
		sizes = append(sizes, p.Bytes)
		tm := 2000 + float64(p.Bytes/64)
		if math.Abs(p.TimeUS-tm/1000) > 1e-9 || math.Abs(p.AlgBWGBs-float64(p.Bytes)/tm) > 1e-9 || math.Abs(p.BusBWGBs-1.5*p.AlgBWGBs) > 1e-9 {
			t.Errorf("sweep point %+v; want %v µs", p, tm/1000)
		}
		if want := comm.choose(p.Bytes); p.Algorithm != want.Algorithm || p.Protocol != want.Protocol {
			t.Errorf("sweep point %d B: %s/%s, want %s/%s", p.Bytes, p.Algorithm, p.Protocol, want.Algorithm, want.Protocol)
		}
	}
	if want := []int64{8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 1 << 20}; !slices.Equal(sizes, want) {
		t.Errorf("sweep sizes %v, want %v", sizes, want)
	}
	if !lat.OK() || *lat.Value != 2 || lat.Unit != "µs" || *lat.P50US != 2 {
		t.Errorf("latency %+v, want 2 µs", lat)
	}
	// Per size: the probe, then 3 samples, all fp32.
	if len(comm.calls) != 40 || comm.calls[0] != "fp32 8 2+4" || comm.calls[1] != "fp32 8 2+50" || comm.calls[3] != "fp32 8 2+50" ||
		comm.calls[36] != "fp32 1048576 2+4" || comm.calls[39] != "fp32 1048576 2+6" {
		t.Errorf("calls %v", comm.calls)
	}
	// advise reads the large-message bus bandwidth.
	r, err := benchreport.Derive(doc)
	if err != nil || r.NCCLBusBWGBs != *bus.Value {
		t.Errorf("Derive: %+v, %v; want nccl_busbw_gbs %v", r, err, *bus.Value)
	}
}

// What NCCL was told to use is in the report, so that an NVLS figure is
// not compared with a ring one unknowingly, and beside it what NCCL says it
// chose: "unknown", and why, where it did not say (never a guess; with no
// probe process given, the why says so).
func TestNCCLRecordsTheAlgorithm(t *testing.T) {
	unknown := map[string]string{"NCCL_ALGO_CHOSEN": "unknown", "NCCL_PROTO_CHOSEN": "unknown"}
	for _, tc := range []struct {
		settings map[string]string
		choice   gpu.Choice
		note     string
		chosen   map[string]string
		sweep    [2]string // every point's algorithm and protocol
	}{
		{map[string]string{"NCCL_ALGO": "NVLS"}, gpu.Choice{}, "algorithm NVLS as forced, NCCL's choice of protocol; what NCCL chose is not known: bench was given no probe process to read NCCL's choice in (NCCL's log is not turned on where the all-reduces are timed)",
			unknown, [2]string{"unknown", "unknown"}},
		{map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple"}, gpu.Choice{Algorithm: "RING", Protocol: "SIMPLE"},
			"algorithm Ring, protocol Simple, as forced: RING with SIMPLE (NCCL's log)",
			map[string]string{"NCCL_ALGO_CHOSEN": "RING", "NCCL_PROTO_CHOSEN": "SIMPLE"}, [2]string{"RING", "SIMPLE"}},
		{map[string]string{"NCCL_NVLS_ENABLE": "0"}, gpu.UnknownChoice("NCCL_DEBUG=WARN is set, which logs no tuning lines"),
			"NCCL's choice of algorithm and protocol (NCCL_ALGO unset), NVLS off; what NCCL chose is not known: bench was given no probe process to read NCCL's choice in (NCCL's log is not turned on where the all-reduces are timed)",
			unknown, [2]string{"unknown", "unknown"}},
		{nil, gpu.Choice{Algorithm: "TREE", Protocol: "LL128"}, "NCCL's choice of algorithm and protocol (NCCL_ALGO and NCCL_PROTO unset): TREE with LL128 (NCCL's log)",
			map[string]string{"NCCL_ALGO_CHOSEN": "TREE", "NCCL_PROTO_CHOSEN": "LL128"}, [2]string{"TREE", "LL128"}},
	} {
		comm := &fakeComm{devs: 2, settings: tc.settings, choose: func(int64) gpu.Choice { return tc.choice }}
		rn := &Runner{Tune: multiPlan, OpenComm: func([]gpu.Device) (gpu.Comm, error) { return comm, nil }}
		doc, err := rn.Run(context.Background(), devices(newPeers(2)), Request{Device: DeviceGPU, Only: []string{GroupNCCL}})
		if err != nil {
			t.Fatal(err)
		}
		want := maps.Clone(tc.settings)
		if want == nil {
			want = map[string]string{}
		}
		maps.Copy(want, tc.chosen)
		for _, name := range []string{"nccl_allreduce_busbw", "nccl_allreduce_latency"} {
			m := find(t, doc, name, "node")
			if !maps.Equal(m.Settings, want) || !strings.Contains(m.Detail, "; "+tc.note+"; median of") {
				t.Errorf("%s with %v: settings %v, detail %q", name, tc.settings, m.Settings, m.Detail)
			}
		}
		for _, p := range find(t, doc, "nccl_allreduce_busbw", "node").Sweep {
			if [2]string{p.Algorithm, p.Protocol} != tc.sweep {
				t.Errorf("with %v: sweep point %d B chose %s/%s, want %v", tc.settings, p.Bytes, p.Algorithm, p.Protocol, tc.sweep)
			}
		}
		if err := doc.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// What stops the all-reduce: no opener and no NCCL are not measured, not
// failures; an opener or all-reduce error is a failure of both entries.
func TestNCCLNotRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		open   gpu.CommOpener
		status []string
		detail string
	}{
		{"no opener", nil, []string{"not_measured"}, "not measured: an NCCL all-reduce over 2 GPUs needs a collective library"},
		{"no NCCL", func([]gpu.Device) (gpu.Comm, error) {
			return nil, fmt.Errorf("%w: nccl: no library loaded", gpu.ErrNoCollective)
		}, []string{"not_measured"}, "not measured: an NCCL all-reduce over 2 GPUs needs NCCL (libnccl.so.2"},
		{"not CUDA GPUs", func([]gpu.Device) (gpu.Comm, error) {
			return nil, fmt.Errorf("nccl: device 0 is a *host.Device, not a CUDA GPU: %w", gpu.ErrUnsupported)
		}, []string{"not_measured"}, "not measured: an NCCL all-reduce over 2 GPUs cannot run on these devices: nccl: device 0 is a *host.Device"},
		{"open fails", func([]gpu.Device) (gpu.Comm, error) { return nil, errors.New("ncclInternalError") },
			[]string{"failed", "failed"}, "opening the communicator: ncclInternalError"},
		{"all-reduce fails", func([]gpu.Device) (gpu.Comm, error) { return &fakeComm{fail: errors.New("ncclSystemError")}, nil },
			[]string{"failed", "failed"}, "all-reduce of 8 B: ncclSystemError"},
	} {
		rn := &Runner{Tune: multiPlan, OpenComm: tc.open}
		doc, err := rn.Run(context.Background(), devices(newPeers(2)), Request{Device: DeviceGPU, Only: []string{GroupNCCL}})
		if err != nil {
			t.Fatal(err)
		}
		var status []string
		for _, m := range doc.Measurements {
			status = append(status, m.Status)
		}
		if !slices.Equal(status, tc.status) || !strings.HasPrefix(doc.Measurements[0].Detail, tc.detail) {
			t.Errorf("%s: %v %q; want %v %q", tc.name, status, doc.Measurements[0].Detail, tc.status, tc.detail)
		}
	}
}

func TestNCCLSizes(t *testing.T) {
	for _, tc := range []struct {
		lo, hi, step int64
		want         []int64
	}{
		{8, 1 << 30, 4, []int64{8, 32, 128, 512, 2 << 10, 8 << 10, 32 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20, 32 << 20, 128 << 20, 512 << 20, 1 << 30}},
		{8, 256 << 20, 16, []int64{8, 128, 2 << 10, 32 << 10, 512 << 10, 8 << 20, 128 << 20, 256 << 20}},
		{8, 8, 4, []int64{8}},
		{1, 10, 1, []int64{4, 8}}, // whole fp32 elements; a step below 2 is 2
		{64, 16, 4, []int64{64}},
	} {
		if got := NCCLSizes(tc.lo, tc.hi, tc.step); !slices.Equal(got, tc.want) {
			t.Errorf("NCCLSizes(%d, %d, %d) = %v, want %v", tc.lo, tc.hi, tc.step, got, tc.want)
		}
	}
}

func TestPlanForMulti(t *testing.T) {
	h200 := gpu.Info{Name: "NVIDIA H200", MemoryBytes: 143771 << 20, Multiprocs: 132}
	small := gpu.Info{Name: "small", MemoryBytes: 4 << 30, Multiprocs: 20}
	for _, tc := range []struct {
		name        string
		info        gpu.Info
		quick       bool
		p2p, max    int64
		step        int64
		warm, s, it int
	}{
		{"H200", h200, false, 256 << 20, 1 << 30, 4, 5, 5, 4},
		{"H200 quick", h200, true, 64 << 20, 256 << 20, 16, 2, 3, 2},
		{"4 GiB: two buffers in a quarter", small, false, 256 << 20, 512 << 20, 4, 5, 5, 4},
	} {
		p := PlanFor(tc.info, Request{Device: DeviceGPU, Quick: tc.quick})
		got := []int64{p.P2PBytes, p.P2PLatencyBytes, p.NCCLMinBytes, p.NCCLMaxBytes, p.NCCLStep, int64(p.NCCLWarmup), int64(p.NCCLSamples), int64(p.NCCLIters),
			int64(p.NCCLMaxIters), int64(p.NCCLSampleWarmup)}
		maxIters := int64(200)
		if tc.quick {
			maxIters = 100
		}
		want := []int64{tc.p2p, 8, 8, tc.max, tc.step, int64(tc.warm), int64(tc.s), int64(tc.it), maxIters, 2}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, want)
		}
	}
}

// Identical sample times have no spread: CV exactly 0 (not the 2e-16 that
// rounding the mean leaves, which the table printed as 0.0000000000000002118).
func TestEqualTimesHaveNoSpread(t *testing.T) {
	for _, v := range []float64{1e-6, 3.2e-8, 0.1} {
		in := slices.Repeat([]float64{v}, 10)
		if s := SummarizeValues(in); s.CV != 0 || s.StdDev() != 0 {
			t.Errorf("ten times %v: CV %v, sd %v; want 0", v, s.CV, s.StdDev())
		}
	}
}

// Against the catalog's H200 (NVLink4, 900 GB/s both ways): a peer copy over
// NVLink and the all-reduce's busbw compare with 450 GB/s one way; a pair
// over PCIe (SYS) has no datasheet figure.
func TestMultiGPUEfficiency(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	ps := newPeers(4)
	for _, p := range ps {
		for j := range 4 {
			p.links[j] = "NVLink"
		}
	}
	ps[1].links[0] = "SYS"
	rn := &Runner{Catalog: c, Tune: multiPlan, OpenComm: func([]gpu.Device) (gpu.Comm, error) { return &fakeComm{devs: 4}, nil }}
	doc, err := rn.Run(context.Background(), devices(ps), Request{Device: DeviceGPU, Only: []string{GroupP2P, GroupNCCL}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dev string
		want      *float64
	}{
		{"p2p", "gpu1>gpu0", benchreport.F(0.2535)}, // 1048576/9192 = 114.07 GB/s of 450
		{"p2p", "gpu0>gpu1", nil},                   // timed on gpu1, which reaches gpu0 over SYS
		{"p2p_latency", "gpu1>gpu0", nil},
		{"nccl_allreduce_busbw", "node", benchreport.F(0.1901)}, // 85.56 of 450
	} {
		m := find(t, doc, tc.name, tc.dev)
		if (m.Efficiency == nil) != (tc.want == nil) || (tc.want != nil && *m.Efficiency != *tc.want) {
			t.Errorf("%s on %s: efficiency %v, want %v", tc.name, tc.dev, ptr(m.Efficiency), ptr(tc.want))
		}
	}
}

func ptr(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// A GPU without room for the matrix's buffers fails the group once, on the
// node, naming the GPU; what was allocated is freed.
func TestP2PNoMemory(t *testing.T) {
	ps := newPeers(2)
	ps[1].allocLimit = 1024
	doc, err := (&Runner{Tune: multiPlan}).Run(context.Background(), devices(ps), Request{Device: DeviceGPU, Only: []string{GroupP2P}})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Measurements) != 1 || doc.Measurements[0].Device != "node" || doc.Measurements[0].Status != "failed" ||
		doc.Measurements[0].Detail != "preparing two 1 MiB buffers on gpu1: out of memory" {
		t.Errorf("measurements %+v", doc.Measurements)
	}
	if len(ps[0].mem)+len(ps[1].mem) != 0 {
		t.Errorf("buffers left: %d, %d", len(ps[0].mem), len(ps[1].mem))
	}
}
