package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --spot-regions 1 is today's advise, byte for byte: the golden files of
// the default run, in the table and in JSON.
func TestAdviseSpotRegionsOneIsToday(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"advise-article.txt", []string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d"}},
		{"advise-lora-70b.txt", []string{"advise", "--scenario", "llm-finetuning", "--model", "llama-3-70b", "--method", "lora", "--tokens", "2e9", "--deadline", "10d", "--budget", "20000USD", "--limit", "3"}},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "golden", tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		got, errOut, code := run(t, append(tc.args, "--spot-regions", "1")...)
		if code != 0 || got != string(want) {
			t.Errorf("%s with --spot-regions 1: exit %d %s, output differs from the golden file:\n%s", tc.golden, code, errOut, got)
		}
		if tc.golden != "advise-article.txt" {
			continue // one JSON comparison is enough
		}
		def, _, _ := run(t, append(tc.args, "-o", "json")...)
		one, _, _ := run(t, append(tc.args, "-o", "json", "--spot-regions", "1")...)
		if def != one || strings.Contains(one, "spot_regions") {
			t.Errorf("%s: JSON with --spot-regions 1 differs from the default (or names regions)", tc.golden)
		}
	}
}

// Bad --spot-regions and --checkpoint-gb: exit 2, naming the flag, the
// value and what is allowed.
func TestAdviseSpotRegionsBadInput(t *testing.T) {
	base := []string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--spot-regions", "0"}, `"0" for "--spot-regions" flag: want 1 to 10`},
		{[]string{"--spot-regions", "11"}, `"11" for "--spot-regions" flag: want 1 to 10`},
		{[]string{"--spot-regions", "x"}, `"x" for "--spot-regions" flag: want a whole number from 1 to 10`},
		{[]string{"--spot-regions", "3", "--checkpoint-gb", "0"}, `"0" for "--checkpoint-gb" flag: want a number above 0 and at most 100000 GB`},
		{[]string{"--spot-regions", "3", "--checkpoint-gb", "-5"}, `"-5" for "--checkpoint-gb" flag`},
		{[]string{"--spot-regions", "3", "--checkpoint-gb", "1e6"}, `"1e6" for "--checkpoint-gb" flag: want a number above 0 and at most 100000 GB`},
		{[]string{"--checkpoint-gb", "50"}, "--checkpoint-gb 50: it sizes the moves of --spot-regions 2 or more"},
	} {
		_, errOut, code := run(t, append(base, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// --spot-regions 3 in JSON: a spot plan that fails over lists its regions,
// its own (the region column's) first; other plans list none.
func TestAdviseSpotRegionsJSON(t *testing.T) {
	out, errOut, code := run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--deadline", "9d", "--spot-regions", "3", "--limit", "3", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Plans []struct {
			Provider    string   `json:"provider"`
			Region      string   `json:"region"`
			Model       string   `json:"pricing_model"`
			Payment     string   `json:"payment"`
			SpotRegions []string `json:"spot_regions"`
			Floor       *float64 `json:"spot_floor_cost"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range res.Plans {
		if len(p.SpotRegions) == 0 {
			continue
		}
		n++
		// The hindsight optimum is the best spot plan's (the first).
		if p.Model != "spot" || p.Payment != "failover-deadline" || len(p.SpotRegions) != 3 || p.SpotRegions[0] != p.Region || (n == 1) != (p.Floor != nil) {
			t.Errorf("%s plan in %s: %s/%s, regions %v, floor %v; want spot/failover-deadline in 3 regions, its own first, a floor on the first only", p.Provider, p.Region, p.Model, p.Payment, p.SpotRegions, p.Floor)
		}
	}
	if n == 0 {
		t.Errorf("no plan fails over:\n%s", out)
	}
}
