package advise

import (
	"math"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/models"
)

func modelJob(t *testing.T, name, method string) *ModelJob {
	t.Helper()
	tb, err := models.Load()
	if err != nil {
		t.Fatal(err)
	}
	m, err := tb.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return &ModelJob{Job: models.Job{Model: m, Method: method}}
}

// gpusHold reports whether a plan's GPUs hold the job's memory.
func gpusHold(t *testing.T, mj *ModelJob, p *Plan) (need, have float64) {
	t.Helper()
	mem, err := models.Estimate(mj.Job)
	if err != nil {
		t.Fatal(err)
	}
	gpus := int(math.Round(p.Offering.GPUCount))
	if mem.AcrossNodes {
		gpus *= p.Instances
	} else if p.Stages > 1 { // a served replica over several instances, a pipeline stage each
		gpus *= p.Stages
	}
	return mem.PerGPU(gpus), p.Offering.GPUMemoryClassGB() * 1e9
}

// LoRA on a 70B model: 2e9 tokens become work by hand, and every plan holds the memory.
func TestLoRA70B(t *testing.T) {
	a := advisor(t, "USD")
	req := request(t, a, "llm-finetuning", "A100-SXM4-40GB")
	req.Model = modelJob(t, "llama-3-70b", models.MethodLoRA)
	req.Model.Tokens = 2e9
	req.Deadline = 240
	req.Budget = decimal.NullDecimal{Decimal: decimal.NewFromInt(20000), Valid: true}
	res := run(t, a, req)
	// Work: LoRA skips the frozen weights' gradients, so 4 × 70,553,706,496 × 2e9 =
	// 5.6443e20 FLOPs; A100-SXM4-40GB bf16 312 TF at 40% MFU = 124.8e12 FLOP/s →
	// 4,522,673 s = 1,256.30 GPU-hours.
	r := *req
	r.Defaults()
	if want := 4 * 70553706496 * 2e9 / (0.4 * 312e12) / 3600; math.Abs(r.WorkGPUHours-want) > 1e-6 || math.Abs(want-1256.30) > 0.01 {
		t.Errorf("work %.4f GPU-h, want %.4f (≈1256.30)", r.WorkGPUHours, want)
	}
	if len(res.Plans) == 0 {
		t.Fatalf("no plans: %s", res.Violation)
	}
	for i := range res.Plans {
		p := &res.Plans[i]
		if need, have := gpusHold(t, req.Model, p); need > have {
			t.Errorf("%s: needs %.1f GB per GPU, has %.0f", p.Offering.Key(), need/1e9, have/1e9)
		}
		// The memory line: (141,107,412,992 + 1,048,576,000 + 6,509,559,808 +
		// 3,152,019,456 logits) × 1.1 = 167.0 GB.
		if !strings.Contains(strings.Join(p.Explanation, "\n"), "LoRA fine-tuning of llama-3-70b needs 167 GB in all") {
			t.Errorf("%s: no memory line in %q", p.Offering.Key(), p.Explanation)
		}
		if p.ExpectedHours > 240 {
			t.Errorf("%s: %g h past the deadline", p.Offering.Key(), p.ExpectedHours)
		}
	}
}

// Full fine-tuning of 70B: ZeRO's 16 B/param = 1,128.9 GB; on 80 GB GPUs with
// 6.51 GB of activations and 10% headroom: 1128.86 / (80/1.1 − 6.51) = 17.05 →
// 18 GPUs, 3 nodes of 8. No plan has fewer GPUs than its memory needs.
func TestFullFineTune70BSpreads(t *testing.T) {
	a := advisor(t, "USD")
	req := request(t, a, "llm-finetuning", "A100-SXM4-40GB")
	req.Model = modelJob(t, "llama-3-70b", models.MethodFull)
	req.WorkGPUHours = 2000
	req.NoSpot = true
	res := run(t, a, req)
	if len(res.Plans) == 0 {
		t.Fatalf("no plans: %s", res.Violation)
	}
	sawThree := false
	for i := range res.Plans {
		p := &res.Plans[i]
		need, have := gpusHold(t, req.Model, p)
		if need > have {
			t.Errorf("%s ×%d: needs %.1f GB per GPU, has %.0f", p.Offering.Key(), p.Instances, need/1e9, have/1e9)
		}
		gpus := p.Offering.GPUCount * float64(p.Instances)
		if zero := 16 * 70553706496 / gpus; need < zero {
			t.Errorf("%s: %.1f GB per GPU below ZeRO-3's 16Ψ/N = %.1f GB", p.Offering.Key(), need/1e9, zero/1e9)
		}
		if p.Offering.GPUMemoryClassGB() == 80 && p.Offering.GPUCount == 8 {
			if p.Instances < 3 {
				t.Errorf("%s: %d instances of 8×80 GB, want ≥ 3 (18 GPUs)", p.Offering.Key(), p.Instances)
			}
			sawThree = true
		}
	}
	if !sawThree {
		t.Error("no 8×80 GB plan to check")
	}
}

// Serving Qwen2.5-72B at 32k × 32: KV 2·80·8·128·2 = 327,680 B/token ×
// 1,048,576 tokens = 343.6 GB, weights 145.4 GB; × 1.1 = 537.9 GB in one
// replica: 8×80 GB holds it in one instance, 4×80 GB (320 GB) in two, as
// pipeline stages (serving.go); every replica holds it.
func TestServeQwen72BKVCache(t *testing.T) {
	a := advisor(t, "USD")
	req := request(t, a, "inference-online", "A100-SXM4-40GB")
	req.HoursPerMonth = 730
	req.Model = modelJob(t, "qwen2.5-72b", models.MethodInference)
	req.Model.Context, req.Model.Concurrency = 32768, 32
	res := run(t, a, req)
	if len(res.Plans) == 0 {
		t.Fatalf("no plans: %s", res.Violation)
	}
	for i := range res.Plans {
		p := &res.Plans[i]
		if cap := p.Offering.GPUCount * p.Offering.GPUMemoryClassGB() * float64(max(p.Stages, 1)); cap < 537.9 {
			t.Errorf("%s: %g GB in a replica of %d instance(s), below 537.9", p.Offering.Key(), cap, max(p.Stages, 1))
		}
	}
	found := false
	for _, e := range res.Excluded {
		if strings.Contains(e.Reason, "needs 538 GB for serving of qwen2.5-72b") && strings.Contains(e.Reason, "343.6 GB") {
			found = true
		}
	}
	if !found {
		t.Errorf("no exclusion names the 538 GB: %v", res.Excluded[:min(5, len(res.Excluded))])
	}
}

func TestValidateModel(t *testing.T) {
	a := advisor(t, "USD")
	for _, tc := range []struct {
		name     string
		scenario string
		edit     func(*ModelJob)
		err      string
	}{
		{"inference on a training scenario", "llm-finetuning", func(m *ModelJob) { m.Method = models.MethodInference }, "--method inference with --scenario llm-finetuning"},
		{"lora on a serving scenario", "inference-online", func(m *ModelJob) { m.Method = models.MethodLoRA }, "serving takes --method inference"},
		{"context past the model's", "inference-online", func(m *ModelJob) { m.Context = 200000 }, "--context 200000: llama-3-70b takes at most 8192"},
		{"no mfu", "cv-training", func(m *ModelJob) { m.Tokens = 1e9 }, "--tokens: scenario cv-training has no model-FLOPs utilisation"},
		{"rank without lora", "llm-pretraining", func(m *ModelJob) { m.LoRARank = 8 }, "--lora-rank applies to --method lora or qlora"},
		{"tokens too many", "llm-pretraining", func(m *ModelJob) { m.Tokens = 1e16 }, "--tokens 1e+16: want 1 to 1e+15"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := request(t, a, tc.scenario, "A100-SXM4-40GB")
			req.Model = modelJob(t, "llama-3-70b", "")
			req.WorkGPUHours = 100
			if tc.scenario == "inference-online" {
				req.WorkGPUHours, req.HoursPerMonth = 0, 730
			}
			tc.edit(req.Model)
			req.Defaults()
			if err := req.Validate(); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v, want %q", err, tc.err)
			}
		})
	}
}

// A measured bf16 TFLOP/s of the reference replaces the datasheet's when
// tokens become work: 6 × 8,030,261,248 × 1e9 / (0.4 × 250e12) / 3600 =
// 133.84 GPU-h with 250 TF measured, 107.25 GPU-h with the datasheet's 312.
func TestTokensUseMeasuredTFLOPs(t *testing.T) {
	a := advisor(t, "USD")
	for _, tc := range []struct {
		bench float64
		want  float64
	}{
		{0, 6 * 8030261248 * 1e9 / (0.4 * 312e12) / 3600},   // datasheet 312 TF: 107.25 GPU-h
		{250, 6 * 8030261248 * 1e9 / (0.4 * 250e12) / 3600}, // measured 250 TF: 133.84 GPU-h
	} {
		req := request(t, a, "llm-pretraining", "A100-SXM4-40GB")
		req.Model = modelJob(t, "llama-3.1-8b", "")
		req.Model.Tokens = 1e9
		if tc.bench > 0 {
			req.Bench = map[*catalog.GPU]*benchreport.Report{req.Ref: {GEMMTFLOPS: map[string]float64{"bf16": tc.bench}, Path: "a100.json"}}
		}
		req.Defaults()
		if err := req.Validate(); err != nil {
			t.Fatal(err)
		}
		if math.Abs(req.WorkGPUHours-tc.want) > 1e-9 {
			t.Errorf("bench %g: work %.4f GPU-h, want %.4f", tc.bench, req.WorkGPUHours, tc.want)
		}
		if tc.bench > 0 && !strings.Contains(req.workNote(), "250 TF (measured, a100.json)") {
			t.Errorf("work note %q does not say measured", req.workNote())
		}
	}
}

// Every plan of every model job holds its memory on its GPUs.
func TestEveryPlanHoldsTheModel(t *testing.T) {
	a := advisor(t, "USD")
	for _, tc := range []struct {
		scenario, model, method string
		context, concurrency    int
		weights                 string
	}{
		{"llm-pretraining", "llama-3.1-405b", models.MethodFull, 8192, 1, ""},
		{"llm-finetuning", "mixtral-8x7b", models.MethodQLoRA, 4096, 2, ""},
		{"llm-finetuning", "qwen2.5-32b", models.MethodLoRA, 16384, 1, ""},
		// fp8: 671 GB + 61·576·2 B × 8192 × 16 = 9.2 GB; × 1.1 = 748 GB: 8×141 GB or 8×180 GB.
		{"inference-batch", "deepseek-r1", models.MethodInference, 8192, 16, "fp8"},
		{"inference-online", "llama-3.1-8b", models.MethodInference, 131072, 64, ""},
	} {
		req := request(t, a, tc.scenario, "H100-SXM5-80GB")
		req.NoSpot = true
		req.Model = modelJob(t, tc.model, tc.method)
		req.Model.Context, req.Model.Concurrency, req.Model.Weights = tc.context, tc.concurrency, tc.weights
		if strings.HasPrefix(tc.scenario, "inference-online") {
			req.HoursPerMonth = 730
		} else {
			req.WorkGPUHours = 5000
		}
		res := run(t, a, req)
		for i := range res.Plans {
			p := &res.Plans[i]
			if need, have := gpusHold(t, req.Model, p); need > have {
				t.Errorf("%s %s: %s ×%d needs %.1f GB per GPU, has %.0f", tc.model, tc.method, p.Offering.Key(), p.Instances, need/1e9, have/1e9)
			}
		}
		if len(res.Plans) == 0 {
			t.Errorf("%s %s: no plans (%s)", tc.model, tc.method, res.Violation)
		}
	}
}
