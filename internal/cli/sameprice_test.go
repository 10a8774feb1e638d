package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSamePriceEverywhere: offers, cost, spot and advise quote the same
// on-demand and spot price for the same offering (issue 8: cost used another
// zone's spot price, 8.01 against 6.53 USD/h for aws/p4d.24xlarge/us-east-1).
func TestSamePriceEverywhere(t *testing.T) {
	out, errOut, code := run(t, "offers", "--provider", "aws", "--region", "us-east-1", "--gpu", "A100:8", "-o", "json")
	if code != 0 {
		t.Fatalf("offers: exit %d: %s", code, errOut)
	}
	var offers []struct {
		InstanceType string       `json:"instance_type"`
		Price        *json.Number `json:"price_per_hour"`
		Spot         *json.Number `json:"spot_price_per_hour"`
		SpotZone     string       `json:"spot_zone"`
	}
	if err := json.Unmarshal([]byte(out), &offers); err != nil {
		t.Fatal(err)
	}
	var od, sp json.Number
	var zone string
	for _, o := range offers {
		if o.InstanceType == "p4d.24xlarge" && o.Price != nil && o.Spot != nil {
			od, sp, zone = *o.Price, *o.Spot, o.SpotZone
		}
	}
	if sp == "" {
		t.Fatal("offers lists no p4d.24xlarge with a spot price in us-east-1")
	}
	out, errOut, code = run(t, "cost", "--offering", "aws/p4d.24xlarge/us-east-1", "--for", "7d", "-o", "json")
	if code != 0 {
		t.Fatalf("cost: exit %d: %s", code, errOut)
	}
	var opts []struct {
		Model string       `json:"pricing_model"`
		List  *json.Number `json:"list_hourly"`
		Zone  string       `json:"price_zone"`
	}
	if err := json.Unmarshal([]byte(out), &opts); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, o := range opts {
		want := map[string]json.Number{"on-demand": od, "spot": sp}[o.Model]
		if want == "" {
			continue
		}
		seen++
		if o.List == nil || !sameNumber(*o.List, want) {
			t.Errorf("cost %s list price %v, offers %s", o.Model, o.List, want)
		}
		if o.Model == "spot" && o.Zone != zone {
			t.Errorf("cost spot zone %q, offers %q", o.Zone, zone)
		}
	}
	if seen != 2 {
		t.Fatalf("cost gave %d of the on-demand and spot options, want 2", seen)
	}

	out, errOut, code = run(t, "spot", "--offering", "aws/p4d.24xlarge/us-east-1", "--work", "24h", "--policy", "on-demand", "--runs", "10", "-o", "json")
	if code != 0 {
		t.Fatalf("spot: exit %d: %s", code, errOut)
	}
	var sim struct {
		Inputs struct {
			OD   json.Number `json:"od_price"`
			Spot json.Number `json:"spot_price"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	if !sameNumber(sim.Inputs.OD, od) || !sameNumber(sim.Inputs.Spot, sp) {
		t.Errorf("spot uses on-demand %s and spot %s; offers %s and %s", sim.Inputs.OD, sim.Inputs.Spot, od, sp)
	}

	out, errOut, code = run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:8", "--for", "3d", "--provider", "aws", "--region", "us-east-1", "--limit", "0", "-o", "json")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errOut)
	}
	var adv struct {
		Plans []struct {
			InstanceType string       `json:"instance_type"`
			Model        string       `json:"pricing_model"`
			Price        *json.Number `json:"price_per_hour"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	seen = 0
	for _, p := range adv.Plans {
		want := map[string]json.Number{"on-demand": od, "spot": sp}[p.Model]
		if p.InstanceType != "p4d.24xlarge" || want == "" {
			continue
		}
		seen++
		if p.Price == nil || !sameNumber(*p.Price, want) {
			t.Errorf("advise %s plan at %v per hour, offers %s", p.Model, p.Price, want)
		}
	}
	if seen == 0 {
		t.Error("advise gave no on-demand or spot plan on p4d.24xlarge")
	}
}

func sameNumber(a, b json.Number) bool {
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	return err1 == nil && err2 == nil && x == y
}

// catalog info warns when the built-in exchange rate is old, and not once
// the user gives today's rate.
func TestCatalogInfoFXWarning(t *testing.T) {
	out, _, code := run(t, "catalog", "info")
	if code != 0 || !strings.Contains(out, "WARNING: The built-in exchange rate is from 2024-12-11, 719 days ago") {
		t.Errorf("catalog info (exit %d) has no FX age warning:\n%s", code, out)
	}
	out, _, _ = run(t, "catalog", "info", "--fx", "CNY=0.14", "--wide")
	if strings.Contains(out, "WARNING: The built-in exchange rate") {
		t.Errorf("catalog info --fx still warns about the rate:\n%s", out)
	}
	if !strings.Contains(out, "WARNING: 28 prices or spot bands come from karpenter-aws-cn@2024-11-06") {
		t.Errorf("catalog info does not warn about the 2024 AWS China prices:\n%s", out)
	}
	for _, want := range []string{"Partly priced (offerings with an on-demand price): alibaba 655 of 677, tencent 171 of 175",
		"Commitment prices: gcp (30 prices", "tencent (150 prices",
		"sold but not priced (cost lists them as unknown): aws (Reserved Instances, Savings Plans), azure (",
		"tencent (预留实例 (reserved instances))", "Capacity Block prices (GPUs reserved for a job's days, paid up front): aws (24 prices"} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog info coverage lacks %q", want)
		}
	}
}

// Bad input a user types, found by trying the README as a new user: each
// names the flag, the value and what is allowed (exit 2).
func TestUserTrialMessages(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"offers", "--gpu", "A100:8", "--currency", "CNY", "--fx", "CNY=7.18"}, `--fx "CNY=7.18": 7.18 USD per CNY is 51.6× the built-in`},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100x4", "--for", "7d"}, `--gpu: unknown GPU "A100x4"`},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "1000y"}, `"1000y" for "--for" flag: duration "1000y" is too long: at most 100y`},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--budget", "60k"}, `no k or M suffixes`},
		{[]string{"offers", "--max-price", "1e20"}, `want a price per hour from 0 to 100,000`},
		{[]string{"spot", "--work", "10h", "--band", "5-10%", "--spot-price", "5", "--od-price", "3.06"}, `--spot-price 5 is above --od-price 3.06`},
		{[]string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--fo", "7d"}, `unknown flag: --fo; did you mean --for`},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
