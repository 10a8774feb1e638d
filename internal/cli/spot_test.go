package cli

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/spot"
)

const volatileTrace = "../spot/testdata/volatile_1node.json"

func TestSpotJSONContract(t *testing.T) {
	out, errOut, code := run(t, "spot", "--work", "48h", "--deadline", "52h", "--trace", volatileTrace, "--spot-price", "0.918", "--od-price", "3.06", "--policy", "all", "--runs", "200", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Policies []map[string]any `json:"policies"`
		Inputs   map[string]any   `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Policies) != 7 {
		t.Fatalf("%d policies, want 7", len(res.Policies))
	}
	for _, p := range res.Policies {
		for _, k := range []string{"name", "cost_mean", "cost_p50", "cost_p95", "savings_vs_ondemand", "p_meet_deadline", "completion_hours_mean",
			"completion_hours_p95", "interruptions_mean", "wasted_hours_mean", "currency", "p_above_ondemand", "switches_mean"} {
			if _, ok := p[k]; !ok {
				t.Errorf("policy %v lacks %s", p["name"], k)
			}
		}
		if (p["name"] == "greedy" || p["name"] == "uniform-progress" || p["name"] == "uniform-progress-lite") && p["p_meet_deadline"] != 1.0 {
			t.Errorf("%s met the deadline with probability %v", p["name"], p["p_meet_deadline"])
		}
		// The first launch pays the 10 min start-up: (48 + 1/6) h × 3.06 = 147.39.
		if p["name"] == "on-demand" && (p["cost_mean"] != 147.39 || p["p_above_ondemand"] != 0.0 || p["switches_mean"] != 1.0) {
			t.Errorf("on-demand cost %v, above on-demand %v, switches %v; want 147.39, 0, 1", p["cost_mean"], p["p_above_ondemand"], p["switches_mean"])
		}
	}
	for _, k := range []string{"hazard_per_hour", "checkpoint_interval_hours", "model", "spot_discount"} {
		if _, ok := res.Inputs[k]; !ok {
			t.Errorf("inputs lack %s", k)
		}
	}
	// The same seed gives the same numbers.
	again, _, _ := run(t, "spot", "--work", "48h", "--deadline", "52h", "--trace", volatileTrace, "--spot-price", "0.918", "--od-price", "3.06", "--policy", "all", "--runs", "200", "-o", "json")
	if again != out {
		t.Error("two runs with the same seed differ")
	}
}

func TestSpotBandAndExplain(t *testing.T) {
	out, errOut, code := run(t, "spot", "--offering", "aws/p4d.24xlarge/us-east-1", "--work", "72h", "--deadline", "100h", "--band", "10-15%", "--runs", "500")
	if code != 0 {
		t.Fatal(errOut)
	}
	// The conversion is stated: p = 0.125 → λ = −ln(0.875)/730 = 0.000183/h.
	if !strings.Contains(out, "λ = −ln(1−p)/730 = 0.000183 per hour") || !strings.Contains(out, "savings can never exceed the spot discount") {
		t.Errorf("band conversion or discount cap missing:\n%s", out)
	}
	out, errOut, code = run(t, "spot", "--work", "10h", "--mtbf", "3h", "--spot-price", "1", "--od-price", "3", "--policy", "spot", "--explain", "--runs", "10")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"Timeline of one run, spot", "interrupted", "checkpoint", "done"} {
		if !strings.Contains(out, want) {
			t.Errorf("timeline lacks %q:\n%s", want, out)
		}
	}
}

// chartTexts returns the text elements of an SVG chart, in order.
func chartTexts(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Text []string `xml:"text"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: not valid SVG/XML: %v", path, err)
	}
	return doc.Text
}

// spotChartRows maps each policy named in a row header of the spot chart to
// the P(meet) text that follows it.
func spotChartRows(texts []string, policies []string) map[string]string {
	rows := map[string]string{}
	for i, tx := range texts {
		for _, name := range strings.Split(tx, " = ") {
			if slices.Contains(policies, name) && i+1 < len(texts) {
				rows[name] = texts[i+1]
			}
		}
	}
	return rows
}

func TestSpotChart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spot.svg")
	_, errOut, code := run(t, "spot", "--work", "24h", "--deadline", "30h", "--trace", volatileTrace, "--spot-price", "1", "--od-price", "3", "--runs", "100", "--chart", path)
	if code != 0 {
		t.Fatal(errOut)
	}
	texts := chartTexts(t, path)
	rows := spotChartRows(texts, spot.PolicyNames())
	if len(rows) != len(spot.PolicyNames()) {
		t.Errorf("chart rows name %d policies, want all %d: %q", len(rows), len(spot.PolicyNames()), texts)
	}
	if want := "Which spot policy meets the 30 h deadline"; !strings.Contains(strings.Join(texts, " "), want) {
		t.Errorf("the title does not ask %q: %q", want, texts)
	}
}

// TestSpotChartMTBF3h: with an interruption every 3 h on average, spot-only
// policies look cheapest but never finish 48 h of work within 52 h; the
// chart must say so on their row, merged into one ("spot = ... = asg-mix").
func TestSpotChartMTBF3h(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spot.svg")
	_, errOut, code := run(t, "spot", "--work", "48h", "--deadline", "52h", "--mtbf", "3h", "--spot-price", "0.918", "--od-price", "3.06", "--runs", "200", "--chart", path)
	if code != 0 {
		t.Fatal(errOut)
	}
	texts := chartTexts(t, path)
	rows := spotChartRows(texts, spot.PolicyNames())
	for _, p := range []string{"spot", "asg-mix"} {
		if got := rows[p]; !strings.HasPrefix(got, "meets the deadline in 0% of runs") {
			t.Errorf("row of %s says %q, want it to meet the deadline in 0%% of runs", p, got)
		}
	}
	if got := rows["on-demand"]; got != "meets the deadline in 100% of runs" {
		t.Errorf("on-demand row says %q, want 100%%", got)
	}
	merged := false
	for _, tx := range texts {
		if strings.Contains(tx, "spot = ") && strings.Contains(tx, "asg-mix") {
			merged = true
		}
	}
	if !merged {
		t.Errorf("spot and asg-mix have identical runs but no merged row: %q", texts)
	}
}

func TestSpotTraceFolder(t *testing.T) {
	out, errOut, code := run(t, "spot", "--work", "24h", "--deadline", "30h", "--trace", "../spot/testdata", "--spot-price", "1", "--od-price", "3", "--runs", "50", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Inputs map[string]any `json:"inputs"`
	}
	json.Unmarshal([]byte(out), &res)
	if m, _ := res.Inputs["model"].(string); !strings.Contains(m, "replay of 3 traces") {
		t.Errorf("model = %q, want the three testdata traces pooled", m)
	}
}

func TestSpotSynth(t *testing.T) {
	out, _, code := run(t, "spot", "synth", "--up", "1h", "--down", "2h", "--length", "30d", "--gap", "195s", "--seed", "1")
	want, _ := os.ReadFile(volatileTrace)
	if code != 0 || out != string(want) {
		t.Error("spot synth does not reproduce testdata/volatile_1node.json")
	}
}

func TestSpotBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"metadata": {"gap_seconds": 60}, "data": [1, -2]}`), 0o644)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(`{"metadata": {"gap_seconds": 60}, "data": []}`), 0o644)
	keys := filepath.Join(dir, "keys.json")
	os.WriteFile(keys, []byte(`{"gap": 60, "avail": [1]}`), 0o644)
	flicker := filepath.Join(dir, "flicker.json") // up 1 min, down 1 min: a 1 h job without checkpoints never finishes on spot
	os.WriteFile(flicker, []byte(`{"metadata": {"gap_seconds": 60}, "data": [1, 0]}`), 0o644)
	array := filepath.Join(dir, "array.json")
	os.WriteFile(array, []byte(`[0, 1, 1, 0]`), 0o644)
	base := []string{"spot", "--spot-price", "1", "--od-price", "3"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(base, "--work", "72h", "--deadline", "50h", "--band", "5-10%"), "--deadline 50h is shorter than --work 72h"},
		{append(base, "--work", "72h", "--deadline", "72h", "--band", "5-10%"), "--deadline 72h is shorter than --work 72h plus one --restart 10m"},
		{append(base, "--work", "72h", "--trace", bad), "data[1] = -2 is negative"},
		{append(base, "--work", "72h", "--trace", empty), "data is empty"},
		{append(base, "--work", "72h", "--trace", keys), `unknown field "gap"; want the Can't Be Late format`},
		{append(base, "--work", "72h", "--trace", array), array + `: trace: the file holds a JSON array; want an object in the Can't Be Late format {"metadata": {"gap_seconds": G}, "data": [n, ...]`},
		{append(base, "--work", "72h", "--band", "5-10%", "--checkpoint", "1s"), "--checkpoint 1s (0.0002778 h) is at or below --checkpoint-cost 5m"},
		{append(base, "--work", "72h", "--band", "5-10%", "--checkpoint", "5m"), "--checkpoint 5m (0.08333 h) is at or below --checkpoint-cost 5m"},
		{append(base, "--work", "72h", "--mtbf", "300h", "--checkpoint", "10s", "--checkpoint-cost", "1s", "--runs", "3000"), "would take about 2.33e+08 events"},
		{append(base, "--work", "1h", "--trace", flicker, "--policy", "spot", "--checkpoint", "none", "--runs", "10", "--max-events", "1000"), "stopped at its budget of 1000 events with 0 of 10 runs done (spot); to fit, lower --runs"},
		{append(base, "--work", "48h", "--trace", volatileTrace, "--max-events", "5"), `"--max-events" flag: want a whole number from 1000 to 10000000000`},
		{append(base, "--work", "72h", "--band", "5-10%", "--policy", "yolo"), `unknown policy "yolo"`},
		{append(base, "--work", "72h", "--band", "lots"), `band "lots"`},
		{append(base, "--band", "5-10%"), "--work is required"},
		{append(base, "--work", "72h"), "give an availability model"},
		{append(base, "--work", "72h", "--band", "5-10%", "--mtbf", "3h"), "give one availability model"},
		{[]string{"spot", "--work", "72h", "--band", "5-10%"}, "prices are missing"},
		{[]string{"spot", "--work", "72h", "--offering", "lambda/gpu_8x_a100"}, "--offering lambda/gpu_8x_a100: the catalog has no sourced spot price for it: give --spot-price, or choose an offering with both prices"},
		{append(base, "--work", "72h", "--band", "5-10%", "--checkpoint", "often"), `--checkpoint "often"`},
		{append(base, "--work", "72h", "--band", "5-10%", "--runs", "0"), `"0" for "--runs" flag: want 1 to 10000000`},
		{append(base, "--work", "72h", "--trace", filepath.Join(dir, "none.json")), "no such file"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args[1:], code, errOut, tc.want)
		}
	}
}

// TestSpotOffsets: --offsets gives one run per start time into each trace,
// listed in JSON; a run from a file's start time equals the same run given
// on the command line, so runs pair with another simulator's one by one.
func TestSpotOffsets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "offsets.txt")
	os.WriteFile(file, []byte("# start times\n0h\n\n12.5h\n100h\n"), 0o644)
	base := []string{"spot", "--work", "48h", "--deadline", "52h", "--trace", volatileTrace, "--spot-price", "0.918", "--od-price", "3.06", "--policy", "uniform-progress,greedy", "-o", "json"}
	type runJSON struct {
		Trace       string   `json:"trace"`
		OffsetHours float64  `json:"offset_hours"`
		Cost        *float64 `json:"cost"`
	}
	var res struct {
		Policies []struct {
			Name   string    `json:"name"`
			PerRun []runJSON `json:"runs"`
		} `json:"policies"`
		Inputs map[string]any `json:"inputs"`
	}
	out, errOut, code := run(t, append(base, "--offsets", "@"+file)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Inputs["runs"] != 3.0 {
		t.Errorf("runs = %v, want 3 (one per start time)", res.Inputs["runs"])
	}
	for _, p := range res.Policies {
		if len(p.PerRun) != 3 || p.PerRun[1].OffsetHours != 12.5 || p.PerRun[1].Trace != volatileTrace || p.PerRun[1].Cost == nil {
			t.Fatalf("%s: runs %+v; want 3, the second from 12.5 h", p.Name, p.PerRun)
		}
	}
	up := *res.Policies[0].PerRun[1].Cost
	out, errOut, code = run(t, append(base, "--offsets", "12.5h")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	json.Unmarshal([]byte(out), &res)
	if got := *res.Policies[0].PerRun[0].Cost; got != up {
		t.Errorf("run from 12.5h: %v alone, %v in the file's batch", got, up)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0h\n1h\nsoon\n"), 0o644)
	far := filepath.Join(dir, "far.txt")
	os.WriteFile(far, []byte("1h\n2000h\n"), 0o644)
	common := []string{"spot", "--work", "48h", "--deadline", "52h", "--spot-price", "1", "--od-price", "3"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(common, "--trace", volatileTrace, "--offsets", "@"+bad), `line 3: "soon" is not a start time`},
		{append(common, "--trace", volatileTrace, "--offsets", "@"+far), "line 2: 2000 h is beyond the end of"},
		{append(common, "--trace", volatileTrace, "--offsets", "1h,-2h"), `entry 2: "-2h"`},
		{append(common, "--trace", volatileTrace, "--offsets", "@"+filepath.Join(dir, "none.txt")), "--offsets @"},
		{append(common, "--trace", volatileTrace, "--offsets", "1h", "--runs", "5"), "--offsets and --runs"},
		{append(common, "--band", "5-10%", "--offsets", "1h"), "--offsets needs --trace"},
		{append(common, "--trace", volatileTrace, "--trace-mode", "fit", "--offsets", "1h"), "--offsets needs --trace-mode replay"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args[len(common):], code, errOut, tc.want)
		}
	}
}

// TestSpotZeroWithUnit: a zero duration written with a unit is accepted
// wherever 0 is (--restart, --checkpoint-cost, --down, --checkpoint).
func TestSpotZeroWithUnit(t *testing.T) {
	for _, args := range [][]string{
		{"--restart", "0s", "--checkpoint-cost", "0m", "--down", "0m", "--checkpoint", "0m"},
		{"--restart", "0h0m", "--checkpoint-cost", "0.0s", "--down", "0", "--checkpoint", "0"},
	} {
		out, errOut, code := run(t, append([]string{"spot", "--work", "10h", "--deadline", "12h", "--mtbf", "5h", "--spot-price", "1", "--od-price", "3", "--runs", "20", "-o", "json"}, args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
			continue
		}
		var res struct {
			Inputs map[string]any `json:"inputs"`
		}
		json.Unmarshal([]byte(out), &res)
		if res.Inputs["restart_hours"] != 0.0 || res.Inputs["checkpoint_cost_hours"] != 0.0 || res.Inputs["checkpoint_interval_hours"] != 0.0 {
			t.Errorf("%v: inputs %v; want zero restart, checkpoint cost and interval", args, res.Inputs)
		}
	}
	for _, bad := range []string{"0x", "h", "0..0", "0mm", "m0"} {
		if _, errOut, code := run(t, "spot", "--work", "10h", "--mtbf", "5h", "--spot-price", "1", "--od-price", "3", "--restart", bad); code != ExitUsage || !strings.Contains(errOut, "--restart") {
			t.Errorf("--restart %q: exit %d, %q; want 2 naming --restart", bad, code, errOut)
		}
	}
}

// TestSpotAutoCheckpointAboveCost: where Daly's optimum falls at or below the
// checkpoint cost (interruptions every 3 min, 5 min to write one), auto uses
// twice the cost rather than an interval the job would spend writing.
func TestSpotAutoCheckpointAboveCost(t *testing.T) {
	out, errOut, code := run(t, "spot", "--work", "2h", "--mtbf", "3m", "--spot-price", "1", "--od-price", "3", "--policy", "on-demand", "--runs", "5", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Inputs map[string]any `json:"inputs"`
	}
	json.Unmarshal([]byte(out), &res)
	if got, _ := res.Inputs["checkpoint_interval_hours"].(float64); math.Abs(got-10.0/60) > 1e-12 {
		t.Errorf("checkpoint interval %v h, want 2 × 5 min = %v h", res.Inputs["checkpoint_interval_hours"], 10.0/60)
	}
}

// TestSpotDefaultRuns: the command's run counts are the spot package's
// defaults (one place for them): spot.DefaultRuns for a random model,
// spot.DefaultOffsetRuns start offsets per trace for a replay.
func TestSpotDefaultRuns(t *testing.T) {
	for _, tc := range []struct {
		model []string
		want  int
	}{
		{[]string{"--band", "5-10%"}, spot.DefaultRuns},
		{[]string{"--trace", volatileTrace}, spot.DefaultOffsetRuns},
	} {
		out, errOut, code := run(t, append([]string{"spot", "--work", "10h", "--deadline", "12h", "--spot-price", "1", "--od-price", "3", "--policy", "on-demand", "-o", "json"}, tc.model...)...)
		if code != 0 {
			t.Fatal(errOut)
		}
		var res struct {
			Inputs map[string]any `json:"inputs"`
		}
		json.Unmarshal([]byte(out), &res)
		if res.Inputs["runs"] != float64(tc.want) {
			t.Errorf("%v: runs %v, want %d", tc.model, res.Inputs["runs"], tc.want)
		}
	}
}

// TestSpotOptimal: --policy all,optimal adds the hindsight optimum, which no
// deadline-meeting policy beats on average, with every policy's regret over it.
func TestSpotOptimal(t *testing.T) {
	out, errOut, code := run(t, "spot", "--work", "48h", "--deadline", "52h", "--trace", volatileTrace, "--spot-price", "0.918", "--od-price", "3.06",
		"--restart", "390s", "--policy", "greedy,up,optimal", "--runs", "40", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Policies []struct {
			Name       string   `json:"name"`
			CostMean   float64  `json:"cost_mean"`
			RegretMean *float64 `json:"regret_mean"`
			RegretP95  *float64 `json:"regret_p95"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Policies) != 3 || res.Policies[2].Name != "optimal" {
		t.Fatalf("policies %+v, want greedy, uniform-progress, optimal", res.Policies)
	}
	opt := res.Policies[2]
	if opt.RegretMean == nil || *opt.RegretMean != 0 || *opt.RegretP95 != 0 {
		t.Errorf("optimal's own regret %v, want 0", opt.RegretMean)
	}
	for _, p := range res.Policies[:2] {
		if p.RegretMean == nil || *p.RegretMean < 0 || *p.RegretP95 < *p.RegretMean || p.CostMean < opt.CostMean {
			t.Errorf("%s: cost %v regret %v p95 %v; want cost >= the optimum's %v and 0 <= regret <= p95", p.Name, p.CostMean, p.RegretMean, p.RegretP95, opt.CostMean)
		}
	}
	// Without a deadline the optimum is not defined; the explain timeline works.
	out, errOut, code = run(t, "spot", "--work", "2h", "--trace", volatileTrace, "--spot-price", "0.918", "--od-price", "3.06", "--policy", "optimal")
	if code != 0 || !strings.Contains(out, "needs --deadline") {
		t.Errorf("no deadline: code %d, %s%s", code, out, errOut)
	}
	out, errOut, code = run(t, "spot", "--work", "2h", "--deadline", "3h", "--trace", volatileTrace, "--spot-price", "0.918", "--od-price", "3.06", "--policy", "optimal", "--explain")
	if code != 0 || !strings.Contains(out, "hindsight optimum") {
		t.Errorf("explain: code %d, %s%s", code, out, errOut)
	}
}

// TestSpotUncertainLength: --work MIN..MAX and --work-runs with
// --plan-quantile; a point range gives today's numbers; bad values exit 2
// naming the flag.
func TestSpotUncertainLength(t *testing.T) {
	base := []string{"spot", "--deadline", "60h", "--trace", volatileTrace, "--spot-price", "0.918", "--od-price", "3.06", "--policy", "greedy,up,od", "--runs", "20", "-o", "json"}
	policies := func(out string) []map[string]any {
		var res struct {
			Policies []map[string]any `json:"policies"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res.Policies
	}
	fixed, errOut, code := run(t, append(base, "--work", "48h")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	point, errOut, code := run(t, append(base, "--work", "48h..48h", "--plan-quantile", "0.5")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	if a, b := policies(fixed), policies(point); !reflect.DeepEqual(a, b) {
		t.Errorf("48h..48h differs from 48h:\n%v\n%v", a, b)
	}
	// Planned at the median of 40..56 h with a 60 h deadline: the on-demand
	// policy always meets it; greedy sometimes does not.
	out, errOut, code := run(t, append(base, "--work", "40h..56h", "--plan-quantile", "0.5")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, p := range policies(out) {
		meet := p["p_meet_deadline"].(float64)
		if (p["name"] == "on-demand" && meet != 1) || (p["name"] == "greedy" && meet == 1) {
			t.Errorf("%s: P(meet) %v", p["name"], meet)
		}
	}
	if _, errOut, code = run(t, append(base, "--work-runs", "41h,44h,52h", "--plan-quantile", "1")...); code != 0 {
		t.Error(errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--work", "56h..40h"}, `"56h..40h" for "--work" flag: range "56h..40h": the lower end is above the upper`},
		{[]string{"--work", "40h..x"}, `upper end`},
		{[]string{"--work", "40h..56h", "--plan-quantile", "0"}, `"0" for "--plan-quantile"`},
		{[]string{"--work", "40h..56h", "--plan-quantile", "1.5"}, `"1.5" for "--plan-quantile"`},
		{[]string{"--work", "48h", "--plan-quantile", "0.9"}, "--plan-quantile 0.9 needs an uncertain length"},
		{[]string{"--work", "48h", "--work-runs", "41h"}, "--work 48h and --work-runs: give one"},
		{[]string{"--work-runs", "41h,-3h"}, `"--work-runs" flag: item 2`},
		{[]string{"--work", "40h..70h", "--plan-quantile", "0.9"}, "--deadline 60h is shorter than --work 40h..70h (its 0.9 quantile, 67h)"},
	} {
		_, errOut, code := run(t, append(base, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
