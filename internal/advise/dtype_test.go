package advise

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// GPUs without bf16 get no LLM-training plan, with the reason; a bf16
// scenario that does not require it (cv-training) runs them in fp16 and
// every such plan says so.
func TestNoBF16(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-finetuning", "A100-SXM4-40GB")
	req.WorkGPUHours, req.Deadline = 500, 240
	res := run(t, a, req)
	for _, p := range res.Plans {
		if p.Offering.GPU.BF16.Unsupported {
			t.Errorf("llm-finetuning plan on %s, which has no bf16", p.Offering.GPU.Name)
		}
	}
	if !excludedFor(res, "V100-SXM2-32GB ×8 (aws)", "V100-SXM2-32GB has no bf16: llm-finetuning trains in bf16") {
		t.Errorf("p3dn's V100 not excluded for want of bf16: %+v", res.Excluded)
	}
	req = request(t, a, "cv-training", "V100-SXM2-16GB")
	req.WorkGPUHours = 200
	res = run(t, a, req)
	n := 0
	for _, p := range res.Plans {
		if !p.Offering.GPU.BF16.Unsupported {
			continue
		}
		n++
		risks := strings.Join(p.Risks, "\n")
		if !strings.Contains(risks, "has no bf16: cv-training runs in fp16 mixed precision with loss scaling") ||
			!strings.Contains(strings.Join(p.Explanation, "\n"), "(fp16 ") {
			t.Errorf("%s: no fp16 note:\n%s\n%s", p.Offering.Key(), risks, p.Explanation)
		}
	}
	if n == 0 {
		t.Error("no cv-training plan on a GPU without bf16 to check")
	}
}

// A provider that names only "A100 40GB" with NVSwitch between 8 GPUs runs
// the SXM module: its link is A100-SXM4-40GB's 600 GB/s (300 each way), not
// the unsourced assumption.
func TestGenericGPUOnNVSwitch(t *testing.T) {
	a := advisor(t, money.USD)
	sc, _ := a.Scenarios.Get("llm-pretraining")
	sm := &speedModel{sc: sc, ref: a.Catalog.GPU("A100-SXM4-40GB"), cat: a.Catalog}
	var found bool
	for i := range a.Catalog.Offerings {
		o := &a.Catalog.Offerings[i]
		if o.GPU.Name != "A100-40GB" || o.Interconnect != "nvswitch" || o.GPUCount != 8 {
			continue
		}
		found = true
		s := sm.offeringShape(o, 1, 1, testComm(t))
		if s.linkGBs != 300 || !strings.Contains(s.linkNote, "A100-SXM4-40GB, half its 600 GB/s") {
			t.Errorf("%s: link %g GB/s (%s); want 300 from A100-SXM4-40GB", o.Key(), s.linkGBs, s.linkNote)
		}
		break
	}
	if !found {
		t.Skip("no A100-40GB offering on NVSwitch in the catalog")
	}
}

// The GPU link is the GPU table's figure wherever it gives one, cited:
// Alibaba's gn7 (A100 40GB on NVSwitch, 4 or 8 GPUs) runs at A100-SXM4-40GB's
// 600 GB/s (300 each way), also with a bench report that measured no NCCL
// (which read "nvswitch: bandwidth not sourced, assumed" 16 GB/s); a link
// no source names is called so, not "unknown: bandwidth not sourced"; an
// offering's network figure with no fabric named is the instance's, not
// "unknown 16 Gbps".
func TestLinkAndNetworkWords(t *testing.T) {
	a := advisor(t, money.USD)
	sc, _ := a.Scenarios.Get("llm-pretraining")
	p := testComm(t)
	generic := a.Catalog.GPU("A100-40GB")
	sm := &speedModel{sc: sc, ref: a.Catalog.GPU("A100-SXM4-40GB"), cat: a.Catalog,
		bench: map[*catalog.GPU]*benchreport.Report{generic: {GPU: generic.Name, MemoryBandwidthGBs: 1400, Path: "a100.json"}}}
	for _, n := range []float64{4, 8} {
		o := &catalog.Offering{Provider: "alibaba", InstanceType: "ecs.gn7", Region: "cn-beijing", GPU: generic, GPUCount: n,
			Interconnect: catalog.LinkNVSwitch, NetworkGbps: 16, SpecSource: "alibaba-gpu-docs@2026-12-03"}
		s := sm.offeringShape(o, 2, 1, p)
		if s.linkGBs != 300 || !strings.Contains(s.linkNote, "A100-SXM4-40GB, half its 600 GB/s datasheet figure, ml-engineering") {
			t.Errorf("%g GPUs on NVSwitch: %g GB/s (%s); want 300 from A100-SXM4-40GB, cited", n, s.linkGBs, s.linkNote)
		}
		if want := "16 Gbps (the instance's network bandwidth, alibaba-gpu-docs@2026-12-03; the fabric between instances is not sourced)"; s.netNote != want {
			t.Errorf("network %q, want %q", s.netNote, want)
		}
		if _, note := p.fabrics.netBusBW(s.netKind, s.netGbps, 2, 26214400); !strings.Contains(note, "no published result for a fabric no source names") {
			t.Errorf("fabric note %q", note)
		}
	}
	if _, note := sm.linkGBs(a.Catalog.GPU("H100-SXM5-80GB"), catalog.LinkUnknown, 4, p); note != "16 GB/s per GPU each way (assumed: no source names the link)" {
		t.Errorf("unknown link: %q", note)
	}
}
