package cli

import (
	"strings"
	"testing"
)

// Plan text a user trial found contradicting itself, command by command:
// each line must say one true thing.

// TestCostCapacityBlockBeyond182Days: a 200-day job said "EC2 Capacity
// Block of 200 days", then "a Capacity Block lasts at most 182 days", with
// an UPFRONT of the first block only. It is two blocks back to back (182 +
// 21 days, 18 days not being sold), and the label, the total and the
// upfront say so: 203 × 24 × 41.528 = 202,324.42 USD, of which 182 × 24 ×
// 41.528 = 181,394.30 USD is paid at the start.
func TestCostCapacityBlockBeyond182Days(t *testing.T) {
	out, errs, code := run(t, "cost", "--offering", "aws/p5.48xlarge/us-east-1", "--for", "200d", "--explain", "--wide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var row string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[4] == "capacity-block" {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) < 10 || f[7] != "202,324.42" || f[8] != "181,394.30" || f[len(f)-1] != "no" {
		t.Errorf("capacity-block row %q: want total 202,324.42, upfront 181,394.30, not feasible", row)
	}
	text := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"2 EC2 Capacity Blocks back to back, 182 + 21 = 203 days, for a 4800 h job",
		"41.53 USD/h × 4872 h = 202,324.42 USD",
		"(181,394.30 USD for 182 days at the start, 20,930.11 USD for 21 days on day 182: the first is the upfront)",
		"not feasible as one booking: a Capacity Block lasts at most 182 days",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(text, "Capacity Block of 200 days") {
		t.Errorf("a 200-day block, which AWS does not sell:\n%s", out)
	}
}

// TestCostNotesSayWhatWasGiven: "Totals include egress, storage, credits
// and promotions" was printed when none was given, after "1 instance(s)".
func TestCostNotesSayWhatWasGiven(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: a 48 h job × 1 instance; discount rate 0%/yr; linux licence. No egress, storage, credits or promotions given: totals are the capacity alone."},
		{[]string{"--instances", "2", "--egress", "internet=100", "--credit", "100USD"}, "Usage: a 48 h job × 2 instances; discount rate 0%/yr; linux licence. Totals include the egress and credits given."},
	} {
		args := append([]string{"cost", "--offering", "aws/p5.48xlarge/us-east-1", "--for", "2d"}, tc.args...)
		out, errs, code := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		if text := strings.Join(strings.Fields(out), " "); !strings.Contains(text, tc.want) || strings.Contains(text, "instance(s)") {
			t.Errorf("%v: output lacks %q (or says instance(s)):\n%s", tc.args, tc.want, out)
		}
	}
}

// TestNoRegionSaidOnce: Seeweb plans with no region in the source read
// "-" in advise and cost while others read it-fr2 in offers; every command
// shows "-" for the same instance type, the plan says why (one sentence,
// catalog.Offering.NoRegionNote) and its header has no dangling "/".
func TestNoRegionSaidOnce(t *testing.T) {
	out, errs, code := run(t, "cost", "--gpu", "A100-80GB:4", "--provider", "seeweb", "--for", "7d")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	text := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"#1 seeweb/ECS3GPU3/- on-demand:",
		"no region: skypilot-v9@2c3d7ea7 lists seeweb's ECS3GPU3 in none (SkyPilot's catalog leaves the region empty where the provider listed no region with the plan available when it was built): check where it is on sale before you plan on it"} {
		if !strings.Contains(text, want) {
			t.Errorf("cost lacks %q:\n%s", want, out)
		}
	}
	offers, _, _ := run(t, "offers", "--provider", "seeweb", "--gpu", "A100-80GB")
	for _, l := range strings.Split(offers, "\n") {
		if f := strings.Fields(l); len(f) > 8 && f[1] == "ECS3GPU3" && f[8] != "-" {
			t.Errorf("offers shows ECS3GPU3 in %q; cost and advise say it has none", f[8])
		}
	}
}
