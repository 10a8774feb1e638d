package advise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// The step arithmetic of comm.go for stated cases, worked by hand.
// Scenario: 1e9 parameters (2e9 bytes of bf16 gradients), 8192 tokens per GPU
// per step at 6e9 FLOPs a token, mfu 0.4, overlap 0.66, on a 1000 TFLOP/s
// reference: Tc = 8192 × 6e9 / (1000e12 × 0.4) = 0.12288 s; the overlap hides
// up to 0.66 × 0.12288 = 0.0811008 s of communication. The gradients go in
// 25 MiB DDP buckets; across nodes the bus bandwidth at 25 MiB comes from
// fabrics.yaml (below its smallest measured size, 32 MiB, in proportion).
func TestStepTime(t *testing.T) {
	w := scenarioWorkload(&Scenario{CommHeavy: true, ReferenceParameters: 1e9, SamplesPerGPUStep: 8192, MFU: 0.4, Overlap: 0.66})
	p := testComm(t)
	// 16 one-GPU VMs on 25 Gbps of an unknown fabric borrow EFA's 16-node
	// row (aws-p5-nccl-hyperpod@4fdb5a4f): 74.85 GB/s at 32 MiB → 74.85 ×
	// 25/32 = 58.4765625 at 25 MiB, 356.27 at 8 GiB; the bandwidth part
	// scaled to 25 of 3200 Gbps: 1/b′ = (1/58.4765625 − 1/356.27) +
	// 128/356.27 → b′ = 2.67685954… GB/s (86% of the 3.125 GB/s NIC).
	slow := 1 / ((1/58.4765625 - 1/356.27) + 128/356.27)
	slowTm := 2 * 15.0 / 16 * 2e9 / (slow * 1e9)
	for _, tc := range []struct {
		name                  string
		s                     shape
		bGBs, commS, exposedS float64
		eff                   float64
	}{
		// 8 GPUs on NVSwitch at 450 GB/s each way: Tm = 2·7/8 · 2e9 / 450e9 = 7.777… ms, hidden.
		{"one 8-GPU node", shape{gpusPerNode: 8, nodes: 1, linkGBs: 450, netGbps: 3200, netKind: catalog.NetEFA, speed: 1}, 450, 2 * 7.0 / 8 * 2e9 / 450e9, 0, 1},
		// 2 × 8 GPUs on 3200 Gbps EFA: p5's 2-node row, 147.32 GB/s at 32 MiB →
		// 147.32 × 25/32 = 115.09375 GB/s (< 450); Tm = 2·15/16 · 2e9 / 115.09375e9
		// = 32.58 ms < 81.1: hidden.
		{"two 8-GPU nodes on EFA", shape{gpusPerNode: 8, nodes: 2, linkGBs: 450, netGbps: 3200, netKind: catalog.NetEFA, speed: 1}, 115.09375, 3.75e9 / 115.09375e9, 0, 1},
		// Tm = 1.875 × 2e9 / 2.6768595e9 = 1.4009 s; exposed 1.4009 − 0.0811008.
		{"16 one-GPU VMs on 25 Gbps", shape{gpusPerNode: 1, nodes: 16, linkGBs: 16, netGbps: 25, speed: 1}, slow, slowTm, slowTm - 0.0811008, 0.12288 / (0.12288 + slowTm - 0.0811008)},
		// One GPU: nothing to all-reduce.
		{"one GPU", shape{gpusPerNode: 1, nodes: 1, linkGBs: 16, netGbps: 25, speed: 1}, 0, 0, 0, 1},
		// A GPU twice as fast halves Tc to 0.06144 s; 8 GPUs on 16 GB/s PCIe: Tm = 1.75 · 2e9 / 16e9 = 0.21875 s;
		// exposed 0.21875 − 0.66 × 0.06144 = 0.1781996 s; e = 0.06144 / 0.2396396.
		{"fast GPUs on PCIe", shape{gpusPerNode: 8, nodes: 1, linkGBs: 16, speed: 2}, 16, 0.21875, 0.21875 - 0.66*0.06144, 0.06144 / (0.06144 + 0.21875 - 0.66*0.06144)},
	} {
		r := stepTime(w, p, 1000, tc.s)
		if !near(r.bottleneckGBs, tc.bGBs) || !near(r.commS, tc.commS) || !near(r.exposedS, tc.exposedS) || !near(r.eff, tc.eff) {
			t.Errorf("%s: got B %g GB/s, Tm %g s, exposed %g s, e %g; want %g, %g, %g, %g", tc.name,
				r.bottleneckGBs, r.commS, r.exposedS, r.eff, tc.bGBs, tc.commS, tc.exposedS, tc.eff)
		}
	}
	// Not communication-heavy: e = 1 whatever the shape.
	inf := w
	inf.commHeavy = false
	if r := stepTime(inf, p, 1000, shape{gpusPerNode: 1, nodes: 16, netGbps: 1, speed: 1}); r.eff != 1 {
		t.Errorf("inference: e = %g, want 1", r.eff)
	}
}

// testComm is the embedded communication parameters and fabric table.
func testComm(t *testing.T) CommParams {
	t.Helper()
	s, err := LoadScenarios()
	if err != nil {
		t.Fatal(err)
	}
	return s.Comm
}

// synthetic is the default catalog with its offerings replaced by offs.
func synthetic(t *testing.T, a *Advisor, offs ...catalog.Offering) *Advisor {
	t.Helper()
	b := *a
	b.Catalog = a.Catalog.Clone()
	b.Catalog.Offerings = offs
	return &b
}

func h100Offering(c *catalog.Catalog, typ string, gpus float64, link string, netKind string, gbps float64, usdPerHour int64) catalog.Offering {
	return catalog.Offering{Provider: "aws", InstanceType: typ, Region: "us-east-1", GPU: c.GPU("H100-SXM5-80GB"), GPUCount: gpus,
		GPUMemoryGiB: 80, Interconnect: link, NetworkGbps: gbps, NetworkKind: netKind, NetworkSource: "aws-efa-network", SpecSource: "aws-ec2-accelerated",
		OnDemand: catalog.KnownPrice(decimal.NewFromInt(usdPerHour), money.USD, "karpenter-aws@2026-07-20", "2026-07-20")}
}

// 16 one-GPU VMs over 25 Gbps lose to 8-GPU NVSwitch nodes on EFA for
// llm-finetuning, by the hand figures of the step model (H100 bf16 989 TF,
// 1e9 parameters, 8192 tokens per GPU per step, mfu 0.4, overlap 0.66):
//
//	Tc = 8192 × 6e9 / (989e12 × 0.4) = 0.124246… s, hidden up to 0.66 Tc = 0.082002… s
//	VMs, k of them on 25 Gbps Ethernet, which has no published NCCL figure,
//	so EFA's p5 curve at the nearest node count, its bandwidth part scaled
//	to 25 of 3200 Gbps; 12 to 22 VMs take its 16-node row: 74.85 GB/s at 32
//	MiB → 58.4765625 at a 25 MiB bucket, 356.27 at most; 1/b′ = (1/58.4765625
//	− 1/356.27) + 128/356.27 → b′ = 2.6769 GB/s; Tm = 2(k−1)/k × 2e9 / b′
//	5000 GPU-h by 3200 h: k VMs take 5000 / (k × e_k) h; k = 18: 3249.6 h,
//	k = 19: 3087.8 h, the first ≤ 3200 h
//	one 8-GPU node: e = 1 (Tm = 7.8 ms, hidden); 5000 / 8 = 625 h ≤ 3200 h
//
// The VMs cost 2 USD per GPU-hour, the node 3 USD: cheaper per GPU-hour, yet
// 19 × 2 × 3087.8 ≈ 117,338 USD against 24 × 625 = 15,000 USD.
func TestOneGPUVMsLoseToNodes(t *testing.T) {
	base := advisor(t, money.USD)
	c := base.Catalog
	a := synthetic(t, base,
		h100Offering(c, "vm.1gpu", 1, catalog.LinkNone, catalog.NetEthernet, 25, 2),
		h100Offering(c, "node.8gpu", 8, catalog.LinkNVSwitch, catalog.NetEFA, 3200, 24))
	req := request(t, a, "llm-finetuning", "H100-SXM5-80GB")
	req.WorkGPUHours, req.Deadline, req.NoSpot, req.AllowSlowNetwork = 5000, 3200, true, true
	res := run(t, a, req)
	tc := 8192 * 6e9 / (989e12 * 0.4)
	b := 1 / ((1/(74.85*25/32) - 1/356.27) + 128/356.27)
	tm := 2 * 18.0 / 19 * 2e9 / (b * 1e9)
	e19 := tc / (tc + tm - 0.66*tc)
	want := map[string]struct {
		n     int
		hours float64
	}{"vm.1gpu": {19, 5000 / (19 * e19)}, "node.8gpu": {1, 625}}
	seen := map[string]bool{}
	for _, p := range res.Plans {
		if p.Model != "on-demand" {
			continue
		}
		w := want[p.Offering.InstanceType]
		seen[p.Offering.InstanceType] = true
		if p.Instances != w.n || math.Abs(p.ExpectedHours-w.hours) > 1e-6 {
			t.Errorf("%s: %d instances × %.4f h, want %d × %.4f h", p.Offering.InstanceType, p.Instances, p.ExpectedHours, w.n, w.hours)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("plans for %v, want both shapes; excluded %+v", seen, res.Excluded)
	}
	if got := res.Plans[0].Offering.InstanceType; got != "node.8gpu" {
		t.Errorf("first plan on %s, want node.8gpu", got)
	}
	// Without --allow-slow-network the VMs are not spread over nodes at all.
	req.AllowSlowNetwork = false
	res = run(t, a, req)
	for _, p := range res.Plans {
		if p.Offering.InstanceType == "vm.1gpu" {
			t.Errorf("a plan of %d one-GPU VMs on a 25 Gbps network", p.Instances)
		}
	}
	if !excludedFor(res, "H100-SXM5-80GB ×1 (aws)", "ethernet 25 Gbps") {
		t.Errorf("the VMs are not excluded for their network: %+v", res.Excluded)
	}
}

func excludedFor(res *Result, what, reason string) bool {
	for _, x := range res.Excluded {
		if x.What == what && strings.Contains(x.Reason, reason) {
			return true
		}
	}
	return false
}

// The user's own configuration reproduces its own duration: 8 × H100 for 4
// days is 768 GPU-hours of work measured on an 8-GPU NVLink node; every
// 8 × H100 NVSwitch offering runs it in exactly 96 h (the reference shape's
// efficiency divides out). A 4 × A100 cv-training week on 4 × A100-SXM4 takes
// 168 h the same way.
func TestUserShapeReproducesDuration(t *testing.T) {
	a := advisor(t, money.USD)
	for _, tc := range []struct {
		scenario, gpu string
		count, hours  float64
	}{
		{"llm-finetuning", "H100-SXM5-80GB", 8, 96},
		{"llm-pretraining", "H100-SXM5-80GB", 8, 96},
		{"cv-training", "A100-SXM4-40GB", 8, 168},
	} {
		req := request(t, a, tc.scenario, tc.gpu)
		req.RefCount, req.WorkGPUHours, req.NoSpot = tc.count, tc.count*tc.hours, true
		res := run(t, a, req)
		n := 0
		for _, p := range res.Plans {
			o := p.Offering
			if o.GPU.Name != tc.gpu || o.GPUCount != tc.count || o.Interconnect != catalog.LinkNVSwitch {
				continue
			}
			n++
			if p.Instances != 1 || math.Abs(p.ExpectedHours-tc.hours) > 1e-9 {
				t.Errorf("%s on %s %s: %d × %.6f h, want 1 × %g h", tc.scenario, o.Provider, o.InstanceType, p.Instances, p.ExpectedHours, tc.hours)
			}
		}
		if n == 0 {
			t.Errorf("%s: no plan on %g × %s NVSwitch", tc.scenario, tc.count, tc.gpu)
		}
	}
}

// A measured NCCL bus bandwidth replaces the datasheet link figure: H100's
// 900 GB/s NVLink gives 450 GB/s each way; a report's 300 GB/s takes its place.
func TestNCCLBusBandwidthReplacesDatasheet(t *testing.T) {
	a := advisor(t, money.USD)
	g := a.Catalog.GPU("H100-SXM5-80GB")
	sc, _ := a.Scenarios.Get("llm-finetuning")
	sm := &speedModel{sc: sc, ref: g, bench: map[*catalog.GPU]*benchreport.Report{}}
	if got, note := sm.linkGBs(g, catalog.LinkNVSwitch, 8, a.Scenarios.Comm); got != 450 || !strings.Contains(note, "datasheet") {
		t.Errorf("datasheet: %g GB/s (%s), want 450", got, note)
	}
	sm.bench[g] = &benchreport.Report{GPU: g.Name, NCCLBusBWGBs: 300, Path: "h100.json"}
	if got, note := sm.linkGBs(g, catalog.LinkNVSwitch, 8, a.Scenarios.Comm); got != 300 || !strings.Contains(note, "measured, h100.json") {
		t.Errorf("measured: %g GB/s (%s), want 300", got, note)
	}
	// Unsourced links take the stated assumption.
	if got, _ := sm.linkGBs(a.Catalog.GPU("L40S"), catalog.LinkPCIe, 4, a.Scenarios.Comm); got != a.Scenarios.Comm.AssumedLinkGBs {
		t.Errorf("PCIe: %g GB/s, want the assumed %g", got, a.Scenarios.Comm.AssumedLinkGBs)
	}
}

// Property: over random requests, a communication-heavy job is never spread
// over nodes whose network is unknown or slow, nor over marketplace hosts,
// unless allowed; allowed, such plans may appear.
func TestCommHeavyNeverMultiNodeOnSlowNetworks(t *testing.T) {
	a := advisor(t, money.USD)
	rng := rand.New(rand.NewPCG(9, 3))
	scs := []string{"cv-training", "llm-finetuning", "llm-pretraining"}
	refs := []string{"H100-SXM5-80GB", "A100-SXM4-40GB", "L40S", "A10G"}
	multi := 0
	for i := 0; i < 24; i++ {
		req := request(t, a, scs[rng.IntN(len(scs))], refs[rng.IntN(len(refs))])
		req.NoSpot = true
		req.WorkGPUHours = math.Round(math.Pow(10, 2+3*rng.Float64()))
		req.Deadline = math.Round(math.Pow(10, 1+2.5*rng.Float64()))
		name := fmt.Sprintf("%s %s %g GPU-h by %g h", req.Scenario.Name, req.Ref.Name, req.WorkGPUHours, req.Deadline)
		res, err := a.Advise(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, p := range append(res.Plans, res.Closest...) {
			o := p.Offering
			if p.Instances > 1 && (!o.FastNetwork() || a.Catalog.Provider(o.Provider).Marketplace) {
				t.Errorf("%s: %d × %s %s on %s %g Gbps", name, p.Instances, o.Provider, o.InstanceType, o.Network(), o.NetworkGbps)
			}
			if p.Instances > 1 {
				multi++
			}
		}
	}
	if multi == 0 {
		t.Error("no multi-instance plan in any request: the property was not exercised")
	}
}

// Marketplace hosts get no multi-node plans for communication-heavy work:
// 2000 GPU-h of H100 work in 100 h needs 3 × 8 H100 (2000 / 8 = 250 h on one
// node), and Vast's 8 × H100 is excluded saying it is a marketplace.
func TestMarketplaceNoMultiNode(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-finetuning", "H100-SXM5-80GB")
	req.WorkGPUHours, req.Deadline, req.NoSpot = 2000, 100, true
	req.Select.Providers = []string{"vast"}
	res := run(t, a, req)
	for _, p := range res.Plans {
		if p.Instances > 1 {
			t.Errorf("%d × %s on a marketplace", p.Instances, p.Offering.InstanceType)
		}
	}
	if !excludedFor(res, "H100-SXM5-80GB ×8 (vast)", "1 instance take 250.0 h, past the 100 h deadline, so it needs more, and vast is a marketplace") {
		t.Errorf("Vast's 8 × H100 not excluded as a marketplace: %+v", res.Excluded)
	}
}

// With --model the all-reduce carries the model's trainable parameters:
// llama-3-70b (hidden 8192, 64 query heads and 8 KV heads of 128, 80 layers)
// trains rank-16 LoRA adapters of 16 × ((8192+8192) + 2(8192+1024) + (8192+8192))
// × 80 = 16 × 51,200 × 80 = 65,536,000 parameters (131 MB of bf16 gradients);
// full training all-reduces every parameter. A step computes 6 × active
// parameters FLOPs on 4096 tokens (the default context, one sequence a GPU),
// 4 × for adapters (no weight gradients), QLoRA's × 2.79/1.85 on top.
func TestRequestWorkloadFromModel(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-finetuning", "H100-SXM5-80GB")
	req.Model = modelJob(t, "llama-3-70b", "lora")
	req.WorkGPUHours = 1000
	req.Defaults()
	w := requestWorkload(req)
	m := req.Model.Model
	if w.gradParams != 65536000 || w.flopsPerSample != 4*m.ActiveParameters || w.samples != 4096 || w.frozenBytes != 2*m.Parameters {
		t.Errorf("lora: gradients of %g params, %g FLOPs a token, %g tokens a step, %g frozen bytes; want 65536000, %g, 4096, %g",
			w.gradParams, w.flopsPerSample, w.samples, w.frozenBytes, 4*m.ActiveParameters, 2*m.Parameters)
	}
	req.Model = modelJob(t, "llama-3-70b", "qlora")
	req.Defaults()
	if w := requestWorkload(req); math.Abs(w.flopsPerSample-4*m.ActiveParameters*2.79/1.85) > 1 || math.Abs(w.frozenBytes-0.515875*m.Parameters) > 1 {
		t.Errorf("qlora: %g FLOPs a token, %g frozen bytes; want 4N × 2.79/1.85, 0.515875 B × N", w.flopsPerSample, w.frozenBytes)
	}
	req.Model = modelJob(t, "llama-3-70b", "full")
	req.Defaults()
	if w := requestWorkload(req); w.gradParams != m.Parameters {
		t.Errorf("full: gradients of %g params, want all %g", w.gradParams, m.Parameters)
	}
	// No model: the scenario's reference model.
	req.Model = nil
	if w := requestWorkload(req); w.gradParams != 1e9 || w.samples != 8192 {
		t.Errorf("no model: %g params, %g tokens, want llm-finetuning's 1e9 and 8192", w.gradParams, w.samples)
	}
}

// A LoRA step's communication by hand: llama-3-70b at rank 16 needs 167 GB
// (sizing_test), more than an 80 GB H100, so FSDP shards the frozen bf16
// weights over the node's 8 GPUs and all-gathers them in the forward and the
// backward pass: 2 × 7/8 × 141,107,412,992 B = 246,937,972,736 B a GPU, and
// the adapters' all-reduce 2 × 7/8 × 2 × 65,536,000 = 229,376,000 B:
// 247,167,348,736 B at NVSwitch's 450 GB/s = 549.26 ms. On a 180 GB GPU the
// job fits one GPU: the weights are replicated and only the adapters move,
// 229,376,000 B at 900 GB/s = 0.2549 ms.
func TestLoRACommunication(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-finetuning", "H100-SXM5-80GB")
	req.Model = modelJob(t, "llama-3-70b", "lora")
	req.WorkGPUHours = 1000
	req.Defaults()
	w := requestWorkload(req)
	h100, b200 := a.Catalog.GPU("H100-SXM5-80GB"), a.Catalog.GPU("B200")
	r := stepTime(w, testComm(t), 312, shape{gpu: h100, gpusPerNode: 8, nodes: 1, linkGBs: 450, speed: 1})
	if want := 247167348736 / 450e9; math.Abs(r.commS-want) > 1e-9 || !r.frozenGathered {
		t.Errorf("H100 node: %.6f s of communication (frozen gathered %v); want %.6f", r.commS, r.frozenGathered, want)
	}
	r = stepTime(w, testComm(t), 312, shape{gpu: b200, gpusPerNode: 8, nodes: 1, linkGBs: 900, speed: 1})
	if want := 229376000 / 900e9; math.Abs(r.commS-want) > 1e-12 || r.frozenGathered {
		t.Errorf("B200 node: %.7f s (frozen gathered %v); want %.7f, the adapters only", r.commS, r.frozenGathered, want)
	}
}

// Multi-node pre-training by hand on the three fabrics with published
// nccl-tests results (fabrics.yaml): full training of llama-3-8b (N =
// 8,030,261,248 parameters, 32 layers) sharded by FSDP, so a step moves
// 1.5 × 2(n−1)/n × 2N bytes a GPU in messages of one layer's bf16 weights,
// 2N/32 = 478.6 MiB, and computes 4096 tokens × 6N FLOPs at 40% MFU of the
// A100 reference's 312 TF × H100's speed (989/312)^0.8 × (3350/1555)^0.2.
// The bus bandwidth is the fabric's measured figure at 478.6 MiB,
// interpolated in log2 between 256 and 512 MiB:
//
//	EFA, 4 × p5.48xlarge (3200 Gbps): 273.34 … 278.41 GB/s (4-node row, aws-p5-nccl-hyperpod@4fdb5a4f)
//	InfiniBand, 4 × ND96isr_H100_v5 (8 × 400 Gb/s): 239.78 … 290.67 (voltagepark-nccl-allreduce@e55fe749)
//	TCPXO, 2 × a3-megagpu-8g (1800 Gbps): 213.19 … 263.69 (2 nodes, gcp-a3mega-nccl-ztan@02dd8f45)
//
// each below NVSwitch's 450 GB/s and on the measured clusters' own NICs, so
// as measured; Tm = bytes / B, exposed beyond 0.66 Tc, e = Tc/(Tc + exposed).
// There the step hides it (Tm ≈ 0.17 s under Tc ≈ 0.54 s): 100%. On 32 ×
// p4d.24xlarge (A100, EFA 400 Gbps, an eighth of p5's) the 32-node row
// (137.99 … 156.83 GB/s, 321.10 at most) is scaled to 400 Gbps: 1/B =
// (1/b − 1/321.10) + 8/321.10 → B ≈ 35.4 GB/s, Tm ≈ 1.36 s against Tc ≈
// 1.58 s, 0.31 s exposed: about 83%.
func TestMultiNodePretrainingByFabric(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-pretraining", "A100-SXM4-40GB")
	req.Model = modelJob(t, "llama-3-8b", "full")
	req.WorkGPUHours = 1000
	req.Defaults()
	w := requestWorkload(req)
	p := testComm(t)
	n := req.Model.Model.Parameters
	msgMiB := 2 * n / float64(req.Model.Model.Layers) / (1 << 20)
	at := func(lo, hi float64) float64 { return lo + (math.Log2(msgMiB)-8)*(hi-lo) }
	speed := math.Pow(989.0/312, 0.8) * math.Pow(3350.0/1555, 0.2)
	tc := 4096 * 6 * n / (312e12 * 0.4 * speed)
	sm := &speedModel{sc: req.Scenario, ref: req.Ref, cat: a.Catalog}
	for _, c := range []struct {
		provider, typ string
		nodes         int
		busbw         float64
	}{
		{"aws", "p5.48xlarge", 4, at(273.34, 278.41)},
		{"azure", "Standard_ND96isr_H100_v5", 4, at(239.78, 290.67)},
		{"gcp", "a3-megagpu-8g", 2, at(213.19, 263.69)},
		{"aws", "p4d.24xlarge", 32, 1 / ((1/at(137.99, 156.83) - 1/321.10) + 8/321.10)},
	} {
		speed := speed
		if c.typ == "p4d.24xlarge" {
			speed = 1 // the reference itself
		}
		tc := tc * (math.Pow(989.0/312, 0.8) * math.Pow(3350.0/1555, 0.2)) / speed
		var o *catalog.Offering
		for i := range a.Catalog.Offerings {
			if x := &a.Catalog.Offerings[i]; x.Provider == c.provider && x.InstanceType == c.typ {
				o = x
				break
			}
		}
		if o == nil {
			t.Fatalf("no %s %s", c.provider, c.typ)
		}
		gpus := 8.0 * float64(c.nodes)
		tm := 1.5 * 2 * (gpus - 1) / gpus * 2 * n / (c.busbw * 1e9)
		exposed := math.Max(0, tm-0.66*tc)
		want := tc / (tc + exposed)
		r := stepTime(w, p, 312, sm.offeringShape(o, c.nodes, speed, p))
		if !near(r.bottleneckGBs, c.busbw) || !near(r.commS, tm) || !near(r.computeS, tc) || !near(r.eff, want) {
			t.Errorf("%s × %d: B %g GB/s, Tm %g s, Tc %g s, e %g; want %g, %g, %g, %g (%s)", c.typ, c.nodes, r.bottleneckGBs, r.commS, r.computeS, r.eff,
				c.busbw, tm, tc, want, r.netNote)
		}
		if c.typ == "p4d.24xlarge" && !(r.eff > 0.8 && r.eff < 0.86) {
			t.Errorf("32 × p4d: efficiency %g; want about 83%% (communication exposed)", r.eff)
		}
	}
}
