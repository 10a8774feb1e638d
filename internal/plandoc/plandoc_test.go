package plandoc

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// planA100 is a real upload: `advise --scenario cv-training --gpu A100:4
// --for 7d -o json` of an older gpuscout (the dashboard's fixture).
func planA100(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../server/dashboard/testdata/plan-a100.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit changes the fixture through a map and returns its JSON.
func edit(t *testing.T, fn func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(planA100(t), &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func firstPlan(m map[string]any) map[string]any { return m["plans"].([]any)[0].(map[string]any) }

// Uploads written by advise (the fixtures, from before some fields were
// added) read and validate.
func TestReadFixtures(t *testing.T) {
	for _, path := range []string{"../server/dashboard/testdata/plan-a100.json", "../server/dashboard/testdata/plan-l4-3y.json"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Read(b)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if len(d.Plans) == 0 || d.Inputs.Scenario == "" || d.Plans[0].TotalCost == nil {
			t.Errorf("%s: read %d plans, scenario %q", path, len(d.Plans), d.Inputs.Scenario)
		}
		if _, err := Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: Decode: %v", path, err)
		}
		if _, err := Decode(bytes.NewReader(append(b, "x"...))); err == nil || !strings.Contains(err.Error(), "data after the JSON value") {
			t.Errorf("%s: Decode with data after it: %v", path, err)
		}
	}
}

// Any JSON object was stored as a plan ({"hello":"world"} → 201), numbers
// like 1e3000000 with it (the plan pages then spent 16 s formatting one),
// with data after it or keys given twice: each is refused, naming the
// field, the byte and what is allowed.
func TestReadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"not a plan", `{"hello":"world"}`, "field hello at byte 1: unknown field; allowed: closest, excluded, inputs, plans, summary, violation"},
		{"an array", `[1, 2]`, "at byte 0: an array is not allowed here; want an object"},
		{"empty object", `{}`, "field plans is missing"},
		{"no scenario", `{"plans": [], "inputs": {}}`, "field inputs.scenario is missing"},
		{"huge total", edit(t, func(m map[string]any) { firstPlan(m)["total_cost"] = json.Number("1e3000000") }), "field plans[0].total_cost at byte"},
		{"huge total as a string", edit(t, func(m map[string]any) { firstPlan(m)["total_cost"] = "1e3000000" }), "a string is not allowed here; want a number"},
		{"huge breakdown", edit(t, func(m map[string]any) {
			firstPlan(m)["cost_breakdown"].(map[string]any)["usage"] = json.Number("1e-3000000")
		}), `field plans[0].cost_breakdown.usage at byte`},
		{"amount beyond money's", edit(t, func(m map[string]any) { firstPlan(m)["upfront_cash"] = json.Number("1e14") }), "field plans[0].upfront_cash = 1e14 is outside the allowed range: want an amount from -1000000000000 to 1000000000000"},
		{"unknown plan field", edit(t, func(m map[string]any) { firstPlan(m)["totl_cost"] = 1 }), "field plans[0].totl_cost at byte"},
		{"unknown input", edit(t, func(m map[string]any) { m["inputs"].(map[string]any)["seed"] = 1 }), "field inputs.seed at byte"},
		{"p_miss", edit(t, func(m map[string]any) { firstPlan(m)["p_miss_deadline"] = 5 }), "field plans[0].p_miss_deadline = 5 is outside the allowed range: want 0 to 1"},
		{"instances", edit(t, func(m map[string]any) { firstPlan(m)["instances"] = -1 }), "field plans[0].instances = -1 is outside the allowed range"},
		{"currency", edit(t, func(m map[string]any) { m["inputs"].(map[string]any)["currency"] = "DOGE" }), "field inputs.currency"},
		{"cash flows", edit(t, func(m map[string]any) {
			firstPlan(m)["cash_flows"] = []any{map[string]any{"kind": "usage", "from_month": 1, "to_month": 99999, "per_month": 1}}
		}), "field plans[0].cash_flows[0]: months 1 to 99999; want 0 ≤ from_month ≤ to_month ≤ 120"},
		{"horizon", edit(t, func(m map[string]any) { m["inputs"].(map[string]any)["horizon_months"] = 1e6 }), "field inputs.horizon_months = 1e+06 is outside the allowed range: want 0 to 120, or null where not given"},
		{"mfu", edit(t, func(m map[string]any) { m["inputs"].(map[string]any)["mfu"] = 5 }), "field inputs.mfu = 5 is outside the allowed range: want 0 to 1, or null where not given"},
		{"deadline", edit(t, func(m map[string]any) { m["inputs"].(map[string]any)["deadline_hours"] = -1 }), "field inputs.deadline_hours = -1 is outside the allowed range: want 0 to 87600, or null where not given"},
		{"trailing", string(planA100(t)) + "junk", "data after the JSON value"},
		{"twice", strings.Replace(string(planA100(t)), `"rank": 1,`, `"rank": 1, "rank": 2,`, 1), "field plans[0].rank at byte"},
	} {
		_, err := Read([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestDecimal(t *testing.T) {
	n := json.Number("278.873269")
	if d, ok := Decimal(&n); !ok || d.StringFixed(2) != "278.87" {
		t.Errorf("got %v, %v", d, ok)
	}
	for _, s := range []string{"1e3000000", "1e13", "x"} {
		n := json.Number(s)
		if _, ok := Decimal(&n); ok {
			t.Errorf("%s: read as an amount", s)
		}
	}
	if _, ok := Decimal(nil); ok {
		t.Error("nil read as an amount")
	}
}

// FuzzRead: no input panics the plan reader; what it accepts is valid
// JSON, and every amount in it reads as a bounded decimal.
func FuzzRead(f *testing.F) {
	f.Add(planA100(f))
	f.Add([]byte(`{"plans":[{"provider":"aws","instance_type":"p5.48xlarge","region":"us-west-2","instances":1,"pricing_model":"spot","total_cost":278.873269,"currency":"USD","expected_hours":29.76,"cost_breakdown":{"usage":1}}],"inputs":{"scenario":"cv-training","reference_gpu":"A100-SXM4-40GB","work_gpu_hours":672,"ask":{"gpu":"A100","count":4,"hours":168}}}`))
	f.Add([]byte(`{"plans":[],"inputs":{"scenario":"x","model":{"memory":{"parts":[1,2]}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Read(b)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		for _, p := range append(d.Plans, d.Closest...) {
			for _, n := range []*json.Number{p.TotalCost, p.PricePerHour, p.UpfrontCash} {
				if n != nil {
					if v, ok := Decimal(n); !ok || len(v.StringFixed(2)) > 40 {
						t.Fatalf("accepted the amount %s", *n)
					}
				}
			}
		}
		var again bytes.Buffer
		if err := json.NewEncoder(&again).Encode(d); err != nil {
			t.Fatalf("an accepted plan does not encode: %v", err)
		}
	})
}

// Inputs not given are null (advise -o json since they stopped being 0):
// read as absent, and an older upload's 0 still reads.
func TestInputsNull(t *testing.T) {
	nulls := []string{"work_gpu_hours", "hours_per_month", "horizon_months", "deadline_hours", "mfu", "overlap", "reference_parameters", "samples_per_gpu_step"}
	d, err := Read([]byte(edit(t, func(m map[string]any) {
		for _, k := range nulls {
			m["inputs"].(map[string]any)[k] = nil
		}
	})))
	if err != nil {
		t.Fatal(err)
	}
	in := d.Inputs
	for i, v := range []*float64{in.WorkGPUHours, in.HoursPerMonth, in.HorizonMonths, in.DeadlineHours, in.MFU, in.Overlap, in.ReferenceParameters, in.SamplesPerGPUStep} {
		if v != nil {
			t.Errorf("inputs.%s = %g, want null", nulls[i], *v)
		}
	}
	if Value(in.DeadlineHours) != 0 {
		t.Errorf("Value(null) = %g, want 0", Value(in.DeadlineHours))
	}
	old, err := Read(planA100(t)) // written with 0 for a job's hours_per_month
	if err != nil || old.Inputs.HoursPerMonth == nil || *old.Inputs.HoursPerMonth != 0 {
		t.Errorf("an older upload's hours_per_month 0: %v, %v", old, err)
	}
}
