package feeds

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestCiteByDate: a file's source id gets each record's own date; other
// sources and unknown prices stay as they were; Dates lists the dates.
func TestCiteByDate(t *testing.T) {
	one := decimal.NewFromInt(1)
	res := &Result{
		Offerings: []Offering{
			{InstanceType: "a", OnDemand: Known(one, "USD", "file:f.json", "2021-02-08"), Spot: Known(one, "USD", "file:f.json", "2021-02-09"),
				Machine: Machine{SpecSource: "file:f.json"}},
			{InstanceType: "b", OnDemand: Unknown("USD"), Machine: Machine{SpecSource: "file:f.json"}},
			{InstanceType: "c", OnDemand: Known(one, "USD", "other", "2020-01-01")},
		},
		Commitments: []Commitment{{Source: "file:f.json", AsOf: "2021-02-07"}},
	}
	res.CiteByDate("file:f.json")
	got := []string{res.Offerings[0].OnDemand.Source, res.Offerings[0].Spot.Source, res.Offerings[0].SpecSource,
		res.Offerings[1].SpecSource, res.Offerings[2].OnDemand.Source, res.Commitments[0].Source}
	want := []string{"file:f.json@2021-02-08", "file:f.json@2021-02-09", "file:f.json@2021-02-08",
		"file:f.json@2021-02-09", "other", "file:f.json@2021-02-07"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("sources %q, want %q", got, want)
	}
	if d := strings.Join(res.Dates(), " "); d != "2020-01-01 2021-02-07 2021-02-08 2021-02-09" {
		t.Errorf("Dates() = %s", d)
	}
}
