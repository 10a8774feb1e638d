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
//	          6 × reference_parameters where the scenario gives none
//	comm      Tm = 2(n−1)/n × G / B, G = 2 bytes × reference_parameters (bf16
//	          gradients), n = GPUs in the plan, B = the slowest link per GPU:
//	          inside a node the GPU link (NCCL bus bandwidth measured in a bench
//	          report, else half the datasheet's bidirectional NVLink figure, else
//	          assumed_link_gbs); between nodes network Gbps / 8 per node, shared
//	          by its GPUs (assumed_network_gbps where the network is unknown)
//	exposed   E = max(0, Tm − overlap × Tc): the communication the backward pass
//	          does not hide
//	step      Tc + E; efficiency e = Tc / (Tc + E)
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
// GPUDirect-TCPX or RDMA of at least 100 Gbps) and not on marketplace hosts,
// unless the request allows it (AllowSlowNetwork).

import (
	"fmt"
	"math"

	"github.com/gpuscout/gpuscout/internal/catalog"
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
	// has more than 8 GPUs.
	ReferenceNetworkGbps float64 `yaml:"reference_network_gbps" json:"reference_network_gbps"`
}

// shape is how a plan lays out its GPUs.
type shape struct {
	gpu         *catalog.GPU
	gpusPerNode float64
	nodes       int
	linkGBs     float64 // per GPU, one direction, inside a node
	linkNote    string
	netGbps     float64 // per node, between nodes
	netNote     string
	speed       float64 // relative to the reference GPU
}

// commResult is the step-time arithmetic of one shape.
type commResult struct {
	computeS, commS, exposedS float64
	bottleneckGBs             float64
	eff                       float64
}

// stepTime works out a shape's step for the scenario. refTFLOPS is the
// reference GPU's sustained-before-MFU rate.
func stepTime(sc *Scenario, refTFLOPS float64, s shape) commResult {
	flops := sc.FlopsPerSample
	if flops == 0 {
		flops = 6 * sc.ReferenceParameters
	}
	r := commResult{eff: 1}
	r.computeS = sc.SamplesPerGPUStep * flops / (refTFLOPS * 1e12 * sc.MFU * s.speed)
	n := s.gpusPerNode * float64(s.nodes)
	if !sc.CommHeavy || n <= 1 {
		return r
	}
	b := math.Inf(1)
	if s.gpusPerNode > 1 {
		b = s.linkGBs
	}
	if s.nodes > 1 {
		b = math.Min(b, s.netGbps/8/s.gpusPerNode)
	}
	r.bottleneckGBs = b
	grad := 2 * sc.ReferenceParameters
	r.commS = 2 * (n - 1) / n * grad / (b * 1e9)
	r.exposedS = math.Max(0, r.commS-sc.Overlap*r.computeS)
	r.eff = r.computeS / (r.computeS + r.exposedS)
	return r
}

// linkGBs is the per-GPU one-direction GPU-link bandwidth of a node of g
// on link: measured NCCL bus bandwidth, else half the datasheet's
// bidirectional NVLink figure, else the assumption.
func (m *speedModel) linkGBs(g *catalog.GPU, link string, p CommParams) (float64, string) {
	if r := m.bench[g]; r != nil && r.NCCLBusBWGBs > 0 {
		return r.NCCLBusBWGBs, fmt.Sprintf("%g GB/s NCCL bus bandwidth (measured, %s)", r.NCCLBusBWGBs, r.Path)
	}
	switch link {
	case catalog.LinkNVSwitch, catalog.LinkNVLink:
		if g.InterconnectBW.Known {
			return g.InterconnectBW.Value / 2, fmt.Sprintf("%g GB/s per GPU each way (%s, half the %g GB/s datasheet figure)", g.InterconnectBW.Value/2, link, g.InterconnectBW.Value)
		}
	}
	return p.AssumedLinkGBs, fmt.Sprintf("%g GB/s per GPU each way (%s: bandwidth not sourced, assumed)", p.AssumedLinkGBs, link)
}

// offeringShape is the shape of k instances of o.
func (m *speedModel) offeringShape(o *catalog.Offering, k int, speed float64, p CommParams) shape {
	s := shape{gpu: o.GPU, gpusPerNode: math.Max(o.GPUCount, 1), nodes: k, speed: speed}
	s.linkGBs, s.linkNote = m.linkGBs(o.GPU, o.Interconnect, p)
	if o.NetworkGbps > 0 {
		s.netGbps, s.netNote = o.NetworkGbps, fmt.Sprintf("%s %g Gbps (%s)", o.Network(), o.NetworkGbps, o.NetworkSource)
		if o.NetworkSource == "" {
			s.netNote = fmt.Sprintf("%s %g Gbps (%s)", o.Network(), o.NetworkGbps, o.SpecSource)
		}
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
	s.linkGBs, s.linkNote = m.linkGBs(g, link, p)
	s.netGbps = p.ReferenceNetworkGbps
	return s
}

// refTFLOPS is the reference GPU's rate at the scenario's precision.
func (m *speedModel) refTFLOPS() float64 {
	c, _, _, _, _ := m.figures(m.ref)
	return c
}

// commModel evaluates shapes relative to the user's own.
type commModel struct {
	sc      *Scenario
	p       CommParams
	sm      *speedModel
	refTF   float64
	refEff  float64
	refStep commResult
}

func newCommModel(sc *Scenario, p CommParams, sm *speedModel, refCount float64) *commModel {
	m := &commModel{sc: sc, p: p, sm: sm, refTF: sm.refTFLOPS(), refEff: 1}
	if m.refTF > 0 {
		m.refStep = stepTime(sc, m.refTF, sm.refShape(refCount, p))
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
	r := stepTime(m.sc, m.refTF, s)
	return r.eff / m.refEff, r
}

// note explains a shape's efficiency with its numbers.
func (m *commModel) note(r commResult, s shape) string {
	k := s.nodes
	n := s.gpusPerNode * float64(k)
	if !m.sc.CommHeavy || n <= 1 {
		return ""
	}
	where := "GPU link " + s.linkNote
	if k > 1 {
		where = fmt.Sprintf("GPU link %s; between %d nodes %s, %.3g GB/s per GPU", s.linkNote, k, s.netNote, s.netGbps/8/s.gpusPerNode)
	}
	return fmt.Sprintf("all-reduce of %s bf16 gradients over %g GPUs: %.1f ms a step at %.3g GB/s (%s), %.1f ms exposed beyond %.0f%% overlap with %.1f ms of compute → %.0f%% efficiency (%.0f%% on your own shape)",
		fmtBytes(2*m.sc.ReferenceParameters), n, 1000*r.commS, r.bottleneckGBs, where, 1000*r.exposedS, 100*m.sc.Overlap, 1000*r.computeS, 100*r.eff, 100*m.refEff)
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
		if o.NetworkGbps > 0 || o.NetworkKind != "" {
			net = fmt.Sprintf("%s %g Gbps", o.Network(), o.NetworkGbps)
		}
		return fmt.Sprintf("the network between them is %s: %s is communication-heavy and spreads over nodes only on EFA, InfiniBand, GPUDirect-TCPX or RDMA of at least %d Gbps; --allow-slow-network to allow", net, req.Scenario.Name, catalog.FastNetworkGbps)
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
