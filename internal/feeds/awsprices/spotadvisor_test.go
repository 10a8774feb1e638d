package awsprices

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestSpotAdvisorShared(t *testing.T) {
	d, err := ParseSpotAdvisor(shareddata.Open(t, "price-feeds", "aws-spot-advisor-excerpt.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d.GlobalRate != "<10%" || len(d.Ranges) != 5 {
		t.Errorf("global %q, %d ranges", d.GlobalRate, len(d.Ranges))
	}
	// Source rows (spot_advisor.us-east-1.Linux): p4d.24xlarge {s: 67, r: 2}, p4de.24xlarge {s: 65, r: 0}, p5.48xlarge {s: 52, r: 4}.
	want := map[string]struct {
		s      int
		label  string
		lo, hi float64
	}{"p4d.24xlarge": {67, "10-15%", 10, 15}, "p4de.24xlarge": {65, "<5%", 0, 5}, "p5.48xlarge": {52, ">20%", 20, 100}}
	found := 0
	for _, e := range d.Entries {
		if e.Region != "us-east-1" || e.OS != "Linux" {
			continue
		}
		if w, ok := want[e.InstanceType]; ok {
			found++
			if e.SavingsPct != w.s || e.Range.Label != w.label || e.Low != w.lo || e.High != w.hi {
				t.Errorf("%s = %+v, want %+v", e.InstanceType, e, w)
			}
		}
	}
	if found != 3 {
		t.Errorf("found %d of the 3 rows", found)
	}
}

func TestParseBand(t *testing.T) {
	for in, want := range map[string][2]float64{"<5%": {0, 5}, "5-10%": {5, 10}, "10-15": {10, 15}, ">20%": {20, 100}, " 15-20% ": {15, 20}} {
		lo, hi, err := ParseBand(in)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("ParseBand(%q) = %v %v %v", in, lo, hi, err)
		}
	}
	for _, bad := range []string{"", "lots", "10-5%", "<0%", ">100%", "5-", "-5", "NaN-5%", "<NaN", ">NaN", "0-Inf"} {
		if _, _, err := ParseBand(bad); err == nil {
			t.Errorf("ParseBand(%q) accepted", bad)
		}
	}
}

func TestSpotAdvisorErrors(t *testing.T) {
	for name, in := range map[string]string{
		"not json":    "{",
		"no ranges":   `{"ranges": [], "spot_advisor": {}}`,
		"bad index":   `{"ranges": [{"index": 0, "label": "<5%", "max": 5}], "spot_advisor": {"r": {"Linux": {"x": {"s": 1, "r": 9}}}}}`,
		"missing s":   `{"ranges": [{"index": 0, "label": "<5%", "max": 5}], "spot_advisor": {"r": {"Linux": {"x": {"r": 0}}}}}`,
		"savings 150": `{"ranges": [{"index": 0, "label": "<5%", "max": 5}], "spot_advisor": {"r": {"Linux": {"x": {"s": 150, "r": 0}}}}}`,
		"savings -1":  `{"ranges": [{"index": 0, "label": "<5%", "max": 5}], "spot_advisor": {"r": {"Linux": {"x": {"s": -1, "r": 0}}}}}`,
		"bad label":   `{"ranges": [{"index": 0, "label": "often", "max": 5}], "spot_advisor": {"r": {"Linux": {"x": {"s": 1, "r": 0}}}}}`,
	} {
		if _, err := ParseSpotAdvisor(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParseBand(f *testing.F) {
	for _, s := range []string{"<5%", "5-10%", ">20%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := ParseBand(s)
		if err == nil && !(lo >= 0 && lo < hi && hi <= 100) {
			t.Fatalf("ParseBand(%q) = %v..%v", s, lo, hi)
		}
	})
}

// FuzzSpotAdvisor: any input is parsed or rejected, never a panic; what is
// accepted has bands in range, savings in 0..100, and parses the same twice.
func FuzzSpotAdvisor(f *testing.F) {
	f.Add(`{"ranges": [{"index": 0, "label": "<5%", "max": 5}], "spot_advisor": {"us-east-1": {"Linux": {"p5.48xlarge": {"s": 62, "r": 0}}}}}`)
	f.Add(`{"ranges": [{"index": 4, "label": ">20%", "max": 100}], "spot_advisor": {}}`)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseSpotAdvisor(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, e := range d.Entries {
			if !(e.Low >= 0 && e.Low < e.High && e.High <= 100) || e.SavingsPct < 0 || e.SavingsPct > 100 {
				t.Fatalf("entry %+v out of range", e)
			}
		}
		again, err := ParseSpotAdvisor(strings.NewReader(s))
		if err != nil || len(again.Entries) != len(d.Entries) {
			t.Fatalf("second parse differs: %v", err)
		}
		for i := range d.Entries {
			if d.Entries[i] != again.Entries[i] {
				t.Fatalf("entry %d: %+v then %+v", i, d.Entries[i], again.Entries[i])
			}
		}
	})
}
