package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// The README's advise commands fit a 120-column terminal; --wide keeps the
// long lines whole.
func TestAdviseFitsTerminal(t *testing.T) {
	cmds := [][]string{
		{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d"},
		{"advise", "--scenario", "llm-pretraining", "--work", "20000gpu-h@A100", "--deadline", "30d", "--budget", "60000USD"},
		{"advise", "--scenario", "inference-online", "--hours-per-month", "730", "--china", "--currency", "CNY"},
		{"advise", "--scenario", "llm-finetuning", "--pattern", "bursty", "--peak", "16", "--base", "2", "--credits", "1000USD@aws"},
	}
	for _, args := range cmds {
		out, errOut, code := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args[1:], code, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > 120 {
				t.Errorf("%v: a line of %d columns: %s", args[1:], n, l)
			}
		}
	}
	out, _, _ := run(t, append(cmds[0], "--wide")...)
	long := false
	for _, l := range strings.Split(out, "\n") {
		long = long || utf8.RuneCountInString(l) > 120
	}
	if !long {
		t.Error("--wide: no line over 120 columns; the long form should not wrap")
	}
}

// An impossible deadline names the constraint and the margin in the table
// output: 5000 H100 GPU-hours in 1 h cannot be done on 64 instances, and the
// as-asked rows are marked.
func TestAdviseImpossibleDeadlineTable(t *testing.T) {
	out, errOut, code := run(t, "advise", "--scenario", "llm-finetuning", "--work", "5000gpu-h@H100", "--deadline", "1h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	flat := strings.Join(strings.Fields(out), " ") // undo the wrapping
	for _, want := range []string{"Nothing meets the constraints: time: the fastest plan", "h past the 1 h deadline", "violates: takes"} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "constraints: .") {
		t.Errorf("an empty violation:\n%s", out)
	}
	// Where nothing has a price, the answer points at --prices: the advise
	// package's TestWhyNothingFits (every region of the catalog has prices
	// since Alibaba's and Tencent's tables, so no flags reach it here).
	out, _, _ = run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "-o", "json")
	if !strings.Contains(out, `"as_asked": true`) {
		t.Error(`JSON: no plan with "as_asked": true`)
	}
}

// Every as-asked plan takes exactly --for, whichever variant of the named GPU
// it is, and is billed what `cost` bills for that offering and duration.
func TestAskTakesItsOwnTime(t *testing.T) {
	out, errOut, code := run(t, "advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--no-spot", "--limit", "0", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Plans []struct {
			Provider     string  `json:"provider"`
			InstanceType string  `json:"instance_type"`
			Region       string  `json:"region"`
			Model        string  `json:"pricing_model"`
			AsAsked      bool    `json:"as_asked"`
			Hours        float64 `json:"expected_hours"`
			Total        float64 `json:"total_cost"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range res.Plans {
		if !p.AsAsked || p.Model != "on-demand" {
			continue
		}
		n++
		if p.Hours != 168 {
			t.Errorf("%s/%s takes %v h, want 168 (--for 7d)", p.Provider, p.InstanceType, p.Hours)
		}
		ref := p.Provider + "/" + p.InstanceType
		if p.Region != "" {
			ref += "/" + p.Region
		}
		cout, cerr, ccode := run(t, "cost", "--offering", ref, "--for", "7d", "-o", "json")
		if ccode != 0 {
			t.Fatal(cerr)
		}
		var opts []struct {
			Model string  `json:"pricing_model"`
			Total float64 `json:"total"`
		}
		if err := json.Unmarshal([]byte(cout), &opts); err != nil {
			t.Fatal(err)
		}
		for _, o := range opts {
			if o.Model == "on-demand" && math.Abs(o.Total-p.Total) > 0.005 {
				t.Errorf("%s: advise %.2f, cost %.2f for the same 168 h", ref, p.Total, o.Total)
			}
		}
	}
	if n == 0 {
		t.Fatal("no as-asked on-demand plan")
	}
}
