package advise

// The communication model of data-parallel training, in place of a flat
// per-link efficiency.
//
// A step of data-parallel training computes on every GPU, then averages the
// gradients with a ring all-reduce. Per step:
//
//	compute   Tc = samples_per_gpu_step × flops_per_sample / (F_ref × mfu × speed)
//	          F_ref: the reference GPU's dense TFLOP/s at the scenario's precision
//	          (measured where a bench report has it), speed: the GPU's throughput
//	          relative to the reference (the speed model); flops_per_sample is
//	          6 × reference_parameters where the scenario gives none; mfu is
//	          step_mfu where the scenario has no mfu
//	comm      Tm = 2(n−1)/n × G / B, G = 2 bytes × reference_parameters (bf16
//	          gradients), n = GPUs in the plan, B = the all-reduce's bus
//	          bandwidth: inside a node the GPU link (NCCL bus bandwidth measured
//	          in a bench report, else half the datasheet's bidirectional NVLink
//	          figure, else assumed_link_gbs); across nodes the smaller of that and
//	          the fabric's measured NCCL bus bandwidth (fabrics.yaml: EFA,
//	          InfiniBand, TCPXO; others borrow EFA's curve, said as an
//	          assumption) at the message size (a DDP bucket, or a layer where
//	          sharded), scaled by the node's aggregate NIC bandwidth: NCCL runs a
//	          ring per NIC rail, so it is the node's NICs together, not one
//	          GPU's share, that carry the all-reduce (assumed_network_gbps where
//	          the network is unknown)
//	exposed   E = max(0, Tm − overlap × Tc): the communication the backward pass
//	          does not hide
//	step      Tc + E; efficiency e = Tc / (Tc + E)
//
// With --model (requestWorkload) the model replaces the scenario's reference:
// G = 2 bytes × its parameters for full training, × its LoRA adapters'
// parameters for LoRA/QLoRA; 6 × active parameters FLOPs a token; context ×
// sequences per GPU tokens a step. Full training of a --model is sharded
// (FSDP/ZeRO-3): two all-gathers of the weights and a reduce-scatter of the
// gradients, 1.5× an all-reduce's bytes, a layer at a time. Pipeline and
// tensor parallelism across nodes are not modelled.
//
// A job measured on the user's own shape (--gpu NAME:COUNT --for T) took T
// at that shape's efficiency e_ref, so every offering's efficiency is taken
// relative to it: the user's shape reproduces T exactly, and a shape with a
// slower link or network takes longer by e_ref/e. The reference shape is
// COUNT reference GPUs in nodes of at most 8 on the GPU's own datasheet link,
// joined by reference_network_gbps where there is more than one node.
//
// Scenarios that are not communication-heavy (inference) have e = 1.
// Communication-heavy work spreads over nodes only when they are joined by
// a fast network (catalog.Offering.FastNetwork: EFA, InfiniBand,
// GPUDirect-TCPX/TCPXO or RDMA of at least 100 Gbps) and not on marketplace hosts,
// unless the request allows it (AllowSlowNetwork).

import (
	"fmt"
	"math"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/models"
)

// CommParams are the modelling parameters of the communication model that
// hold for every scenario (scenarios.yaml).
type CommParams struct {
	// AssumedLinkGBs is the per-GPU, one-direction GPU-link bandwidth (GB/s)
	// assumed where a node's link has no sourced figure (PCIe, unknown).
	AssumedLinkGBs float64 `yaml:"assumed_link_gbs" json:"assumed_link_gbs"`
	// AssumedNetworkGbps is the inter-node bandwidth assumed where an
	// offering's network is not sourced (only used when allowed).
	AssumedNetworkGbps float64 `yaml:"assumed_network_gbps" json:"assumed_network_gbps"`
	// ReferenceNetworkGbps joins the nodes of the user's own shape when it
	// has more than 8 GPUs (on EFA).
	ReferenceNetworkGbps float64 `yaml:"reference_network_gbps" json:"reference_network_gbps"`
	// BucketBytes is the message size of a data-parallel gradient
	// all-reduce: PyTorch DDP's default bucket (pytorch-ddp-bucket).
	BucketBytes float64 `yaml:"bucket_bytes" json:"bucket_bytes"`
	// CollectiveLatencyUS is the fixed time of one small collective or
	// pipeline hop in serving, microseconds (an assumption, printed).
	CollectiveLatencyUS float64 `yaml:"collective_latency_us" json:"collective_latency_us"`

	fabrics fabricTable // measured NCCL across nodes (fabrics.yaml)
}

// shape is how a plan lays out its GPUs.
type shape struct {
	gpu         *catalog.GPU
	gpusPerNode float64
	nodes       int
	linkGBs     float64 // per GPU, one direction, inside a node
	linkNote    string
	netGbps     float64 // per node, all its NICs together, between nodes
	netKind     string  // the fabric (catalog.NetEFA, ...)
	netNote     string
	speed       float64 // relative to the reference GPU
}

// commResult is the step-time arithmetic of one shape.
type commResult struct {
	computeS, commS, exposedS float64
	bottleneckGBs             float64
	netNote                   string // where the across-node figure comes from
	eff                       float64
	frozenGathered            bool // LoRA's frozen weights are sharded and all-gathered
}

// frozenGathered says whether a LoRA/QLoRA job's frozen weights are
// sharded over the shape's GPUs: the job does not fit one of its GPUs.
func (w workload) frozenGathered(s shape) bool {
	if w.frozenBytes == 0 || s.gpu == nil {
		return false
	}
	gb := s.gpu.MemoryClassGB
	return !gb.Known || !fitsOneGPU(w.memBytes, gb.Value)
}

// workload is what a step computes and all-reduces.
type workload struct {
	commHeavy      bool
	gradParams     float64 // parameters whose bf16 gradients are all-reduced
	flopsPerSample float64 // training FLOPs per token or image
	samples        float64 // tokens or images per GPU per step
	mfu, overlap   float64
	what           string // where gradParams come from
	// sharded: FSDP/ZeRO-3 (full training of a --model): per step two
	// all-gathers of the weights and a reduce-scatter of the gradients,
	// 3(n−1)/n × S bytes a GPU where an all-reduce moves 2(n−1)/n × S; its
	// collectives are a layer's (layerParams) at a time.
	sharded     bool
	layerParams float64
	// frozenBytes are LoRA/QLoRA's frozen weights; where the job needs more
	// memory than one GPU has (memBytes, models.Memory.Total), FSDP shards
	// them and all-gathers them in the forward and the backward pass, 2 ×
	// (n−1)/n × frozenBytes a GPU a step, beside the adapters' all-reduce.
	frozenBytes, memBytes float64
}

// scenarioWorkload is the scenario's reference model.
func scenarioWorkload(sc *Scenario) workload {
	w := workload{commHeavy: sc.CommHeavy, gradParams: sc.ReferenceParameters, flopsPerSample: sc.FlopsPerSample,
		samples: sc.SamplesPerGPUStep, mfu: sc.MFU, overlap: sc.Overlap, what: fmt.Sprintf("%s's reference model in scenarios.yaml", sc.Name)}
	if w.mfu == 0 {
		w.mfu = sc.StepMFU
	}
	if w.flopsPerSample == 0 {
		w.flopsPerSample = 6 * sc.ReferenceParameters
	}
	return w
}

// requestWorkload is the request's model where --model gives one (full
// training all-reduces every parameter's gradient, LoRA/QLoRA only the
// adapters'; 6 × active parameters FLOPs a token; context × sequences per
// GPU tokens a step), else the scenario's reference model.
func requestWorkload(req *Request) workload {
	w := scenarioWorkload(req.Scenario)
	mj := req.Model
	if mj == nil || mj.Model == nil || mj.Method == models.MethodInference {
		return w
	}
	m := mj.Model
	w.gradParams, w.what = m.Parameters, fmt.Sprintf("%s, %s", m.Name, mj.Method)
	if mj.Method == models.MethodFull { // the memory model shards it (FSDP/ZeRO-3)
		w.sharded = true
		w.what = fmt.Sprintf("%s, full training sharded by FSDP/ZeRO-3: weights all-gathered twice and gradients reduce-scattered", m.Name)
		if m.Layers > 0 {
			w.layerParams = m.Parameters / float64(m.Layers)
			w.what += ", a layer at a time"
		}
	}
	w.flopsPerSample = 6 * m.ActiveParameters
	if mj.Method == models.MethodLoRA || mj.Method == models.MethodQLoRA {
		if n, ok := m.LoRAParameters(mj.LoRARank); ok {
			w.gradParams, w.what = n, fmt.Sprintf("%s, rank-%d adapters", m.Name, mj.LoRARank)
		}
		w.flopsPerSample = 4 * m.ActiveParameters            // no weight gradients (models.AdapterTrainingFLOPs)
		if mem, err := models.Estimate(mj.Job); err == nil { // the memory model's own figures
			w.memBytes, w.frozenBytes = mem.Total(), mem.Part(models.FrozenWeightsPart)
		}
	}
	factor, _ := models.TimeFactor(mj.Job) // QLoRA's dequantisation, no recompute
	w.flopsPerSample *= factor
	if mj.Context > 0 {
		w.samples = float64(mj.Context) * float64(max(mj.Concurrency, 1))
	}
	return w
}

// message is the size of one collective of the workload: a layer's bf16
// gradients where it is sharded, else a DDP bucket (or all the gradients
// where they are smaller).
func (w workload) message(p CommParams) float64 {
	if w.sharded && w.layerParams > 0 {
		return 2 * w.layerParams
	}
	return math.Min(p.BucketBytes, 2*w.gradParams)
}

// stepTime works out a shape's step for the workload. refTFLOPS is the
// reference GPU's dense rate before MFU. The all-reduce's bus bandwidth is
// the GPU link inside a node; across nodes, the fabric's measured NCCL bus
// bandwidth at the workload's message size, scaled by the node's NIC
// bandwidth (fabrics.yaml), and never above the GPU link.
func stepTime(w workload, p CommParams, refTFLOPS float64, s shape) commResult {
	r := commResult{eff: 1}
	r.computeS = w.samples * w.flopsPerSample / (refTFLOPS * 1e12 * w.mfu * s.speed)
	n := s.gpusPerNode * float64(s.nodes)
	if !w.commHeavy || n <= 1 || !(r.computeS > 0) {
		return r
	}
	b := math.Inf(1)
	if s.gpusPerNode > 1 {
		b = s.linkGBs
	}
	if s.nodes > 1 {
		net, note := p.fabrics.netBusBW(s.netKind, s.netGbps, s.nodes, w.message(p))
		if net < b {
			b = net
		}
		r.netNote = note
	}
	r.bottleneckGBs = b
	bytes := 2 * (n - 1) / n * 2 * w.gradParams // a ring all-reduce of the bf16 gradients
	if w.sharded {
		bytes *= 1.5 // all-gather ×2 + reduce-scatter: 3(n−1)/n × S
	}
	if r.frozenGathered = w.frozenGathered(s); r.frozenGathered {
		bytes += 2 * (n - 1) / n * w.frozenBytes
	}
	r.commS = bytes / (b * 1e9)
	r.exposedS = math.Max(0, r.commS-w.overlap*r.computeS)
	r.eff = r.computeS / (r.computeS + r.exposedS)
	return r
}

// linkGBs is the per-GPU one-direction GPU-link bandwidth of a node of
// count g on link: measured NCCL bus bandwidth, else half the datasheet's
// bidirectional NVLink figure (the GPU's own, or, for a generic GPU on
// NVSwitch, its SXM variant's: switchedVariant), else the assumption.
func (m *speedModel) linkGBs(g *catalog.GPU, link string, count float64, p CommParams) (float64, string) {
	if r := m.bench[g]; r != nil && r.NCCLBusBWGBs > 0 {
		return r.NCCLBusBWGBs, fmt.Sprintf("%.4g GB/s NCCL bus bandwidth (measured, %s)", r.NCCLBusBWGBs, r.Path)
	}
	switch link {
	case catalog.LinkNVSwitch, catalog.LinkNVLink:
		if g.InterconnectBW.Known {
			return g.InterconnectBW.Value / 2, fmt.Sprintf("%g GB/s per GPU each way (%s, half the %g GB/s datasheet figure, %s)", g.InterconnectBW.Value/2, link, g.InterconnectBW.Value, g.InterconnectBW.Source)
		}
		if v := m.switchedVariant(g, link, count); v != nil {
			return v.InterconnectBW.Value / 2, fmt.Sprintf("%g GB/s per GPU each way (%s among %s GPUs: the SXM module on an NVSwitch board, %s, half its %g GB/s datasheet figure, %s)",
				v.InterconnectBW.Value/2, link, fmtCount(count), v.Name, v.InterconnectBW.Value, v.InterconnectBW.Source)
		}
	case "", catalog.LinkUnknown:
		return p.AssumedLinkGBs, fmt.Sprintf("%g GB/s per GPU each way (assumed: no source names the link)", p.AssumedLinkGBs)
	}
	return p.AssumedLinkGBs, fmt.Sprintf("%g GB/s per GPU each way (%s: bandwidth not sourced, assumed)", p.AssumedLinkGBs, link)
}

// offeringShape is the shape of k instances of o.
func (m *speedModel) offeringShape(o *catalog.Offering, k int, speed float64, p CommParams) shape {
	s := shape{gpu: o.GPU, gpusPerNode: math.Max(o.GPUCount, 1), nodes: k, speed: speed, netKind: o.NetworkKind}
	s.linkGBs, s.linkNote = m.linkGBs(o.GPU, o.Interconnect, o.GPUCount, p)
	if o.NetworkGbps > 0 {
		src := o.NetworkSource
		if src == "" {
			src = o.SpecSource
		}
		s.netGbps, s.netNote = o.NetworkGbps, fmt.Sprintf("%s %g Gbps (%s)", o.Network(), o.NetworkGbps, src)
		if o.NetworkKind == "" { // a figure with no fabric named: the instance's own, not a network between instances
			s.netNote = fmt.Sprintf("%g Gbps (the instance's network bandwidth, %s; the fabric between instances is not sourced)", o.NetworkGbps, src)
		}
	} else if o.NetworkKind != "" {
		s.netGbps, s.netNote = p.AssumedNetworkGbps, fmt.Sprintf("%s (%s), bandwidth not sourced, assumed %g Gbps", o.Network(), o.NetworkSource, p.AssumedNetworkGbps)
	} else {
		s.netGbps, s.netNote = p.AssumedNetworkGbps, fmt.Sprintf("network not sourced, assumed %g Gbps", p.AssumedNetworkGbps)
	}
	return s
}

// refShape is the user's own shape: count reference GPUs in nodes of at most
// 8 on the GPU's datasheet link, joined by the reference network.
func (m *speedModel) refShape(count float64, p CommParams) shape {
	g := m.ref
	per := math.Min(math.Max(count, 1), 8)
	link := catalog.LinkPCIe
	if g.InterconnectBW.Known {
		link = catalog.LinkNVLink
	}
	s := shape{gpu: g, gpusPerNode: per, nodes: int(math.Ceil(math.Max(count, 1)/per - 1e-9)), speed: 1}
	s.linkGBs, s.linkNote = m.linkGBs(g, link, per, p)
	s.netGbps, s.netKind = p.ReferenceNetworkGbps, catalog.NetEFA
	return s
}

// refTFLOPS is the reference GPU's rate at the scenario's precision.
func (m *speedModel) refTFLOPS() float64 {
	c, _, _, _, _ := m.figures(m.ref)
	return c
}

// commModel evaluates shapes relative to the user's own.
type commModel struct {
	w       workload
	p       CommParams
	sm      *speedModel
	refTF   float64
	refEff  float64
	refStep commResult
}

func newCommModel(w workload, p CommParams, sm *speedModel, refCount float64) *commModel {
	m := &commModel{w: w, p: p, sm: sm, refTF: sm.refTFLOPS(), refEff: 1}
	if m.refTF > 0 {
		m.refStep = stepTime(w, p, m.refTF, sm.refShape(refCount, p))
		m.refEff = m.refStep.eff
	}
	return m
}

// shapeOf is the shape of one instance of o (its link and network looked
// up once; at(k) spreads it over k instances).
func (m *commModel) shapeOf(o *catalog.Offering, speed float64) shape {
	return m.sm.offeringShape(o, 1, speed, m.p)
}

// at is the shape over k instances.
func (s shape) at(k int) shape {
	s.nodes = k
	return s
}

// efficiency of a shape relative to the user's, with the step arithmetic
// behind it.
func (m *commModel) efficiency(s shape) (float64, commResult) {
	if m.refTF == 0 {
		return 1, commResult{eff: 1}
	}
	r := stepTime(m.w, m.p, m.refTF, s)
	return r.eff / m.refEff, r
}

// note explains a shape's efficiency with its numbers.
func (m *commModel) note(r commResult, s shape) string {
	k := s.nodes
	n := s.gpusPerNode * float64(k)
	if !m.w.commHeavy || n <= 1 || r.commS == 0 {
		return ""
	}
	where := "GPU link " + s.linkNote
	if k > 1 {
		where = fmt.Sprintf("GPU link %s; between %d nodes on %s: %s", s.linkNote, k, s.netNote, r.netNote)
	}
	what := "all-reduce"
	if m.w.sharded {
		what = "all-gathers and reduce-scatter (1.5× an all-reduce's bytes)"
	}
	if r.frozenGathered {
		what = fmt.Sprintf("two all-gathers of the %s frozen weights (sharded: the job needs %s, more than one %s) and the all-reduce", fmtBytes(m.w.frozenBytes), fmtBytes(m.w.memBytes), s.gpu.Name)
	}
	own := ""
	if m.refEff < 0.9995 {
		own = fmt.Sprintf(" (%.0f%% on your own shape)", 100*m.refEff)
	}
	return fmt.Sprintf("%s of %s bf16 gradients (%s) over %g GPUs: %.1f ms a step at %.4g GB/s bus bandwidth (%s), %.1f ms exposed beyond %.0f%% overlap with %.1f ms of compute → %.0f%% efficiency%s",
		what, fmtBytes(2*m.w.gradParams), m.w.what, n, 1000*r.commS, r.bottleneckGBs, where, 1000*r.exposedS, 100*m.w.overlap, 1000*r.computeS, 100*r.eff, own)
}

// networkRefusal says why instances of o may not be joined to carry
// communication-heavy work, or "": more than one node needs a fast network
// and no marketplace, unless the request allows it. The text follows "needs
// N instances, and".
func networkRefusal(req *Request, p *catalog.Provider, o *catalog.Offering) string {
	if !req.Scenario.CommHeavy || req.AllowSlowNetwork {
		return ""
	}
	if p != nil && p.Marketplace {
		return fmt.Sprintf("%s is a marketplace of individual hosts (%s): %s is communication-heavy and gets no multi-node plans there; --allow-slow-network to allow", o.Provider, p.MarketplaceSource, req.Scenario.Name)
	}
	if !o.FastNetwork() {
		net := "not sourced"
		switch {
		case o.NetworkGbps > 0 && o.NetworkKind == "":
			net = fmt.Sprintf("%g Gbps of an unnamed fabric", o.NetworkGbps)
		case o.NetworkGbps > 0:
			net = fmt.Sprintf("%s %g Gbps", o.Network(), o.NetworkGbps)
		case o.NetworkKind != "":
			net = o.Network() + " of unsourced bandwidth"
		}
		return fmt.Sprintf("the network between them is %s: %s is communication-heavy and spreads over nodes only on EFA, InfiniBand, GPUDirect-TCPX/TCPXO or RDMA of at least %d Gbps; --allow-slow-network to allow", net, req.Scenario.Name, catalog.FastNetworkGbps)
	}
	return ""
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1e9:
		return fmt.Sprintf("%.3g GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.3g MB", b/1e6)
	}
	return fmt.Sprintf("%.3g kB", b/1e3)
}

// switchedVariant is the variant of a generic GPU that an NVSwitch board
// holds (its board_link is nvswitch, with a sourced NVLink figure), or nil:
// a provider that names only "A100 40GB" but NVSwitch (or NVLink among more
// than two GPUs, which a PCIe card's bridge cannot join) runs the SXM module.
func (m *speedModel) switchedVariant(g *catalog.GPU, link string, count float64) *catalog.GPU {
	// NVSwitch, or NVLink among more GPUs than a bridge joins (two).
	if m.cat == nil || !g.Generic || g.InterconnectBW.Known || !(link == catalog.LinkNVSwitch || link == catalog.LinkNVLink && count > 2) {
		return nil
	}
	vs, err := m.cat.LookupGPU(g.Name)
	if err != nil {
		return nil
	}
	var hit *catalog.GPU
	for _, v := range vs {
		if v != g && v.BoardLink == catalog.LinkNVSwitch && v.InterconnectBW.Known {
			if hit != nil {
				return nil // two candidates: no guess
			}
			hit = v
		}
	}
	return hit
}
