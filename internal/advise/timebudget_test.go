package advise

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// TestDefaultTimeBudget: a job with no --deadline and no --for is sized to
// finish within a month (DefaultTimeBudgetHours = 720 h), scaling out, and
// the answer says so. By hand, on one 8-GPU node at H100 speed 1 (the
// reference) for batch inference (no communication, efficiency 1):
// 10,000 GPU-h / 8 = 1,250 h > 720 h on one node, so two: 10,000 / 16 =
// 625 h. 100,000 GPU-h would need 100,000 / 8 / 720 = 17.4 → 18 nodes, more
// than --max-nodes 4: nothing fits, and the closest plan says by how much.
func TestDefaultTimeBudget(t *testing.T) {
	base := advisor(t, money.USD)
	a := synthetic(t, base, h100Offering(base.Catalog, "node.8gpu", 8, catalog.LinkNVSwitch, catalog.NetEFA, 3200, 24))
	req := request(t, a, "inference-batch", "H100-SXM5-80GB")
	req.WorkGPUHours, req.NoSpot = 10000, true
	res := run(t, a, req)
	if res.TimeBudgetHours != 720 || len(res.Plans) == 0 {
		t.Fatalf("budget %g h, %d plans; want 720 h and a plan", res.TimeBudgetHours, len(res.Plans))
	}
	for _, p := range res.Plans {
		if p.Instances != 2 || !near(p.ExpectedHours, 625) {
			t.Errorf("%s %s: %d × %.4f h, want 2 × 625 h", p.Offering.InstanceType, p.Model, p.Instances, p.ExpectedHours)
		}
	}
	if s := strings.Join(res.Summary, "\n"); !strings.Contains(s, "No --deadline was given: plans are sized to finish within the default budget of 720 h, on up to 64 instances; --deadline sets yours.") {
		t.Errorf("the summary does not say the budget is a default:\n%s", s)
	}
	out := NewOutput(res, req, a)
	if out.Inputs["time_budget_hours"] != 720.0 || !strings.Contains(out.Inputs["time_budget"].(string), "--deadline sets yours") {
		t.Errorf("JSON inputs lack the default budget: %v, %v", out.Inputs["time_budget_hours"], out.Inputs["time_budget"])
	}

	req.WorkGPUHours, req.MaxNodes = 100000, 4
	res = run(t, a, req)
	if len(res.Plans) != 0 || !strings.Contains(res.Violation, "past the default budget of 720 h (no --deadline given)") {
		t.Errorf("100,000 GPU-h on 4 nodes: %d plans, violation %q", len(res.Plans), res.Violation)
	}
	// 4 nodes: 100,000 / 32 = 3,125 h, 2,405 h past the budget.
	if len(res.Closest) == 0 || res.Closest[0].Instances != 4 || !near(res.Closest[0].ExpectedHours, 3125) {
		t.Errorf("closest %+v", res.Closest)
	}

	// A deadline the user gives is theirs: no default budget.
	req.WorkGPUHours, req.MaxNodes, req.Deadline = 10000, 0, 2000
	if res = run(t, a, req); res.TimeBudgetHours != 0 || len(res.Plans) == 0 || res.Plans[0].Instances != 1 {
		t.Errorf("with --deadline 2000 h: budget %g, plans %d (first on %d instances), want 0 and one node", res.TimeBudgetHours, len(res.Plans), res.Plans[0].Instances)
	}
}
