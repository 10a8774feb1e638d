package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

func TestAdviseJSONContract(t *testing.T) {
	out, errOut, code := run(t, "advise", "--scenario", "llm-pretraining", "--work", "20000gpu-h@A100", "--deadline", "30d", "--budget", "60000USD", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Plans    []map[string]any `json:"plans"`
		Excluded []map[string]any `json:"excluded"`
		Summary  []string         `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) == 0 || len(res.Excluded) == 0 || len(res.Summary) != 3 {
		t.Fatalf("%d plans, %d excluded, %d summary lines", len(res.Plans), len(res.Excluded), len(res.Summary))
	}
	for i, p := range res.Plans {
		for _, k := range []string{"rank", "provider", "instance_type", "region", "gpu", "gpu_count", "interconnect", "pricing_model", "term",
			"total_cost", "currency", "expected_hours", "p_miss_deadline", "upfront_cash", "explanation"} {
			if _, ok := p[k]; !ok {
				t.Fatalf("plan lacks %s: %v", k, p)
			}
		}
		if p["rank"] != float64(i+1) || p["total_cost"].(float64) > 60000 || p["expected_hours"].(float64) > 720 {
			t.Errorf("plan %d breaks the order or a constraint: %v", i+1, p)
		}
	}
	for _, x := range res.Excluded {
		what, ok1 := x["what"].(string)
		reason, ok2 := x["reason"].(string)
		if !ok1 || !ok2 || what == "" || reason == "" || len(x) != 2 {
			t.Errorf("excluded entry %v: want exactly the keys what and reason (README)", x)
		}
	}
	for _, p := range res.Plans {
		if v, ok := p["p_miss_deadline"].(float64); !ok || v < 0 || v > 0.05 {
			t.Errorf("with a deadline, p_miss_deadline = %v, want a share in [0, 0.05]", p["p_miss_deadline"])
		}
	}
	// Without a deadline there is nothing to miss: null, not 0.
	out, errOut, code = run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	res.Plans = nil
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Plans) == 0 {
		t.Fatalf("%v: %d plans", err, len(res.Plans))
	}
	for _, p := range res.Plans {
		if v, ok := p["p_miss_deadline"]; !ok || v != nil {
			t.Errorf("without a deadline p_miss_deadline = %v (present %v), want null", v, ok)
		}
	}
}

func TestAdviseExports(t *testing.T) {
	out, errOut, code := run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--provider", "aws,gcp,lambda", "--export", "skypilot")
	if code != 0 {
		t.Fatal(errOut)
	}
	var task struct {
		Name      string `yaml:"name"`
		NumNodes  int    `yaml:"num_nodes"`
		Resources struct {
			Cloud        string `yaml:"cloud"`
			Accelerators string `yaml:"accelerators"`
			InstanceType string `yaml:"instance_type"`
			UseSpot      bool   `yaml:"use_spot"`
		} `yaml:"resources"`
	}
	if err := yaml.Unmarshal([]byte(out), &task); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, out)
	}
	if task.Resources.Cloud == "" || task.Resources.InstanceType == "" || !strings.Contains(task.Resources.Accelerators, ":") || task.NumNodes < 1 {
		t.Errorf("task = %+v", task)
	}
	out, _, code = run(t, "advise", "--scenario", "inference-online", "--hours-per-month", "730", "--export", "agent")
	var cfg struct {
		Version int            `yaml:"version"`
		Node    map[string]any `yaml:"node"`
		Rules   []struct {
			Name, Metric string
		} `yaml:"rules"`
	}
	if code != 0 || yaml.Unmarshal([]byte(out), &cfg) != nil || cfg.Version != 1 || len(cfg.Rules) < 4 || cfg.Node["instance_type"] == nil {
		t.Errorf("agent config: %d %+v\n%s", code, cfg, out)
	}
	// SkyPilot cannot launch on Alibaba: the cheaper Alibaba plan is
	// skipped with the reason, and alone it is a clear error.
	dir := t.TempDir()
	p := filepath.Join(dir, "p.yaml")
	os.WriteFile(p, []byte("prices:\n  - {provider: alibaba, instance_type: ecs.gn7i-c8g1.2xlarge, region: cn-hangzhou, price: 0.01, currency: CNY}\n"), 0o644)
	out, errOut, code = run(t, "advise", "--scenario", "inference-online", "--hours-per-month", "730", "--prices", p, "--export", "skypilot")
	if code != 0 || !strings.Contains(out, "#   #1 alibaba ecs.gn7i-c8g1.2xlarge (on-demand): SkyPilot cannot launch on alibaba") || !strings.Contains(out, "# run it with: sky serve up task.yaml") {
		t.Errorf("skypilot export skipping alibaba: %d %s\n%s", code, errOut, out)
	}
	_, errOut, code = run(t, "advise", "--scenario", "inference-online", "--hours-per-month", "730", "--prices", p, "--provider", "alibaba", "--export", "skypilot")
	if code != 2 || !strings.Contains(errOut, "SkyPilot cannot launch on alibaba") {
		t.Errorf("skypilot export for alibaba only: %d %s", code, errOut)
	}
}

func TestAdviseReports(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"plan.html", "plan.md"} {
		path := filepath.Join(dir, name)
		out, errOut, code := run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--report", path)
		if code != 0 {
			t.Fatal(errOut)
		}
		said := map[string]string{"plan.html": "Report written to " + path + ".", "plan.md": "Report written to " + path + ", with its 2 charts beside it."}[name]
		if !strings.Contains(strings.Join(strings.Fields(out), " "), said) {
			t.Errorf("the output does not say %q:\n%s", said, out)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		switch name {
		case "plan.html":
			if !strings.Contains(s, "<svg") || strings.Count(s, "<svg") != 2 || !strings.Contains(s, "Scenario fit") {
				t.Errorf("html report lacks charts or summary")
			}
		case "plan.md":
			for _, svg := range []string{"plan-cost-time.svg", "plan-breakdown.svg"} {
				if !strings.Contains(s, svg) {
					t.Errorf("markdown report does not link %s", svg)
				}
				if _, err := os.Stat(filepath.Join(dir, svg)); err != nil {
					t.Errorf("chart %s not written", svg)
				}
			}
		}
	}
}

func TestAdviseBench(t *testing.T) {
	// Without a report the A10G has no compute figures of its own: A10's
	// stand in, marked as an estimate; with one its measured figures are used.
	out, _, _ := run(t, "advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws", "-o", "json")
	if !strings.Contains(out, `"throughput_estimate": {`) || !strings.Contains(out, "(A10's, standing in: estimated)") {
		t.Error("A10G plans not estimated from A10")
	}
	out, errOut, code := run(t, "advise", "--scenario", "inference-batch", "--work", "100gpu-h@A100", "--provider", "aws", "--bench", "testdata/bench-a10g.json", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(out, "(measured, testdata/bench-a10g.json)") {
		t.Error("the measured figures are not used")
	}
}

func TestAdviseBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"advise", "--gpu", "A100:4", "--for", "7d"}, "--scenario is required"},
		{[]string{"advise", "--scenario", "gaming", "--for", "7d"}, `unknown scenario "gaming"`},
		{[]string{"advise", "--scenario", "cv-training"}, "give the size of the work once"},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--hours-per-month", "100"}, "give the size of the work once"},
		{[]string{"advise", "--scenario", "cv-training", "--work", "lots"}, `--work "lots"`},
		{[]string{"advise", "--scenario", "cv-training", "--work", "100gpu-h@Z80"}, `unknown GPU "Z80"`},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--budget", "-5USD"}, `"-5USD" for "--budget" flag: amount -5 USD is out of range: allowed 0 to`},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--credits", "5XYZ@aws"}, `--credits 5XYZ: currency XYZ has no exchange rate`},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--discount-rate", "8"}, `a bare number is a fraction`},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--egress", "internet=1e300"}, `"internet=1e300" for "--egress" flag`},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--budget", "cheap"}, `"cheap" for "--budget" flag: want a number followed by a currency`},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--objective", "fun"}, `--objective "fun"`},
		{[]string{"advise", "--scenario", "inference-online", "--hours-per-month", "800"}, "up to the 730 hours of a month"},
		{[]string{"advise", "--scenario", "inference-online", "--hours-per-month", "700", "--deadline", "3d"}, "--deadline applies to a job"},
		{[]string{"advise", "--scenario", "cv-training", "--pattern", "bursty", "--peak", "2", "--base", "5"}, "0 <= --base <= --peak"},
		{[]string{"advise", "--scenario", "cv-training", "--pattern", "bursty", "--peak", "8"}, "price it as --hours-per-month 120 --gpu NAME:8"},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--credits", "100XYZ"}, "currency XYZ has no exchange rate"},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--export", "terraform"}, `--export "terraform"`},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--report", "plan.pdf"}, "want a file ending in .html, .htm, .md"},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--report", "no-such-dir/sub/plan.html"}, `"no-such-dir/sub/plan.html" for "--report" flag: folder no-such-dir/sub does not exist`},
		{[]string{"advise", "--scenario", "cv-training", "--for", "7d", "--bench", "none.json"}, "no such file"},
		// Issue 8: bounds named with the flag, the value and what is allowed.
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--limit", "-1"}, `"-1" for "--limit" flag: want 0 to`},
		{[]string{"advise", "--scenario", "cv-training", "--pattern", "bursty", "--base", "2", "--peak", "1e9"}, "--peak <= 100000 (GPUs of the reference), got base 2, peak 1e+09"},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:100000", "--for", "7d"}, `count "100000": want a number more than 0 and at most 1024`},
		{[]string{"advise", "--scenario", "inference-online", "--hours-per-month", "0"}, "--hours-per-month 0: want 1 minute (0.0167 h) to 730 h"},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--max-nodes", "0"}, `"0" for "--max-nodes" flag: want 1 to 10000`},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--horizon", "3y"}, "--horizon applies to a steady or bursty load"},
		{[]string{"advise", "--scenario", "inference-online", "--hours-per-month", "730", "--horizon", "20y"}, `"20y" for "--horizon" flag: 20y is too long: at most 10y`},
		{[]string{"advise", "--scenario", "cv-training", "--work", "1e12gpu-h@A100"}, "want at most 1e+09"},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--spot-band", "200%"}, `"200%" for "--spot-band" flag: band "200%"`},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args[1:], code, errOut, tc.want)
		}
	}
	// Contradictory constraints are an answer, not an error.
	out, _, code := run(t, "advise", "--scenario", "llm-pretraining", "--work", "20000gpu-h@A100", "--deadline", "1d", "--budget", "100USD")
	if code != 0 || !strings.Contains(out, "Nothing meets the constraints") || !strings.Contains(out, "~") {
		t.Errorf("contradictory constraints: %d\n%s", code, out)
	}
}

// Issue 8: the agent config of a spot plan carries the plan's own price per
// hour as a number, in the plan's currency, beside a currency field; the
// SpendOverPlan threshold is in that same currency (issue 13: format version 1,
// rules with thresholds).
func TestAdviseExportAgentSpotCNY(t *testing.T) {
	args := []string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--deadline", "8d", "--currency", "CNY"}
	out, errOut, code := run(t, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Plans []struct {
			PricingModel string  `json:"pricing_model"`
			TotalCost    float64 `json:"total_cost"`
			Provider     string  `json:"provider"`
			InstanceType string  `json:"instance_type"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Plans) == 0 || res.Plans[0].PricingModel != "spot" {
		t.Fatalf("want a spot plan first: %v %s", err, out)
	}
	out, errOut, code = run(t, append(args, "--export", "agent")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	cfg, err := agentconfig.Read(strings.NewReader(out), "agent.yaml", agentconfig.Options{})
	if err != nil {
		t.Fatalf("the agent cannot read the config: %v\n%s", err, out)
	}
	n := cfg.Node
	if n.Currency != "CNY" || n.PricingModel != "spot" || n.PricePerHour == nil || n.OnDemandPricePerHour == nil {
		t.Fatalf("node = %+v, want a spot price and an on-demand price in CNY", n)
	}
	// The source row: the offering's spot and on-demand prices converted to CNY.
	c, _ := catalog.Default()
	fx := money.DefaultFX()
	for _, o := range c.Offerings {
		if o.Provider != res.Plans[0].Provider || o.InstanceType != res.Plans[0].InstanceType || o.Region != n.Region {
			continue
		}
		for _, x := range []struct {
			name string
			got  float64
			p    catalog.Price
		}{{"spot", n.PricePerHour.InexactFloat64(), c.SpotQuoteFor(&o).Price}, {"on-demand", n.OnDemandPricePerHour.InexactFloat64(), o.OnDemand}} {
			want, err := fx.Convert(x.p.Value, x.p.Currency, money.CNY)
			if err != nil || math.Abs(x.got-want.InexactFloat64()) > 1e-6 {
				t.Errorf("%s price per hour %v, want %v CNY (%v)", x.name, x.got, want, err)
			}
		}
	}
	var spend *agentconfig.Rule
	for i := range cfg.Rules {
		if cfg.Rules[i].Name == "SpendOverPlan" {
			spend = &cfg.Rules[i]
		}
	}
	if spend == nil || spend.Metric != "gpuscout_cost_spend_total" || math.Abs(*spend.Threshold-math.Round(res.Plans[0].TotalCost*100)/100) > 1e-9 {
		t.Errorf("spend rule %+v: want gpuscout_cost_spend_total > the plan's total %.2f CNY:\n%s", spend, res.Plans[0].TotalCost, out)
	}
	if cfg.Version != 1 || !cfg.Autostop.Enabled || !cfg.Autostop.DryRun {
		t.Errorf("version %d, autostop %+v: want version 1 and autostop enabled in dry-run mode", cfg.Version, cfg.Autostop)
	}
	if strings.Contains(out, "egress_") {
		t.Errorf("an egress alert without an egress budget:\n%s", out)
	}
}

// Issue 8: the SkyPilot task of a deadline-aware spot plan keeps the
// on-demand fallback (any_of with use_spot false) and managed-job recovery,
// and says in a comment that SkyPilot cannot hold the deadline.
func TestAdviseExportSkyPilotDeadline(t *testing.T) {
	out, errOut, code := run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--deadline", "8d", "--export", "skypilot")
	if code != 0 {
		t.Fatal(errOut)
	}
	var task struct {
		Resources struct {
			Cloud       string `yaml:"cloud"`
			UseSpot     *bool  `yaml:"use_spot"`
			JobRecovery struct {
				Strategy string `yaml:"strategy"`
			} `yaml:"job_recovery"`
			AnyOf []struct {
				UseSpot *bool `yaml:"use_spot"`
			} `yaml:"any_of"`
		} `yaml:"resources"`
	}
	if err := yaml.Unmarshal([]byte(out), &task); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, out)
	}
	r := task.Resources
	if r.JobRecovery.Strategy == "" || len(r.AnyOf) != 2 || r.AnyOf[0].UseSpot == nil || !*r.AnyOf[0].UseSpot || r.AnyOf[1].UseSpot == nil || *r.AnyOf[1].UseSpot {
		t.Errorf("resources = %+v, want job_recovery and any_of [spot, on-demand]\n%s", r, out)
	}
	if r.UseSpot != nil {
		t.Errorf("use_spot outside any_of would override the fallback\n%s", out)
	}
	if !strings.Contains(out, "# deadline 192 h") || !strings.Contains(out, "cannot") || !strings.Contains(out, "sky jobs launch") {
		t.Errorf("no comment on the deadline SkyPilot cannot express:\n%s", out)
	}
}

// Issue 9 part 8: a spot plan is a managed job whose recovery may move
// regions, unless the user pinned one with --region: then the task keeps
// that region and recovers in it (FAILOVER).
func TestAdviseExportSkyPilotRegion(t *testing.T) {
	type task struct {
		Resources struct {
			Region      string `yaml:"region"`
			JobRecovery struct {
				Strategy string `yaml:"strategy"`
			} `yaml:"job_recovery"`
		} `yaml:"resources"`
	}
	for _, tt := range []struct {
		args                  []string
		wantRegion, wantStrat string
	}{
		{nil, "", "EAGER_NEXT_REGION"},
		{[]string{"--region", "eu-north1"}, "eu-north1", "FAILOVER"},
	} {
		args := append([]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--provider", "nebius", "--export", "skypilot"}, tt.args...)
		out, errOut, code := run(t, args...)
		var got task
		if code != 0 || yaml.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("%v: %d %s\n%s", tt.args, code, errOut, out)
		}
		if !strings.Contains(out, "# run it with: sky jobs launch task.yaml") || got.Resources.Region != tt.wantRegion || got.Resources.JobRecovery.Strategy != tt.wantStrat {
			t.Errorf("%v: region %q recovery %q, want %q %q\n%s", tt.args, got.Resources.Region, got.Resources.JobRecovery.Strategy, tt.wantRegion, tt.wantStrat, out)
		}
	}
}

// TestReportCitesCommitmentPrices: a plan priced from a commitment cites the
// commitment's own source and date in the report (it cited the on-demand
// price's before).
func TestReportCitesCommitmentPrices(t *testing.T) {
	dir := t.TempDir()
	prices := filepath.Join(dir, "ri.yaml")
	if err := os.WriteFile(prices, []byte("as_of: 2026-11-20\ncommitments:\n  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved, term: 1y, payment: no-upfront, class: standard, hourly: 13.2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "r.html")
	if _, errOut, code := run(t, "advise", "--scenario", "inference-online", "--gpu", "A100:8", "--hours-per-month", "730", "--provider", "aws", "--prices", prices, "--report", report); code != 0 {
		t.Fatal(errOut)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "ri.yaml, as of 2026-11-20: commitment prices of 1 plan") {
		t.Errorf("the report does not cite the reserved price's file and date")
	}
}

// TestAdviseJSONInputsCount: a steady load's size is its GPU count times the
// hours; -o json's inputs carry the count (they dropped it, so an uploaded
// plan read "730 h/month of L4" for two L4s).
func TestAdviseJSONInputsCount(t *testing.T) {
	out, errOut, code := run(t, "advise", "--no-user-catalog", "--scenario", "inference-online", "--hours-per-month", "730", "--gpu", "L4:2", "--no-spot", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Inputs map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if got := res.Inputs["reference_gpu_count"]; got != 2.0 {
		t.Errorf("reference_gpu_count = %v, want 2", got)
	}
}

// TestReportDatesYearOnlyPricesAsSuch: Tencent's China list is dated only
// "2021"; the report's price sources say so, as every other output does,
// instead of the feed's placeholder day 2021-01-01.
func TestReportDatesYearOnlyPricesAsSuch(t *testing.T) {
	report := filepath.Join(t.TempDir(), "r.md")
	if _, errOut, code := run(t, "advise", "--no-user-catalog", "--scenario", "inference-online", "--hours-per-month", "730", "--china", "--currency", "CNY", "--report", report); code != 0 {
		t.Fatal(errOut)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "tencent-qcloud-gpu-prices@8ec07296, as of 2021 (day unknown)") || strings.Contains(s, "2021-01-01") {
		t.Errorf("the report should date the China list 2021 (day unknown), never 2021-01-01:\n%s", s[:min(len(s), 2000)])
	}
}
