package cli

import (
	"encoding/json"
	"math"
	"testing"
)

// cost and spot price the same spot job the same way (cost.SpotJob): a
// 2-node gang of 72 h at the same band, checkpoint and restart costs the
// same to the cent, the first launch included in both (2 nodes relaunch in
// 10 min × H(2) = 15 min).
func TestSpotAndCostPriceTheSameJob(t *testing.T) {
	out, errOut, code := run(t, "spot", "--offering", "aws/p4d.24xlarge/us-east-1", "--work", "72h", "--band", "10-15%", "--nodes", "2",
		"--policy", "spot", "--checkpoint", "1h", "--checkpoint-cost", "0s", "-o", "json")
	if code != 0 {
		t.Fatalf("spot: exit %d: %s", code, errOut)
	}
	var sp struct {
		Policies []struct {
			CostMean float64 `json:"cost_mean"`
		} `json:"policies"`
		Inputs struct {
			Startup float64 `json:"startup_hours"`
			Restart float64 `json:"restart_hours"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(out), &sp); err != nil || len(sp.Policies) != 1 {
		t.Fatalf("spot JSON: %v %s", err, out)
	}
	out, errOut, code = run(t, "cost", "--offering", "aws/p4d.24xlarge/us-east-1", "--for", "72h", "--instances", "2", "--spot-band", "10-15%", "-o", "json")
	if code != 0 {
		t.Fatalf("cost: exit %d: %s", code, errOut)
	}
	var opts []struct {
		Model string  `json:"pricing_model"`
		Total float64 `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &opts); err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, o := range opts {
		if o.Model == "spot" {
			total = o.Total
		}
	}
	if total == 0 || math.Abs(total-sp.Policies[0].CostMean) > 0.005 {
		t.Errorf("cost's spot total %.4f, spot's mean %.4f: the same job priced two ways", total, sp.Policies[0].CostMean)
	}
	if sp.Inputs.Startup != 0.25 || sp.Inputs.Restart != 0.25 {
		t.Errorf("spot start-up %g h, restart %g h; want 10 min × H(2) = 0.25 h both", sp.Inputs.Startup, sp.Inputs.Restart)
	}
}
