package advise

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// A plan's cash flows are the cost engine's schedule for it. Worked by hand
// for a 1y partial-upfront AWS reservation of g6.xlarge (a test price:
// 2,000 USD upfront + 0.25 USD per term hour = 182.50 USD a month, billed
// in advance as AWS does), one instance, 730 h a month for 12 months:
// month 0 pays the upfront and the first month's fee, months 0..11 the fee,
// total 2,000 + 12 × 182.50 = 4,190 USD.
func TestPlanCashFlowsAreTheEngineSchedule(t *testing.T) {
	a := advisor(t, money.USD)
	a.Catalog.Commitments = append(a.Catalog.Commitments, catalog.Commitment{Provider: "aws", InstanceType: "g6.xlarge", Region: "us-east-1",
		Model: catalog.ModelReserved, Term: "1y", Payment: catalog.PayPartial, Class: "standard", Upfront: decimal.NewFromInt(2000),
		Hourly: decimal.RequireFromString("0.25"), Currency: money.USD, Source: "test", AsOf: "2026-12-01"})
	req := request(t, a, "inference-online", "L4")
	req.HoursPerMonth, req.HorizonMonths, req.NoSpot = 730, 12, true
	req.Select = catalog.Query{Providers: []string{"aws"}, InstanceTypes: []string{"g6.xlarge"}, Regions: []string{"us-east-1"}}
	res := run(t, a, req)
	var p *Plan
	for i := range res.Plans {
		if res.Plans[i].Model == catalog.ModelReserved {
			p = &res.Plans[i]
		}
	}
	if p == nil {
		t.Fatalf("no reserved plan among %d", len(res.Plans))
	}
	want := []CashFlowJSON{
		{Kind: cost.FlowUpfront, FromMonth: 0, ToMonth: 0, PerMonth: jsonNum("2000")},
		{Kind: cost.FlowCommitment, FromMonth: 0, ToMonth: 11, PerMonth: jsonNum("182.5")},
	}
	got := PlanOutput(p)
	gb, _ := json.Marshal(got.CashFlows)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("cash_flows = %s, want %s", gb, wb)
	}
	if got.HorizonMonths != 12 || p.CashFlowMonths() != 12 {
		t.Errorf("horizon %g months, %d payment months; want 12, 12", got.HorizonMonths, p.CashFlowMonths())
	}
	if tot := p.CashFlows.Total(); !tot.Equal(decimal.NewFromInt(4190)) || !p.Total.Value.Equal(tot) {
		t.Errorf("cash flows sum to %s, plan total %s; want 4190 both", tot, p.Total.Value)
	}
	// Every plan's flows sum to its total, and read back unchanged.
	for i := range res.Plans {
		q := &res.Plans[i]
		if !q.CashFlows.Total().Equal(q.Total.Value) {
			t.Errorf("plan %d (%s): cash flows sum to %s, total %s", q.Rank, q.Model, q.CashFlows.Total(), q.Total.Value)
		}
		back, err := ParseCashFlows(PlanOutput(q).CashFlows)
		if err != nil || !back.Total().Equal(q.Total.Value) || len(back) != len(q.CashFlows) {
			t.Errorf("plan %d read back: %v, %v", q.Rank, back, err)
		}
	}
}

// A bursty plan's cash flows are its base's and its burst's together.
func TestMixCashFlowsSumToTotal(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "inference-online", "L4")
	req.Bursty, req.Base, req.Peak, req.PeakHours, req.HorizonMonths, req.NoSpot = true, 1, 3, 100, 12, true
	req.Select = catalog.Query{Providers: []string{"gcp"}}
	res := run(t, a, req)
	mixes := 0
	for i := range res.Plans {
		q := &res.Plans[i]
		if q.Model == "mix" {
			mixes++
		}
		if !q.CashFlows.Total().Equal(q.Total.Value) {
			t.Errorf("plan %d (%s): cash flows sum to %s, total %s", q.Rank, q.Mix, q.CashFlows.Total(), q.Total.Value)
		}
	}
	if mixes == 0 {
		t.Fatal("no mix plan: the burst was not exercised")
	}
}

func TestParseCashFlowsRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		in   CashFlowJSON
		want string
	}{
		{"kind", CashFlowJSON{Kind: "bribe", PerMonth: jsonNum("1")}, `cash_flows[0].kind "bribe": want one of upfront`},
		{"months backwards", CashFlowJSON{Kind: "usage", FromMonth: 5, ToMonth: 2, PerMonth: jsonNum("1")}, "months 5 to 2: want 0 ≤ from_month ≤ to_month ≤ 120"},
		{"past ten years", CashFlowJSON{Kind: "usage", FromMonth: 1, ToMonth: 1000000, PerMonth: jsonNum("1")}, "to_month ≤ 120"},
		{"negative month", CashFlowJSON{Kind: "usage", FromMonth: -1, ToMonth: 1, PerMonth: jsonNum("1")}, "months -1 to 1"},
		{"no amount", CashFlowJSON{Kind: "usage", FromMonth: 1, ToMonth: 1}, "cash_flows[0].per_month: missing"},
		{"huge", CashFlowJSON{Kind: "usage", FromMonth: 1, ToMonth: 1, PerMonth: jsonNum("1e300")}, "per_month 1e300: want a number of at most"},
	} {
		_, err := ParseCashFlows([]CashFlowJSON{c.in})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func jsonNum(s string) *json.Number { n := json.Number(s); return &n }

// A part without a sourced price stays unknown: vast has no sourced egress
// price, so its plans' cash flows carry no egress and say what is left out.
func TestCashFlowsNotPricedStayUnknown(t *testing.T) {
	a := advisor(t, money.USD)
	req := request(t, a, "inference-online", "L4")
	req.HoursPerMonth, req.HorizonMonths, req.NoSpot = 730, 12, true
	req.Usage.Egress = map[string]float64{"internet": 100}
	req.Select = catalog.Query{Providers: []string{"vast"}}
	res := run(t, a, req)
	if len(res.Plans) == 0 {
		t.Fatal("no vast plan")
	}
	for i := range res.Plans {
		p := &res.Plans[i]
		j := PlanOutput(p)
		if len(j.NotPriced) == 0 || !strings.Contains(j.NotPriced[0], "data-transfer") {
			t.Errorf("plan %d: cash_flows_not_priced %q, want the missing egress price", p.Rank, j.NotPriced)
		}
		for _, f := range j.CashFlows {
			if f.Kind == cost.FlowEgress {
				t.Errorf("plan %d: an egress flow %+v without a sourced price", p.Rank, f)
			}
		}
	}
}
