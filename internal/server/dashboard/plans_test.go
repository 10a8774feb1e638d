package dashboard

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// planL4JSON is a real `gpuscout advise --scenario inference-online --gpu L4
// --hours-per-month 730 --horizon 3y --provider gcp --egress internet=2000
// --credits 1000USD@gcp:6mo -o json` output: plans with their cash flows.
func planL4JSON(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/plan-l4-3y.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cashChart is the polylines (title → point count) of the SVG under the
// page's "Cash needed month by month" heading, or nil without one.
func cashChart(t *testing.T, page string) map[string]int {
	t.Helper()
	i := strings.Index(page, "Cash needed month by month")
	if i < 0 {
		return nil
	}
	rest := page[i:]
	start, end := strings.Index(rest, "<svg"), strings.Index(rest, "</svg>")
	if start < 0 || end < start || strings.Contains(rest[:start], "<h2") {
		return nil
	}
	var doc struct {
		Polyline []struct {
			Points string `xml:"points,attr"`
			Title  string `xml:"title"`
		} `xml:"polyline"`
	}
	if err := xml.Unmarshal([]byte(rest[start:end+6]), &doc); err != nil {
		t.Fatalf("the cash-flow chart is not valid SVG: %v", err)
	}
	out := map[string]int{}
	for _, p := range doc.Polyline {
		out[p.Title] = len(strings.Fields(p.Points))
	}
	return out
}

// A new upload's plan page draws the cash-flow chart from the upload's own
// cash_flows (render's chart, the CLI report's): the best plan of each way
// to pay, months 0..36, each named with its total; and the cost breakdown
// (commitment, egress, credit). Nothing is listed as predating cash flows.
func TestPlanPageCashFlowChart(t *testing.T) {
	f := newFixture(t)
	id := put(t, f.st, store.KindPlan, planL4JSON(t), time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	res, body := get(t, f.h, "/plans/"+id)
	if res.StatusCode != 200 {
		t.Fatalf("status %d\n%s", res.StatusCode, body)
	}
	lines := cashChart(t, body)
	want := map[string]int{
		"#1 gcp g2-standard-4 (us-east4), commitment 3y monthly: 15,076.34 USD": 37,
		"#2 gcp g2-standard-4 (us-east4), commitment 1y monthly: 18,408.99 USD": 37,
		"#3 gcp g2-standard-4 (us-east4), on-demand: 25,259.44 USD":             37,
	}
	if len(lines) != len(want) {
		t.Fatalf("cash-flow chart lines %v, want %v", lines, want)
	}
	for name, n := range want {
		if lines[name] != n {
			t.Errorf("line %q: %d points, want %d (months 0..36); lines %v", name, lines[name], n, lines)
		}
	}
	for _, w := range []string{"Cost breakdown", "What makes up the cost of the top plans?", "egress", "credit"} {
		if !strings.Contains(body, w) {
			t.Errorf("the plan page lacks %q", w)
		}
	}
	if strings.Contains(body, "predates") {
		t.Error("a new upload is said to predate cash flows")
	}
}

// An upload from before cash_flows shows a line saying so, and no chart
// made up from the totals: the job plan of the first fixture, and the same
// 3-year plan with its cash flows removed (the report's note in place of
// the chart). Unreadable cash flows are named, not drawn.
func TestPlanPageOldUploadHasNoCashFlowChart(t *testing.T) {
	f := newFixture(t)
	var doc map[string]any
	if err := json.Unmarshal(planL4JSON(t), &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc["plans"].([]any) {
		delete(p.(map[string]any), "cash_flows")
		delete(p.(map[string]any), "horizon_months")
	}
	old, _ := json.Marshal(doc)
	doc["plans"].([]any)[0].(map[string]any)["cash_flows"] = []any{map[string]any{"kind": "usage", "from_month": 1, "to_month": 99999, "per_month": 1}}
	bad, _ := json.Marshal(doc)
	oldID := put(t, f.st, store.KindPlan, old, time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	badID := put(t, f.st, store.KindPlan, bad, time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	for _, c := range []struct {
		name, id string
		want     []string
	}{
		{"old job plan", f.plan, []string{"the upload predates cash_flows in advise -o json"}},
		{"old 3-year plan", oldID, []string{"of 13 plan(s): the upload predates cash_flows", "Not drawn: these plans carry no month-by-month payments"}},
		{"unreadable", badID, []string{"unreadable cash flows, left out: plan #1: cash_flows[0]: months 1 to 99999", "Not drawn: these plans carry no month-by-month payments"}},
	} {
		res, body := get(t, f.h, "/plans/"+c.id)
		if res.StatusCode != 200 {
			t.Fatalf("%s: status %d\n%s", c.name, res.StatusCode, body)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page lacks %q", c.name, w)
			}
		}
		if lines := cashChart(t, body); lines != nil {
			t.Errorf("%s: a cash-flow chart drawn without cash flows: %v", c.name, lines)
		}
	}
}
