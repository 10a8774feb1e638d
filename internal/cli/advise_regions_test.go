package cli

import (
	"encoding/json"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// advise plans each way to pay in the region where it costs least, as cost
// quotes it: the 14-day p5.48xlarge Capacity Block of the README's
// pretraining shape is the block cost quotes for the same job (37.76 USD/h
// × 336 h = 12,687.36 USD by hand), not the 41.528 USD/h block of p5's
// cheapest on-demand region (13,953.41 USD), which advise planned before.
func TestAdvisePlansEachWayInItsCheapestRegion(t *testing.T) {
	out, errb, code := run(t, "advise", "--scenario", "llm-pretraining", "--gpu", "H100:8", "--for", "14d", "--provider", "aws", "-o", "json", "--no-user-catalog")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var res struct {
		Plans []struct {
			InstanceType string  `json:"instance_type"`
			Region       string  `json:"region"`
			Model        string  `json:"pricing_model"`
			Total        float64 `json:"total_cost"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	u := cost.Usage{DurationHours: 336, Instances: 1, HoursPerMonth: catalog.HoursPerMonth, HorizonMonths: 336.0 / catalog.HoursPerMonth, License: "linux"}
	req := cost.Request{Usage: u, Currency: money.USD, Query: catalog.Query{Providers: []string{"aws"}, InstanceTypes: []string{"p5.48xlarge"}}}
	opts, err := req.Quote(c, money.DefaultFX())
	if err != nil {
		t.Fatal(err)
	}
	var quoted *cost.Option
	for i := range opts {
		if opts[i].Model == catalog.ModelCapacityBlock {
			quoted = &opts[i]
		}
	}
	if quoted == nil || quoted.Total.Value.InexactFloat64() != 12687.36 {
		t.Fatalf("cost quotes the p5 block at %v; want 12,687.36 USD (37.76 × 336)", quoted)
	}
	found := 0
	for _, p := range res.Plans {
		if p.InstanceType != "p5.48xlarge" || p.Model != catalog.ModelCapacityBlock {
			continue
		}
		found++
		if p.Total != 12687.36 || p.Region != quoted.Offering.Region {
			t.Errorf("advise plans the p5 block at %.2f USD in %s; cost quotes %.2f in %s", p.Total, p.Region, 12687.36, quoted.Offering.Region)
		}
	}
	if found != 1 {
		t.Errorf("%d p5.48xlarge Capacity Block plans; want one, in its cheapest region", found)
	}
}
