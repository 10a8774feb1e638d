package cli

import (
	"encoding/json"
	"math"
	"testing"
)

// advise -o json gives each plan its cash flows as the cost engine
// scheduled them, and its horizon: GCP L4 for 730 h a month over 3 years,
// the 3y CUD is one run of 36 monthly fees paid at the end of each month,
// and every plan's runs add up to its total (to the 6 decimals JSON keeps).
func TestAdviseJSONCashFlows(t *testing.T) {
	out, errOut, code := run(t, "advise", "--scenario", "inference-online", "--gpu", "L4", "--hours-per-month", "730", "--horizon", "3y", "--provider", "gcp", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Plans []struct {
			Rank          int     `json:"rank"`
			PricingModel  string  `json:"pricing_model"`
			Term          string  `json:"term"`
			TotalCost     float64 `json:"total_cost"`
			HorizonMonths float64 `json:"horizon_months"`
			CashFlows     []struct {
				Kind      string  `json:"kind"`
				FromMonth int     `json:"from_month"`
				ToMonth   int     `json:"to_month"`
				PerMonth  float64 `json:"per_month"`
			} `json:"cash_flows"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) == 0 {
		t.Fatal("no plan")
	}
	for _, p := range res.Plans {
		sum, months := 0.0, 0
		for _, f := range p.CashFlows {
			sum += f.PerMonth * float64(f.ToMonth-f.FromMonth+1)
			months += f.ToMonth - f.FromMonth + 1
		}
		if p.HorizonMonths != 36 || len(p.CashFlows) == 0 || math.Abs(sum-p.TotalCost) > 1e-6*float64(months) {
			t.Errorf("plan %d (%s %s): horizon %g months, %d flows summing to %.6f; want 36 months, flows summing to total_cost %.6f",
				p.Rank, p.PricingModel, p.Term, p.HorizonMonths, len(p.CashFlows), sum, p.TotalCost)
		}
	}
	best := res.Plans[0]
	if best.Term != "3y" || len(best.CashFlows) != 1 || best.CashFlows[0].Kind != "commitment" || best.CashFlows[0].FromMonth != 1 || best.CashFlows[0].ToMonth != 36 {
		t.Errorf("plan 1 (%s %s): cash flows %+v, want one commitment run, months 1..36", best.PricingModel, best.Term, best.CashFlows)
	}
}
