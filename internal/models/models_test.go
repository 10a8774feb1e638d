package models

import (
	"math"
	"strings"
	"testing"
)

func table(t *testing.T) *Table {
	t.Helper()
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// The config-derived parameter counts equal the published totals.
func TestParameterCountFromConfig(t *testing.T) {
	tb := table(t)
	for _, tc := range []struct {
		name          string
		total, active float64
	}{
		// Hugging Face safetensors totals of the official repositories.
		{"llama-3.1-8b", 8030261248, 8030261248},
		{"llama-3.1-405b", 405853388800, 405853388800},
		// embeddings 2·128256·8192 = 2,101,346,304; per layer 2·8192² + 2·8192·1024
		// + 3·8192·28672 + 2·8192 = 855,654,400, × 80; + final norm 8192.
		{"llama-3-70b", 70553706496, 70553706496},
		// Qwen's card: 7.61B (6.53B non-embedding); with q, k, v biases.
		{"qwen2.5-7b", 7615616512, 7615616512},
		// Mistral: 46.7B total, 12.9B active (2 of 8 experts).
		{"mixtral-8x7b", 46702792704, 12879925248},
		// DeepSeek-V3 paper: 671B total, 37B active (stated).
		{"deepseek-v3", 671e9, 37e9},
	} {
		m, err := tb.Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Parameters != tc.total || m.ActiveParameters != tc.active {
			t.Errorf("%s: got %.0f total, %.0f active; want %.0f, %.0f", tc.name, m.Parameters, m.ActiveParameters, tc.total, tc.active)
		}
	}
}

func TestLookup(t *testing.T) {
	tb := table(t)
	for _, tc := range []struct {
		in     string
		name   string
		params float64
		err    string
	}{
		{"Llama-3-70B", "llama-3-70b", 70553706496, ""},
		{"qwen2.5-72b-instruct", "qwen2.5-72b", 72706203648, ""},
		{"70B", "70B", 70e9, ""},
		{"8b", "8b", 8e9, ""},
		{"1.5e9", "1.5e9", 1.5e9, ""},
		{"340M", "340M", 340e6, ""},
		{"gpt-7", "", 0, `unknown model "gpt-7"`},
		{"0B", "", 0, "want 1e+06 to 1e+14 parameters"},
		{"1e20", "", 0, "want 1e+06 to 1e+14 parameters"},
	} {
		m, err := tb.Lookup(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || m.Name != tc.name || m.Parameters != tc.params {
			t.Errorf("%s: got %+v, %v; want %s with %g", tc.in, m, err, tc.name, tc.params)
		}
	}
}

func TestEveryModelIsSourced(t *testing.T) {
	for _, m := range table(t).Models {
		if !strings.HasPrefix(m.Source, "https://") || m.AsOf == "" || m.ParametersSource == "" {
			t.Errorf("%s: source %q, as-of %q, parameters source %q", m.Name, m.Source, m.AsOf, m.ParametersSource)
		}
		if m.Heads > 0 && m.HeadDim > 0 && m.Arch == ArchLlama && m.Heads*m.HeadDim != m.Hidden {
			t.Errorf("%s: heads %d × head dim %d != hidden %d", m.Name, m.Heads, m.HeadDim, m.Hidden)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestEstimate(t *testing.T) {
	tb := table(t)
	get := func(n string) *Model {
		m, err := tb.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	l70 := get("llama-3-70b")
	// Activations at 4096 tokens, micro-batch 1, recomputed: 2·4096·8192·80 +
	// 34·4096·8192 = 5,368,709,120 + 1,140,850,688 = 6,509,559,808 B per GPU;
	// the logits 6 × 4096 × 128,256 = 3,152,019,456 B: 9,661,579,264 B.
	const act70 = 6509559808.0 + 3152019456
	for _, tc := range []struct {
		name          string
		job           Job
		sharded, repl float64
		minAt80       int // GPUs of 80 GB
	}{
		// LoRA r=16 on 70B: frozen 2 × 70,553,706,496 = 141,107,412,992 B; adapters
		// 16 × 80 × (8192+8192 + 2(8192+1024) + 8192+8192) = 16 × 80 × 51,200 = 65,536,000
		// params × 16 B = 1,048,576,000 B. Room per 80 GB GPU: 80e9/1.1 − act =
		// 63.0657e9; 142.156e9 / 63.0657e9 = 2.25 → 3 GPUs.
		{"lora 70B", Job{Model: l70, Method: MethodLoRA}, 141107412992 + 1048576000, act70, 3},
		// Full: 16 × 70,553,706,496 = 1,128,859,303,936 B (ZeRO's 16Ψ); 1128.86e9 /
		// 63.0657e9 = 17.9 → 18 GPUs.
		{"full 70B", Job{Model: l70, Method: MethodFull}, 1128859303936, act70, 18},
		// QLoRA with double quantisation: (0.5 + 0.127/8) × 70,553,706,496 =
		// 36,396,893,339 B + adapters 1,048,576,000 B; 37.445e9 / 63.0657e9 =
		// 0.59 → 1 GPU. (Without double quantisation 0.5625 B/param would be
		// 3.29 GB more.)
		{"qlora 70B", Job{Model: l70, Method: MethodQLoRA}, 36396893339 + 1048576000, act70, 1},
		// Qwen2.5-72B serving, bf16, 32k × 32: weights 2 × 72,706,203,648 =
		// 145,412,407,296 B; KV 2·80·8·128·2 = 327,680 B/token × 32768 × 32 =
		// 343,597,383,680 B. 489.01e9 / (80e9/1.1) = 6.72 → 7 GPUs.
		{"serve qwen2.5-72b", Job{Model: get("qwen2.5-72b"), Method: MethodInference, Context: 32768, Concurrency: 32}, 145412407296 + 343597383680, 0, 7},
		// DeepSeek-V3 KV (MLA): 61 × 576 × 2 = 70,272 B/token × 4096 = 287,834,112 B;
		// weights fp8 671e9 B. 671.288e9 / 72.727e9 = 9.23 → 10 GPUs.
		{"serve deepseek-v3 fp8", Job{Model: get("deepseek-v3"), Method: MethodInference, Weights: "fp8"}, 671e9 + 287834112, 0, 10},
	} {
		m, err := Estimate(tc.job)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !near(m.Sharded(), tc.sharded) || !near(m.Replicated(), tc.repl) {
			t.Errorf("%s: sharded %.0f, replicated %.0f; want %.0f, %.0f", tc.name, m.Sharded(), m.Replicated(), tc.sharded, tc.repl)
		}
		if n, ok := m.MinGPUs(80e9); !ok || n != tc.minAt80 {
			t.Errorf("%s: min GPUs of 80 GB %d (%v), want %d", tc.name, n, ok, tc.minAt80)
		}
		if n, _ := m.MinGPUs(80e9); m.PerGPU(n) > 80e9 || (n > 1 && m.PerGPU(n-1) <= 80e9) {
			t.Errorf("%s: %d GPUs need %.1f GB each; %d need %.1f", tc.name, n, m.PerGPU(n)/1e9, n-1, m.PerGPU(n-1)/1e9)
		}
	}
	// Full training never needs less than ZeRO-3's 16Ψ/N per GPU.
	m, _ := Estimate(Job{Model: l70, Method: MethodFull})
	for _, n := range []int{8, 16, 18, 64} {
		if zero := 16 * l70.Parameters / float64(n); m.PerGPU(n) < zero {
			t.Errorf("full 70B on %d GPUs: %.1f GB < ZeRO-3 %.1f GB", n, m.PerGPU(n)/1e9, zero/1e9)
		}
	}
	// Without recompute every layer's working set stays: 34·4096·8192·80 =
	// 91,268,055,040 B, with the logits 94.42 GB per GPU: above the 72.7 GB an
	// 80 GB GPU holds after the headroom, however many GPUs share the rest.
	m, _ = Estimate(Job{Model: l70, Method: MethodLoRA, Recompute: RecomputeNone})
	if !near(m.Replicated(), 91268055040+3152019456) {
		t.Errorf("lora 70B without recompute: replicated %.0f; want 94,420,074,496", m.Replicated())
	}
	if _, ok := m.MinGPUs(80e9); ok {
		t.Error("lora 70B without recompute fits 80 GB GPUs")
	}
	if _, err := Estimate(Job{Model: l70, Method: MethodLoRA, Recompute: "some"}); err == nil || !strings.Contains(err.Error(), `recompute "some"`) {
		t.Errorf("bad recompute: %v", err)
	}
	if _, err := Estimate(Job{Model: l70, Method: "dpo"}); err == nil || !strings.Contains(err.Error(), `method "dpo"`) {
		t.Errorf("bad method: %v", err)
	}
	if _, err := Estimate(Job{Model: l70, Method: MethodInference, Weights: "int3"}); err == nil || !strings.Contains(err.Error(), `"int3"`) {
		t.Errorf("bad weights: %v", err)
	}
}

func TestFLOPs(t *testing.T) {
	tb := table(t)
	mx, _ := tb.Lookup("mixtral-8x7b")
	// 6 × 12,879,925,248 active × 1e9 tokens.
	if got, want := TrainingFLOPs(mx, 1e9), 6*12879925248*1e9; !near(got, want) {
		t.Errorf("training FLOPs %g, want %g", got, want)
	}
	if got, want := InferenceFLOPs(mx, 1e6), 2*12879925248*1e6; !near(got, want) {
		t.Errorf("inference FLOPs %g, want %g", got, want)
	}
}

// What the method and the recomputation do to a training job's time:
// QLoRA 2.79/1.85 of LoRA's (the measured pair), no recompute base/(base+2).
func TestTimeFactor(t *testing.T) {
	for _, c := range []struct {
		job  Job
		want float64
	}{
		{Job{Method: MethodFull}, 1},
		{Job{Method: MethodLoRA}, 1},
		{Job{Method: MethodQLoRA}, 2.79 / 1.85},
		{Job{Method: MethodFull, Recompute: RecomputeNone}, 6.0 / 8},
		{Job{Method: MethodLoRA, Recompute: RecomputeNone}, 4.0 / 6},
		{Job{Method: MethodQLoRA, Recompute: RecomputeNone}, 2.79 / 1.85 * 4 / 6},
		{Job{Method: MethodInference, Recompute: RecomputeNone}, 1},
	} {
		if got, why := TimeFactor(c.job); math.Abs(got-c.want) > 1e-12 || (c.want != 1) != (why != "") {
			t.Errorf("TimeFactor(%s, recompute %q) = %g (%q); want %g", c.job.Method, c.job.Recompute, got, why, c.want)
		}
	}
}
