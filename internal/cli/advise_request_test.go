package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// adviseRequestFromFlags: flags in, request (or error) out. The flags that
// were "set" are the keys of set; the rest keep their defaults.
func TestAdviseRequestFromFlags(t *testing.T) {
	l, err := (&catalogFlags{currency: "USD"}).load()
	if err != nil {
		t.Fatal(err)
	}
	scs, err := advise.LoadScenarios()
	if err != nil {
		t.Fatal(err)
	}
	defaults := func() adviseFlags {
		return adviseFlags{objective: "cost", peakHours: 120, limit: 10, maxNodes: 64}
	}
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
		name string
		edit func(*adviseFlags)
		set  []string
		want want
		err  string
	}{
		{"job from --gpu and --for", func(f *adviseFlags) { f.scenario, f.gpu, f.duration = "cv-training", "A100:4", 168 }, []string{"gpu", "for"},
			want{ref: "A100-SXM4-40GB", refCount: 4, work: 672, ask: "A100×4/7d"}, ""},
		{"--accelerators any and a 36 h ask", func(f *adviseFlags) {
			f.scenario, f.gpu, f.duration, f.accelerators = "cv-training", "H100:8", 36, "any"
		}, []string{"gpu", "for", "accelerators"},
			want{ref: "H100-SXM5-80GB", refCount: 8, work: 288, ask: "H100×8/36h", accelerators: "any"}, ""},
		{"job from --work, deadline and budget", func(f *adviseFlags) {
			f.scenario, f.work, f.deadline, f.budget = "llm-pretraining", "20000gpu-h@H100", 720, money.New(decimal.NewFromInt(60000), money.USD)
		}, []string{"work", "deadline", "budget"},
			want{ref: "H100-SXM5-80GB", refCount: 1, work: 20000, deadline: 720, budget: "60000"}, ""},
		{"steady load with horizon and providers", func(f *adviseFlags) {
			f.scenario, f.hoursPerMonth, f.horizon, f.gpu, f.providers = "inference-online", 730, 3*8760, "L4:2", []string{"gcp"}
		}, []string{"hours-per-month", "horizon", "gpu", "provider"},
			want{ref: "L4", refCount: 2, hpm: 730, horizon: 36, providers: []string{"gcp"}}, ""},
		{"bursty", func(f *adviseFlags) { f.scenario, f.pattern, f.base, f.peak = "llm-finetuning", "bursty", 2, 16 }, []string{"pattern", "base", "peak"},
			want{ref: "A100-SXM4-40GB", refCount: 1, base: 2, peak: 16, peakHours: 120, bursty: true}, ""},
		// --hours-per-month 0 is a size given (Changed), not "no size".
		{"hours-per-month 0 counts as given", func(f *adviseFlags) { f.scenario, f.hoursPerMonth = "inference-online", 0 }, []string{"hours-per-month"},
			want{ref: "A100-SXM4-40GB", refCount: 1}, ""},
		{"allow a slow network", func(f *adviseFlags) {
			f.scenario, f.work, f.deadline, f.allowSlowNetwork = "llm-finetuning", "5000gpu-h@H100", 240, true
		}, []string{"work", "deadline", "allow-slow-network"},
			want{ref: "H100-SXM5-80GB", refCount: 1, work: 5000, deadline: 240, allowSlow: true}, ""},
		{"two sizes", func(f *adviseFlags) { f.scenario, f.duration, f.hoursPerMonth = "cv-training", 168, 100 }, []string{"for", "hours-per-month"},
			want{}, "give the size of the work once"},
		{"no scenario", func(f *adviseFlags) { f.duration = 168 }, []string{"for"}, want{}, "--scenario is required"},
		{"deadline on a load", func(f *adviseFlags) { f.scenario, f.hoursPerMonth, f.deadline = "inference-online", 100, 72 }, []string{"hours-per-month", "deadline"}, want{}, "--deadline applies to a job"},
		{"pattern", func(f *adviseFlags) { f.scenario, f.pattern = "cv-training", "wavy" }, []string{"pattern"}, want{}, `--pattern "wavy"`},
		// Sizing by the model: --tokens is the size (the work follows in Defaults).
		{"model and tokens", func(f *adviseFlags) {
			f.scenario, f.model, f.method, f.tokens, f.deadline = "llm-finetuning", "llama-3-70b", "lora", 2e9, 240
		}, []string{"model", "method", "tokens", "deadline"},
			want{ref: "A100-SXM4-40GB", refCount: 1, deadline: 240, model: "llama-3-70b", method: "lora", tokens: 2e9}, ""},
		{"bare size", func(f *adviseFlags) { f.scenario, f.model, f.tokens = "llm-pretraining", "8B", 1e12 }, []string{"model", "tokens"},
			want{ref: "A100-SXM4-40GB", refCount: 1, model: "8B", tokens: 1e12}, ""},
		{"serving with context", func(f *adviseFlags) {
			f.scenario, f.model, f.context, f.concurrency, f.hoursPerMonth = "inference-online", "qwen2.5-72b", 32768, 32, 730
		}, []string{"model", "context", "concurrency", "hours-per-month"},
			want{ref: "A100-SXM4-40GB", refCount: 1, hpm: 730, model: "qwen2.5-72b", context: 32768, concurrency: 32}, ""},
		{"tokens without model", func(f *adviseFlags) { f.scenario, f.tokens = "llm-pretraining", 1e9 }, []string{"tokens"}, want{}, "--tokens needs --model"},
		{"unknown model", func(f *adviseFlags) { f.scenario, f.model, f.duration = "llm-pretraining", "gpt-9", 10 }, []string{"model", "for"}, want{}, `--model: unknown model "gpt-9"`},
		{"bad method", func(f *adviseFlags) { f.scenario, f.model, f.method, f.duration = "llm-pretraining", "8B", "dpo", 10 }, []string{"model", "method", "for"}, want{}, `--method "dpo": want full, lora, qlora, inference`},
		{"tokens and work", func(f *adviseFlags) {
			f.scenario, f.model, f.tokens, f.work = "llm-pretraining", "8B", 1e9, "10gpu-h@A100"
		}, []string{"model", "tokens", "work"}, want{}, "give the size of the work once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := defaults()
			tc.edit(&f)
			set := map[string]bool{}
			for _, s := range tc.set {
				set[s] = true
			}
			req, err := adviseRequestFromFlags(&f, func(name string) bool { return set[name] }, l, scs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
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
			if !equalWant(got.providers, w.providers) {
				t.Errorf("providers %v, want %v", got.providers, w.providers)
			}
			got.providers, w.providers = nil, nil
			if got.ref != w.ref || got.refCount != w.refCount || got.work != w.work || got.hpm != w.hpm || got.base != w.base || got.peak != w.peak ||
				got.peakHours != w.peakHours || got.horizon != w.horizon || got.deadline != w.deadline || got.bursty != w.bursty || got.budget != w.budget || got.allowSlow != w.allowSlow ||
				got.ask != w.ask || got.accelerators != w.accelerators ||
				got.model != w.model || got.method != w.method || got.tokens != w.tokens || got.context != w.context || got.concurrency != w.concurrency {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			if req.Usage.Spot.CheckpointHours == 0 || req.Scenario.Name != f.scenario {
				t.Errorf("spot assumptions %+v, scenario %s", req.Usage.Spot, req.Scenario.Name)
			}
		})
	}
}

func equalWant(a, b []string) bool {
	return strings.Join(a, ",") == strings.Join(b, ",")
}

// Validate checks and never changes the request; Defaults is the explicit
// step that fills unset fields.
func TestAdviseRequestValidateDoesNotMutate(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := advise.LoadScenarios()
	sc, _ := scs.Get("inference-online")
	req := advise.Request{Scenario: sc, Ref: c.GPU("L4"), HoursPerMonth: 730, Budget: decimal.NullDecimal{Decimal: decimal.NewFromInt(5), Valid: true}}
	before := req
	if err := req.Validate(); err == nil || !strings.Contains(err.Error(), "--gpu L4:0") {
		t.Errorf("unset count: got %v, want the --gpu count named", err)
	}
	if req.RefCount != before.RefCount || req.MaxNodes != before.MaxNodes || req.HorizonMonths != before.HorizonMonths || req.Objective != before.Objective {
		t.Errorf("Validate changed the request: %+v", req)
	}
	req.Defaults()
	if err := req.Validate(); err != nil {
		t.Errorf("after Defaults: %v", err)
	}
	if req.RefCount != 1 || req.MaxNodes != advise.DefaultMaxNodes || req.HorizonMonths != advise.DefaultHorizon || req.Objective != advise.ObjectiveCost {
		t.Errorf("Defaults: %+v", req)
	}
}
