package advise

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/money"
)

// AWS's A10G has no published throughput: its plans are priced on A10's
// figures (125 TF bf16, 600 GB/s, the same speed), say so with the ±50%
// and what the job becomes 50% slower (hours / (1 − 0.5)), and carry the
// estimate in JSON. Before, every g5 was excluded as "throughput unknown".
func TestEstimatedThroughput(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "cv-training", "A100-SXM4-40GB")
	req.WorkGPUHours, req.Deadline = 100, 720
	res := run(t, a, req)
	var p *Plan
	for i := range res.Plans {
		if res.Plans[i].Offering.GPU.Name == "A10G" {
			p = &res.Plans[i]
			break
		}
	}
	for _, x := range res.Excluded {
		if strings.HasPrefix(x.What, "A10G") && strings.Contains(x.Reason, "throughput unknown") {
			t.Errorf("A10G excluded: %s", x.Reason)
		}
	}
	if p == nil {
		t.Fatal("no A10G plan")
	}
	a10 := a.Catalog.GPU("A10")
	sm := &speedModel{sc: req.Scenario, ref: req.Ref}
	want, _, _ := sm.speed(a10)
	if p.EstimatedFrom != a10 || math.Abs(p.Speed-want) > 1e-12 {
		t.Errorf("A10G plan: estimated from %v at speed %g; want A10's %g", p.EstimatedFrom, p.Speed, want)
	}
	risks := strings.Join(p.Risks, "\n")
	slow := p.ExpectedHours / 0.5
	if !strings.Contains(risks, "throughput estimated, ±50%: no published or measured A10G throughput, so A10's figures stand in") ||
		!strings.Contains(risks, strings.TrimSpace(fmtHours1(slow))+" h instead of") {
		t.Errorf("risks lack the estimate and the slower case (%.1f h):\n%s", slow, risks)
	}
	j := PlanOutput(p)
	if j.ThroughputEstimate == nil || j.ThroughputEstimate.From != "A10" || j.ThroughputEstimate.Uncertainty != 0.5 || j.ThroughputEstimate.Source != "baseten-a10g" {
		t.Errorf("JSON estimate %+v", j.ThroughputEstimate)
	}
	for _, q := range res.Plans {
		if q.EstimatedFrom == nil && PlanOutput(&q).ThroughputEstimate != nil {
			t.Errorf("%s: an estimate in JSON without one", q.Offering.Key())
		}
	}
}

func fmtHours1(h float64) string { return fmt.Sprintf("%.1f", h) }

// An estimated reference sizes --tokens from its sibling's figure, the same
// one the speed model uses: 4·N·tokens for LoRA of llama-3-8b on A10G at
// 40% MFU of A10's 125 bf16 TF, and the work says it is estimated.
func TestEstimatedReferenceWork(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "llm-finetuning", "A10G")
	req.Model = modelJob(t, "llama-3-8b", "lora")
	req.Model.Tokens = 1e8
	req.Defaults()
	want := 4 * req.Model.Model.ActiveParameters * 1e8 / (0.4 * 125e12) / 3600
	if math.Abs(req.WorkGPUHours-want) > 1e-9*want || !strings.Contains(req.workNote(), "A10's, standing in: estimated ±50%") {
		t.Errorf("work %g GPU-h (%s); want %g", req.WorkGPUHours, req.workNote(), want)
	}
}
