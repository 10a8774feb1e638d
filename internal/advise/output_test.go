package advise

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/plandoc"
)

// TestInputsNullWhereNotGiven: advise -o json wrote deadline_hours 0,
// hours_per_month 0 and mfu 0 for "not given", while zero is a value. What
// was not given or does not apply is null; what was, its number; and the
// document still reads as a plan (plandoc.Read).
func TestInputsNullWhereNotGiven(t *testing.T) {
	base := advisor(t, money.USD)
	a := synthetic(t, base, h100Offering(base.Catalog, "node.8gpu", 8, catalog.LinkNVSwitch, catalog.NetEFA, 3200, 24))
	inputs := func(req *Request) map[string]any {
		t.Helper()
		req.Defaults()
		if err := req.Validate(); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(NewOutput(run(t, a, req), req, a))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plandoc.Read(b); err != nil {
			t.Fatalf("the output does not read as a plan: %v", err)
		}
		var m struct{ Inputs map[string]any }
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m.Inputs
	}
	check := func(what string, in map[string]any, want map[string]any) {
		t.Helper()
		for k, w := range want {
			v, ok := in[k]
			if !ok || v != w {
				t.Errorf("%s: inputs.%s = %v (present %v), want %v", what, k, v, ok, w)
			}
		}
	}

	// A steady load for online inference: no job, no deadline, no mfu, no
	// communication model.
	req := request(t, a, "inference-online", "H100-SXM5-80GB")
	req.HoursPerMonth = 730
	check("steady inference-online", inputs(req), map[string]any{"hours_per_month": 730.0, "horizon_months": 12.0,
		"work_gpu_hours": nil, "deadline_hours": nil, "mfu": nil, "overlap": nil, "reference_parameters": nil, "samples_per_gpu_step": nil})

	// A job with a deadline in a communication-heavy scenario: every figure
	// given, the load's fields null.
	req = request(t, a, "llm-pretraining", "H100-SXM5-80GB")
	req.WorkGPUHours, req.Deadline, req.NoSpot = 800, 240, true
	check("llm-pretraining job", inputs(req), map[string]any{"work_gpu_hours": 800.0, "deadline_hours": 240.0, "mfu": 0.4, "overlap": 0.66,
		"hours_per_month": nil, "horizon_months": nil})
}

// TestDefaultSizeSaid: a steady load with no --gpu or --model is sized as
// 1 × the reference by default; the summary and the JSON inputs say it is
// the default, and how to give the size.
func TestDefaultSizeSaid(t *testing.T) {
	base := advisor(t, money.USD)
	a := synthetic(t, base, h100Offering(base.Catalog, "node.8gpu", 8, catalog.LinkNVSwitch, catalog.NetEFA, 3200, 24))
	req := request(t, a, "inference-online", "H100-SXM5-80GB")
	req.HoursPerMonth, req.RefDefault = 730, true
	req.Defaults()
	res := run(t, a, req)
	if s := strings.Join(res.Summary, "\n"); !strings.Contains(s, "the load is sized by default as 1 × H100-SXM5-80GB (--gpu NAME:COUNT or --model sizes it)") {
		t.Errorf("the summary does not say the size is a default:\n%s", s)
	}
	if out := NewOutput(res, req, a); out.Inputs["reference_gpu_default"] != true {
		t.Errorf("inputs.reference_gpu_default = %v, want true", out.Inputs["reference_gpu_default"])
	}
}
