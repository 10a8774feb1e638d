package dashboard

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// huge is a number no schema reads: a decimal of it is 100,001 digits.
const huge = "1e100000"

// Documents stored before uploads were read strictly are read through
// their schema packages: a plan or an agent summary with a number like
// 1e3000000 (the pages that rendered one stalled 16.6 s and 28 MB) is
// listed as not decoding, never formatted.
func TestStoredDocumentsWithHugeNumbers(t *testing.T) {
	f := newFixture(t)
	plan := strings.Replace(string(planJSON(t)), `"total_cost": 278.873269`, `"total_cost": `+huge, 1)
	if plan == string(planJSON(t)) {
		t.Fatal("the fixture has no total_cost 278.873269")
	}
	id := put(t, f.st, store.KindPlan, []byte(plan), time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC))
	_, list := get(t, f.h, "/plans")
	if got := cells(rowOf(list, id[:12])); len(got) < 4 || got[3] != "does not decode" {
		t.Errorf("/plans: the row of the plan with total_cost %s: %q, want it marked as not decoding", huge, got)
	}
	res, page := get(t, f.h, "/plans/"+id)
	if res.StatusCode != 400 || !strings.Contains(page, "field plans[0].total_cost at byte") || !strings.Contains(page, "is outside the allowed range") {
		t.Errorf("/plans/%s: status %d, want 400 naming plans[0].total_cost", id[:12], res.StatusCode)
	}
	sum := `{"schema_version":1,"kind":"agent_hourly","hour_start":"2026-12-01T00:00:00Z","hour_end":"2026-12-01T01:00:00Z","host":"gpu-huge","samples":3600,"gpu_utilization_mean":0.25,"gpu_utilization_max":0.9,"egress_bytes":2e9,"spend":` + huge + `,"currency":"USD"}`
	put(t, f.st, store.KindAgent, []byte(sum), time.Date(2026, 12, 1, 1, 0, 5, 0, time.UTC))
	for _, path := range []string{"/plans", "/agents", "/"} {
		if _, body := get(t, f.h, path); strings.Contains(body, strings.Repeat("0", 1000)) || len(body) > 1<<20 {
			t.Errorf("%s: the page formats the huge number (%d bytes)", path, len(body))
		}
	}
	if _, agents := get(t, f.h, "/agents"); strings.Contains(agents, "gpu-huge") {
		t.Error("/agents: the summary with a huge spend is shown")
	}
}

// A comparison of one report with itself lined it up twice (eight times
// an 8 MB report answered 79 MB): an id given twice is refused, naming it.
func TestCompareRefusesAnIDTwice(t *testing.T) {
	f := newFixture(t)
	res, body := get(t, f.h, "/compare?ids="+f.plain+","+f.onAWS+","+f.plain)
	if res.StatusCode != 400 || !strings.Contains(body, f.plain+" is given twice; want distinct report ids") {
		t.Errorf("status %d, want 400 naming the id given twice", res.StatusCode)
	}
}

// The comparison computes each efficiency from the value and the
// datasheet: a report edited to 494.5 TFLOP/s of bf16 on an H200 (989 on
// its datasheet) kept its stored 0.7776 and showed "494.5 (78%)".
func TestCompareComputesEfficiency(t *testing.T) {
	f := newFixture(t)
	b, err := os.ReadFile("../../cli/testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range doc["measurements"].([]any) {
		if mm := m.(map[string]any); mm["name"] == "gemm_bf16" {
			mm["value"] = 494.5
		}
	}
	doc["host"].(map[string]any)["hostname"] = "edited"
	edited, _ := json.Marshal(doc)
	id := put(t, f.st, store.KindBench, edited, time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC))
	_, page := get(t, f.h, "/compare?ids="+f.plain+","+id)
	if got := cells(rowOf(page, ">gemm_bf16<")); len(got) != 5 || got[3] != "769 (78%)" || got[4] != "494.5 (50%)" {
		t.Errorf("gemm_bf16 row: %q, want 769 (78%%) and 494.5 (50%%)", got)
	}
}
