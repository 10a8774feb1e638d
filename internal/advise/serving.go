package advise

import (
	"fmt"
	"math"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/models"
)

// servingPlan is how one replica of a served model (--method inference)
// lies on an offering: tensor parallel over the GPUs of an instance and,
// where one instance cannot hold it, pipeline parallel over stages
// instances, each a stage of the layers. Its efficiency is a decode
// step's time over that time plus the communication no overlap hides:
//
//	step  = (weights + KV cache) per GPU / the GPU's memory bandwidth
//	        (decoding is bandwidth-bound: every step reads them once)
//	TP    = 2 all-reduces a layer of concurrency × hidden × 2 B over the
//	        instance's GPU link: 2·L/stages × 2(t−1)/t × b·h·2 B ÷ link GB/s
//	PP    = (stages − 1) hops a step of b·h·2 B over the network ÷ its GB/s
//
// each collective and hop also pays a fixed latency (CommParams.
// CollectiveLatencyUS, an assumption). A token passes the stages in turn:
// only min(concurrency, stages) of them work at once.
type servingPlan struct {
	stages          int
	eff             float64
	stepS, tpS, ppS float64
	// busy is the share of stages at work at once: a request's token passes
	// the stages one after another, so only min(concurrency, stages) of them
	// hold a micro-batch (concurrency/stages where fewer requests than stages).
	busy           float64
	tpNote, ppNote string
}

// servingShape works out the serving plan of one replica of the model job
// on instances of o with the given stages (1: within one instance).
func servingShape(mem *models.Memory, o *catalog.Offering, s shape, gpuBW float64, stages int, p CommParams) servingPlan {
	sp := servingPlan{stages: max(stages, 1), eff: 1, busy: 1}
	md := mem.Job.Model
	t := math.Max(1, math.Round(o.GPUCount))
	gpus := t * float64(sp.stages)
	if gpuBW > 0 {
		sp.stepS = mem.Sharded() / gpus / (gpuBW * 1e9)
	}
	if md == nil || md.Hidden == 0 || md.Layers == 0 || !(sp.stepS > 0) {
		return sp
	}
	act := float64(max(mem.Job.Concurrency, 1)) * float64(md.Hidden) * 2 // bytes a token's activations take between layers and stages
	if t > 1 {
		calls := 2 * float64(md.Layers) / float64(sp.stages)
		bytes := calls * 2 * (t - 1) / t * act
		lat := calls * p.CollectiveLatencyUS * 1e-6
		sp.tpS = bytes/(s.linkGBs*1e9) + lat
		sp.tpNote = fmt.Sprintf("tensor parallel over %g GPUs: 2 all-reduces a layer of %d concurrent × %d hidden × 2 B, %.3g MB a step at %.4g GB/s (%s) plus %.0f × %g µs (collective_latency_us, an assumption) = %.3f ms",
			t, max(mem.Job.Concurrency, 1), md.Hidden, bytes/1e6, s.linkGBs, s.linkNote, calls, p.CollectiveLatencyUS, 1000*sp.tpS)
	}
	if sp.stages > 1 {
		netGBs := s.netGbps / 8
		hops := float64(sp.stages - 1)
		sp.ppS = hops*act/(netGBs*1e9) + hops*p.CollectiveLatencyUS*1e-6
		sp.ppNote = fmt.Sprintf("pipeline parallel over %d instances (%d layers a stage): %s a step of %.3g MB at %.4g GB/s (%s) plus %g µs each = %.3f ms",
			sp.stages, int(math.Ceil(float64(md.Layers)/float64(sp.stages))), cost.Count(sp.stages-1, "hop", "hops"), act/1e6, netGBs, s.netNote, p.CollectiveLatencyUS, 1000*sp.ppS)
	}
	sp.busy = math.Min(1, float64(max(mem.Job.Concurrency, 1))/float64(sp.stages))
	sp.eff = sp.busy * sp.stepS / (sp.stepS + sp.tpS + sp.ppS)
	return sp
}

// line explains the serving plan: the step, each communication and the
// efficiency, or "" where a replica is one GPU.
func (sp servingPlan) line() string {
	if sp.tpNote == "" && sp.ppNote == "" {
		return ""
	}
	out := fmt.Sprintf("serving: a decode step reads the weights and KV cache once, %.3f ms per GPU at its memory bandwidth", 1000*sp.stepS)
	for _, n := range []string{sp.tpNote, sp.ppNote} {
		if n != "" {
			out += "; " + n
		}
	}
	if sp.busy < 1 {
		out += fmt.Sprintf("; %s keep %.0f%% of the %d stages at work (a token passes them in turn: --concurrency ≥ %d fills the pipeline)",
			cost.Count(int(math.Round(sp.busy*float64(sp.stages))), "concurrent request", "concurrent requests"), 100*sp.busy, sp.stages, sp.stages)
	}
	return out + fmt.Sprintf(" → %.0f%% efficiency", 100*sp.eff)
}

// servingRefusal says why a replica may not span instances of o, or "":
// pipeline stages need one cluster, not marketplace hosts, on a sourced
// network, unless --allow-slow-network.
func servingRefusal(req *Request, p *catalog.Provider, o *catalog.Offering, stages int) string {
	if stages <= 1 || req.AllowSlowNetwork {
		return ""
	}
	if p != nil && p.Marketplace {
		return fmt.Sprintf("a replica needs %d instances as pipeline stages, and %s is a marketplace of individual hosts (%s), not one cluster; --allow-slow-network to allow", stages, o.Provider, p.MarketplaceSource)
	}
	if o.NetworkGbps == 0 {
		return fmt.Sprintf("a replica needs %d instances as pipeline stages, and the network between them is not sourced; --allow-slow-network to allow", stages)
	}
	return ""
}
