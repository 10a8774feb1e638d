package cli

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/cost"
)

// TestCostUsage is the table test of the one function that turns cost's
// flags (and usage file) into the usage to price.
func TestCostUsage(t *testing.T) {
	d := decimal.RequireFromString
	file := &cost.Spec{Usage: cost.Usage{Instances: 4, HoursPerMonth: 420, HorizonMonths: 36, DiscountRate: d("0.08"),
		Egress: map[string]float64{"internet": 1000}}}
	for _, tc := range []struct {
		name    string
		flags   cost.Usage
		horizon float64
		spec    *cost.Spec
		set     []string
		check   func(u cost.Usage) string
		err     string
	}{
		{name: "defaults", flags: cost.Usage{DurationHours: 168}, set: []string{"for"}, check: func(u cost.Usage) string {
			if u.Instances != 1 || u.HoursPerMonth != 730 || u.License != "linux" || u.HorizonMonths != 168.0/730 {
				return "want 1 instance, 730 h/month, linux, the job's horizon"
			}
			return ""
		}},
		{name: "file as is", spec: file, check: func(u cost.Usage) string {
			if u.Instances != 4 || u.HoursPerMonth != 420 || !u.DiscountRate.Equal(d("0.08")) {
				return "want the file's values"
			}
			return ""
		}},
		{name: "a set flag wins even at its zero value", spec: file, flags: cost.Usage{DiscountRate: d("0")}, set: []string{"discount-rate"},
			check: func(u cost.Usage) string {
				if !u.DiscountRate.IsZero() {
					return "want --discount-rate 0% over the file's 8%"
				}
				return ""
			}},
		{name: "an unset flag never wins", spec: file, flags: cost.Usage{Instances: 1, HoursPerMonth: 730}, check: func(u cost.Usage) string {
			if u.Instances != 4 || u.HoursPerMonth != 420 {
				return "flags not set must leave the file's values"
			}
			return ""
		}},
		{name: "--for replaces the file's steady load", spec: file, flags: cost.Usage{DurationHours: 100}, set: []string{"for"},
			check: func(u cost.Usage) string {
				if u.DurationHours != 100 || u.HoursPerMonth != 730 {
					return "want a 100 h job at 730 h/month"
				}
				return ""
			}},
		{name: "horizon", flags: cost.Usage{HoursPerMonth: 300}, horizon: 3 * 8760, set: []string{"hours-per-month", "horizon"},
			check: func(u cost.Usage) string {
				if u.HorizonMonths != 36 {
					return "want 36 months"
				}
				return ""
			}},
		{name: "egress merges by path", spec: file, flags: cost.Usage{Egress: map[string]float64{"cross-zone": 5}}, set: []string{"egress"},
			check: func(u cost.Usage) string {
				if u.Egress["internet"] != 1000 || u.Egress["cross-zone"] != 5 {
					return "want the file's internet and the flag's cross-zone"
				}
				return ""
			}},
		{name: "both loads", flags: cost.Usage{DurationHours: 1, HoursPerMonth: 5}, set: []string{"for", "hours-per-month"}, err: "give one"},
		{name: "domain validation", flags: cost.Usage{License: "beos"}, set: []string{"license"}, err: `license "beos"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := map[string]bool{}
			for _, s := range tc.set {
				set[s] = true
			}
			var before string
			if tc.spec != nil {
				before = strings.TrimSpace(strings.ReplaceAll(fmtUsage(tc.spec.Usage), " ", ""))
			}
			u, err := costUsage(tc.flags, tc.horizon, tc.spec, func(n string) bool { return set[n] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(u); msg != "" {
				t.Errorf("%s; got %+v", msg, u)
			}
			if tc.spec != nil && strings.TrimSpace(strings.ReplaceAll(fmtUsage(tc.spec.Usage), " ", "")) != before {
				t.Error("costUsage changed the usage file's values")
			}
		})
	}
}

func fmtUsage(u cost.Usage) string {
	return strings.Join([]string{decimal.NewFromInt(int64(u.Instances)).String(), decimal.NewFromFloat(u.HoursPerMonth).String(),
		u.DiscountRate.String(), decimal.NewFromFloat(u.Egress["internet"]).String(), decimal.NewFromFloat(u.Egress["cross-zone"]).String()}, " ")
}
