package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const stableTrace = "../spot/testdata/stable_1node.json"

// zoneTraces copies the test traces under AWS zone names into a folder:
// names → source files.
func zoneTraces(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type zonesOut struct {
	Policies []struct {
		Name          string   `json:"name"`
		CostMean      *float64 `json:"cost_mean"`
		MovesMean     *float64 `json:"moves_mean"`
		MoveCostMean  *float64 `json:"move_cost_mean"`
		FirstZoneOnly bool     `json:"first_zone_only"`
		PMeet         *float64 `json:"p_meet_deadline"`
		RegretMean    *float64 `json:"regret_mean"`
	} `json:"policies"`
	Inputs map[string]any `json:"inputs"`
}

func runZonesJSON(t *testing.T, args ...string) zonesOut {
	t.Helper()
	out, errOut, code := run(t, append([]string{"spot", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	var res zonesOut
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSpotRegionsJSON: two zones from two traces with --move-price: every
// zone policy's move money is its moves × GB × price; the policies that do
// not choose zones are marked first-zone-only; the zones and their pairing
// are in the inputs; the optimum is never above a policy on average.
func TestSpotRegionsJSON(t *testing.T) {
	res := runZonesJSON(t, "--trace", volatileTrace+","+stableTrace, "--regions", "all,optimal", "--policy", "on-demand",
		"--work", "24h", "--deadline", "30h", "--spot-price", "0.9", "--od-price", "3", "--move-gb", "40", "--move-price", "0.05", "--runs", "40")
	if len(res.Policies) != 6 {
		t.Fatalf("%d policies, want the 4 zone policies, optimal and on-demand", len(res.Policies))
	}
	var opt float64
	for _, p := range res.Policies {
		switch p.Name {
		case "optimal":
			opt = *p.CostMean
			if p.MovesMean == nil || p.MoveCostMean == nil || math.Abs(*p.MoveCostMean-*p.MovesMean*2) > 0.01 {
				t.Errorf("optimal: moves %v costing %v, want them reported at 2.00 each", p.MovesMean, p.MoveCostMean)
			}
		case "on-demand":
			if !p.FirstZoneOnly || p.MovesMean != nil {
				t.Errorf("on-demand: first zone only %v, moves %v; want true and none", p.FirstZoneOnly, p.MovesMean)
			}
		default:
			if p.MovesMean == nil || p.MoveCostMean == nil {
				t.Fatalf("%s: no moves reported", p.Name)
			}
			if got, want := *p.MoveCostMean, *p.MovesMean*40*0.05; math.Abs(got-want) > 0.01 {
				t.Errorf("%s: move money %.4f, want moves %.3f × 40 GB × 0.05 = %.4f", p.Name, got, *p.MovesMean, want)
			}
			if *p.MovesMean == 0 {
				t.Errorf("%s: no moves on two volatile zones", p.Name)
			}
		}
	}
	for _, p := range res.Policies {
		if p.Name != "optimal" && p.PMeet != nil && *p.PMeet == 1 && *p.CostMean < opt-1e-9 {
			t.Errorf("%s: mean cost %.4f below the optimum's %.4f", p.Name, *p.CostMean, opt)
		}
	}
	zones, _ := res.Inputs["zones"].([]any)
	if len(zones) != 2 || !strings.Contains(res.Inputs["zone_pairing"].(string), "2 zones paired tick by tick") {
		t.Errorf("inputs: zones %v, pairing %v", res.Inputs["zones"], res.Inputs["zone_pairing"])
	}
	if n := res.Inputs["move_costs"].(string); !strings.Contains(n, "40 GB of job state at 0.05 USD per GB (--move-price): 2.00 USD a move") {
		t.Errorf("move costs note %q", n)
	}
}

// TestSpotRegionsCatalogMoves: AWS zone names price moves from the catalog's
// transfer tables: 50 GB between zones of us-east-1 is 50 × 0.01 × 2 (billed
// out and in) = 1.00 USD, to us-west-2 50 × 0.02 = 1.00 USD, with the source.
// Traces of different lengths are cut to the common span, and the note says so.
func TestSpotRegionsCatalogMoves(t *testing.T) {
	dir := zoneTraces(t, map[string]string{"us-east-1a_v100_1.json": volatileTrace, "us-east-1c_v100_1.json": stableTrace, "us-west-2a_v100_1.json": stableTrace})
	// A shorter trace: the first 2000 ticks of the volatile one.
	b, _ := os.ReadFile(volatileTrace)
	var tr struct {
		Metadata map[string]any `json:"metadata"`
		Data     []int          `json:"data"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	tr.Data = tr.Data[:2000]
	short, _ := json.Marshal(tr)
	if err := os.WriteFile(filepath.Join(dir, "us-west-2a_v100_1.json"), short, 0o644); err != nil {
		t.Fatal(err)
	}
	res := runZonesJSON(t, "--trace", dir, "--regions", "failover", "--work", "24h", "--deadline", "30h", "--spot-price", "0.9", "--od-price", "3", "--move-gb", "50", "--runs", "20")
	note := res.Inputs["move_costs"].(string)
	for _, want := range []string{"between zones of one region 1.00 USD a move (cross-zone, billed out and in", "between regions 1.00 USD a move (cross-region", "infracost-aws-transfer"} {
		if !strings.Contains(note, want) {
			t.Errorf("move costs note %q lacks %q", note, want)
		}
	}
	if p := res.Inputs["zone_pairing"].(string); !strings.Contains(p, "common span only: 2000 ticks of 195 s") {
		t.Errorf("pairing %q, want the common span of 2000 ticks", p)
	}
	if m := res.Policies[0]; *m.MovesMean == 0 || math.Abs(*m.MoveCostMean-*m.MovesMean) > 0.01 {
		t.Errorf("failover: move money %.4f, want 1.00 a move × %.3f moves", *m.MoveCostMean, *m.MovesMean)
	}
}

// TestSpotRegionsOfferingPrices: with --offering, each zone is priced with
// the instance in its own region: zones of one region share the region's
// on-demand price and spot quote, and the sources name each region.
func TestSpotRegionsOfferingPrices(t *testing.T) {
	dir := zoneTraces(t, map[string]string{"us-east-1a_v100_1.json": volatileTrace, "us-east-1c_v100_1.json": stableTrace, "us-west-2a_v100_1.json": stableTrace})
	res := runZonesJSON(t, "--trace", dir, "--regions", "cheapest-first", "--offering", "aws/p4d.24xlarge", "--work", "24h", "--deadline", "30h", "--runs", "10")
	zones := res.Inputs["zones"].([]any)
	price := func(i int, k string) float64 { return zones[i].(map[string]any)[k].(float64) }
	if len(zones) != 3 || price(0, "spot_price") != price(1, "spot_price") || price(0, "spot_price") == price(2, "spot_price") || !(price(0, "spot_price") > 0) || !(price(2, "od_price") > 0) {
		t.Errorf("zone prices %v: want one spot price per region, positive", zones)
	}
	srcs, _ := json.Marshal(res.Inputs["price_sources"])
	for _, want := range []string{"zones in us-east-1: on-demand aws/p4d.24xlarge/us-east-1", "zones in us-west-2: on-demand aws/p4d.24xlarge/us-west-2"} {
		if !strings.Contains(string(srcs), want) {
			t.Errorf("price sources %s lack %q", srcs, want)
		}
	}
	_, errOut, code := run(t, "spot", "--trace", volatileTrace+","+stableTrace, "--regions", "failover", "--offering", "aws/p4d.24xlarge", "--work", "24h", "--deadline", "30h")
	if code != ExitUsage || !strings.Contains(errOut, "--offering aws/p4d.24xlarge for zone volatile (region volatile)") {
		t.Errorf("zones outside the catalog: exit %d, %q; want 2 naming the zone and its region", code, errOut)
	}
}

// TestSpotRegionsExplainAndTable: the timeline shows each move with its
// restart and transfer; the table has MOVES and notes naming the zones.
func TestSpotRegionsExplainAndTable(t *testing.T) {
	out, errOut, code := run(t, "spot", "--trace", volatileTrace+","+stableTrace, "--regions", "failover", "--policy", "spot",
		"--work", "24h", "--deadline", "30h", "--spot-price", "0.9", "--od-price", "3", "--move-gb", "40", "--move-price", "0.05", "--runs", "10", "--explain", "--wide")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"MOVES", "MOVE COST USD", "Zones: volatile (volatile), stable (stable), one trace each.",
		"spot chooses no zone: it ran in the first zone, volatile, alone.", "move         volatile → stable (spot up, cheapest): 0.17 h restart + 2.00 USD transfer"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestSpotRegionsGolden: the table of two zones, every zone policy and the
// optimum (go test ./internal/cli -run SpotRegionsGolden -update rewrites it).
func TestSpotRegionsGolden(t *testing.T) {
	out, errOut, code := run(t, "spot", "--trace", volatileTrace+","+stableTrace, "--regions", "all,optimal", "--policy", "on-demand",
		"--work", "24h", "--deadline", "30h", "--spot-price", "0.9", "--od-price", "3", "--move-gb", "40", "--move-price", "0.05", "--runs", "20", "--wide")
	if code != 0 {
		t.Fatal(errOut)
	}
	golden(t, "spot-zones.txt", out)
}

// TestSpotRegionsBadInput: exit 2 with the flag and the value named.
func TestSpotRegionsBadInput(t *testing.T) {
	dir := zoneTraces(t, map[string]string{"odd_1.json": "../spot/testdata/priced_4node.json"})
	base := []string{"spot", "--work", "24h", "--deadline", "30h", "--spot-price", "0.9", "--od-price", "3"}
	two := volatileTrace + "," + stableTrace
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(base, "--trace", two, "--regions", "foo"), `--regions "foo": "foo" is not a multi-zone policy; want one or more of failover, round-robin, cheapest-first, failover-deadline`},
		{append(base, "--trace", two, "--regions", "greedy"), `"greedy" is not a multi-zone policy`},
		{append(base, "--trace", two, "--regions", "failover", "--move-gb", "-1"), `invalid argument "-1" for "--move-gb" flag: want a number at least 0`},
		{append(base, "--trace", volatileTrace, "--regions", "failover"), "--regions failover needs the traces of two or more zones in --trace"},
		{append(base, "--band", "5-10%", "--regions", "failover"), "--regions failover needs the traces of two or more zones"},
		{append(base, "--trace", two, "--move-gb", "10"), "--move-gb and --move-price need --regions"},
		{append(base, "--trace", two, "--regions", "failover", "--move-price", "0.02"), "--move-price 0.02 needs --move-gb"},
		{append(base, "--trace", two, "--regions", "failover", "--move-gb", "10"), "--move-gb 10: zone volatile is not an AWS zone the catalog prices transfer for; give --move-price"},
		{append(base, "--trace", two, "--policy", "failover"), "--policy failover moves between zones: give the zones' traces with --regions failover"},
		{append(base, "--trace", volatileTrace+","+filepath.Join(dir, "odd_1.json"), "--regions", "failover"), "have different ticks"},
		{append(base, "--trace", volatileTrace+","+volatileTrace, "--regions", "failover"), "is given twice: a zone is one trace"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args[len(base):], code, errOut, tc.want)
		}
	}
}

// TestSpotOneTracePolicyFailover: with one trace, failover is the spot
// policy and failover-deadline uniform-progress (one zone: no moves).
func TestSpotOneTracePolicyFailover(t *testing.T) {
	res := runZonesJSON(t, "--trace", volatileTrace, "--policy", "failover,spot,failover-deadline,uniform-progress",
		"--work", "24h", "--deadline", "30h", "--spot-price", "0.9", "--od-price", "3", "--runs", "30")
	if a, b := res.Policies[0], res.Policies[1]; *a.CostMean != *b.CostMean || *a.PMeet != *b.PMeet {
		t.Errorf("failover %v/%v, spot %v/%v: want equal", *a.CostMean, *a.PMeet, *b.CostMean, *b.PMeet)
	}
	if a, b := res.Policies[2], res.Policies[3]; *a.CostMean != *b.CostMean || *a.PMeet != *b.PMeet {
		t.Errorf("failover-deadline %v/%v, uniform-progress %v/%v: want equal", *a.CostMean, *a.PMeet, *b.CostMean, *b.PMeet)
	}
}
