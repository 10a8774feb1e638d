package form

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

func testEnv(t *testing.T) Env {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	scs, err := advise.LoadScenarios()
	if err != nil {
		t.Fatal(err)
	}
	return Env{Catalog: c, FX: money.DefaultFX(), Currency: money.USD, Scenarios: scs}
}

// set fills a fresh form from NAME=VALUE pairs, as flags would.
func set(t *testing.T, f *Form, inputs []string) {
	t.Helper()
	for _, in := range inputs {
		name, text, _ := strings.Cut(in, "=")
		if err := f.Set(name, text); err != nil {
			t.Fatalf("Set(%s): %v", in, err)
		}
	}
}

// Advise.Request: inputs in, request (or an error naming the input) out.
// The inputs not set keep their defaults.
func TestAdviseRequest(t *testing.T) {
	env := testEnv(t)
	type want struct {
		ref                             string
		refCount, work, hpm, base, peak float64
		peakHours, horizon, deadline    float64
		bursty, allowSlow               bool
		budget                          string
		providers                       []string
		ask, accelerators               string // the ask as "NAME×COUNT/FOR"
		model, method                   string // --model (as looked up) and --method as given
		tokens                          float64
		context, concurrency            int
	}
	for _, tc := range []struct {
		name    string
		inputs  []string
		want    want
		errName string // the input the error names
		err     string
	}{
		{"job from --gpu and --for", []string{"scenario=cv-training", "gpu=A100:4", "for=7d"},
			want{ref: "A100-SXM4-40GB", refCount: 4, work: 672, ask: "A100×4/7d"}, "", ""},
		{"--accelerators any and a 36 h ask", []string{"scenario=cv-training", "gpu=H100:8", "for=36h", "accelerators=any"},
			want{ref: "H100-SXM5-80GB", refCount: 8, work: 288, ask: "H100×8/36h", accelerators: "any"}, "", ""},
		{"job from --work, deadline and budget", []string{"scenario=llm-pretraining", "work=20000gpu-h@H100", "deadline=30d", "budget=60000USD"},
			want{ref: "H100-SXM5-80GB", refCount: 1, work: 20000, deadline: 720, budget: "60000"}, "", ""},
		{"a bare budget is in the currency", []string{"scenario=llm-pretraining", "work=100gpu-h@H100", "budget=5000"},
			want{ref: "H100-SXM5-80GB", refCount: 1, work: 100, budget: "5000"}, "", ""},
		{"steady load with horizon and providers", []string{"scenario=inference-online", "hours-per-month=730", "horizon=3y", "gpu=L4:2", "provider=gcp"},
			want{ref: "L4", refCount: 2, hpm: 730, horizon: 36, providers: []string{"gcp"}}, "", ""},
		{"bursty", []string{"scenario=llm-finetuning", "pattern=bursty", "base=2", "peak=16"},
			want{ref: "A100-SXM4-40GB", refCount: 1, base: 2, peak: 16, peakHours: 120, bursty: true}, "", ""},
		// --hours-per-month 0 is a size given (Changed), not "no size".
		{"hours-per-month 0 counts as given", []string{"scenario=inference-online", "hours-per-month=0"},
			want{ref: "A100-SXM4-40GB", refCount: 1}, "", ""},
		{"allow a slow network", []string{"scenario=llm-finetuning", "work=5000gpu-h@H100", "deadline=10d", "allow-slow-network=true"},
			want{ref: "H100-SXM5-80GB", refCount: 1, work: 5000, deadline: 240, allowSlow: true}, "", ""},
		{"two sizes", []string{"scenario=cv-training", "for=7d", "hours-per-month=100"}, want{}, "for", "give the size of the work once"},
		{"no scenario", []string{"for=7d"}, want{}, "scenario", "--scenario is required"},
		{"unknown scenario", []string{"scenario=cooking", "for=7d"}, want{}, "scenario", "--scenario: "},
		{"deadline on a load", []string{"scenario=inference-online", "hours-per-month=100", "deadline=72h"}, want{}, "deadline", "--deadline applies to a job"},
		{"horizon on a job", []string{"scenario=cv-training", "gpu=A100:4", "for=7d", "horizon=1y"}, want{}, "horizon", "--horizon applies to a steady or bursty load"},
		{"pattern", []string{"scenario=cv-training", "pattern=wavy"}, want{}, "pattern", `--pattern "wavy"`},
		{"bad work", []string{"scenario=cv-training", "work=lots"}, want{}, "work", `--work "lots": want GPU-hours`},
		{"unknown reference", []string{"scenario=cv-training", "work=10gpu-h@Z9"}, want{}, "work", "--work: "},
		{"credit in an unknown currency", []string{"scenario=cv-training", "for=7d", "credits=100XYZ"}, want{}, "credits", "--credits 100XYZ: currency XYZ has no exchange rate"},
		{"credit for an unknown provider", []string{"scenario=cv-training", "for=7d", "credits=100USD@nocloud"}, want{}, "credits", `--credits: "nocloud" is not a known provider`},
		{"unknown provider", []string{"scenario=cv-training", "for=7d", "provider=nocloud"}, want{}, "provider", `--provider "nocloud" is not a known provider`},
		{"unknown region", []string{"scenario=cv-training", "for=7d", "region=atlantis-1"}, want{}, "region", `--region "atlantis-1" is not a known region; closest: `},
		// Sizing by the model: --tokens is the size (the work follows in Defaults).
		{"model and tokens", []string{"scenario=llm-finetuning", "model=llama-3-70b", "method=lora", "tokens=2e9", "deadline=10d"},
			want{ref: "A100-SXM4-40GB", refCount: 1, deadline: 240, model: "llama-3-70b", method: "lora", tokens: 2e9}, "", ""},
		{"bare size", []string{"scenario=llm-pretraining", "model=8B", "tokens=1e12"},
			want{ref: "A100-SXM4-40GB", refCount: 1, model: "8B", tokens: 1e12}, "", ""},
		{"serving with context", []string{"scenario=inference-online", "model=qwen2.5-72b", "context=32k", "concurrency=32", "hours-per-month=730"},
			want{ref: "A100-SXM4-40GB", refCount: 1, hpm: 730, model: "qwen2.5-72b", context: 32768, concurrency: 32}, "", ""},
		{"tokens without model", []string{"scenario=llm-pretraining", "tokens=1e9"}, want{}, "tokens", "--tokens needs --model"},
		{"unknown model", []string{"scenario=llm-pretraining", "model=gpt-9", "for=10h"}, want{}, "model", `--model: unknown model "gpt-9"`},
		{"bad method", []string{"scenario=llm-pretraining", "model=8B", "method=dpo", "for=10h"}, want{}, "method", `--method "dpo": want full, lora, qlora, inference`},
		{"bad weights", []string{"scenario=inference-online", "model=8B", "weights=int3", "hours-per-month=730"}, want{}, "weights", `--weights "int3"`},
		{"tokens and work", []string{"scenario=llm-pretraining", "model=8B", "tokens=1e9", "work=10gpu-h@A100"}, want{}, "for", "give the size of the work once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewAdvise()
			set(t, &f.Form, tc.inputs)
			req, err := f.Request(env)
			if tc.err != "" {
				ie, ok := err.(*InputError)
				if !ok || ie.Name != tc.errName || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %#v (%v), want an error on %s with %q", err, err, tc.errName, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			got := want{ref: req.Ref.Name, refCount: req.RefCount, work: req.WorkGPUHours, hpm: req.HoursPerMonth, base: req.Base, peak: req.Peak,
				peakHours: req.PeakHours, horizon: req.HorizonMonths, deadline: req.Deadline, bursty: req.Bursty, allowSlow: req.AllowSlowNetwork, providers: req.Select.Providers, accelerators: req.Accelerators}
			if req.Ask != nil {
				got.ask = fmt.Sprintf("%s×%g/%s", req.Ask.Name, req.Ask.Count, req.Ask.For)
			}
			if m := req.Model; m != nil {
				got.model, got.method, got.tokens, got.context, got.concurrency = m.Model.Name, m.Method, m.Tokens, m.Context, m.Concurrency
			}
			if req.Budget.Valid {
				got.budget = req.Budget.Decimal.String()
			}
			if strings.Join(got.providers, ",") != strings.Join(w.providers, ",") {
				t.Errorf("providers %v, want %v", got.providers, w.providers)
			}
			got.providers, w.providers = nil, nil
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", w) {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			if req.Usage.Spot.CheckpointHours == 0 || req.Scenario.Name != strings.TrimPrefix(tc.inputs[0], "scenario=") {
				t.Errorf("spot assumptions %+v, scenario %s", req.Usage.Spot, req.Scenario.Name)
			}
		})
	}
}
