package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

func TestLoadExampleSpec(t *testing.T) {
	s, err := LoadSpec("../../examples/usage.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u := s.Usage
	if s.Offering != "gcp/a2-highgpu-8g/us-central1" || u.HoursPerMonth != 420 || math.Abs(u.HorizonMonths-36) > 1e-9 || !u.DiscountRate.Equal(dec("0.08")) {
		t.Errorf("spec = %+v", s)
	}
	// The credit and the voucher are the article's examples (AWS Activate,
	// Alibaba's voucher), for other providers than the file's GCP offering:
	// no unsourced offer is presented as a GCP one.
	if u.Egress["cross-zone"] != 2000 || len(u.Credits) != 1 || u.Credits[0].Currency != money.USD || u.Credits[0].ExpiresMonths != 0 ||
		!u.Credits[0].Amount.Equal(dec("1000")) || len(u.Credits[0].Providers) != 1 || u.Credits[0].Providers[0] != "aws" {
		t.Errorf("egress/credits = %v %+v", u.Egress, u.Credits)
	}
	if len(u.Promotions) != 1 || u.Promotions[0].Kind != PromoVoucher || !u.Promotions[0].Amount.Equal(dec("300")) ||
		len(u.Promotions[0].Providers) != 1 || u.Promotions[0].Providers[0] != "alibaba" || len(u.Storage) != 1 {
		t.Errorf("promotions/storage = %+v %+v", u.Promotions, u.Storage)
	}
}

func TestSpecErrorsNameTheLine(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"hours":      {"gpu: A100\nhours_per_month: 800\n", `u.yaml:2: field hours_per_month: value 800: want 1 minute (0.0167 h) to 730 h`},
		"duration":   {"gpu: A100\nduration: soon\n", "u.yaml:2: field duration"},
		"unknown":    {"gpu: A100\nbudget: 5\n", "u.yaml:2: field budget: unknown field"},
		"egress":     {"gpu: A100\negress: {moon: 5}\n", "u.yaml:2: field moon: unknown field in egress"},
		"credit":     {"gpu: A100\ncredits:\n  - {amount: 10}\n", "u.yaml:3: field credits: needs a positive amount and its currency"},
		"credit cur": {"gpu: A100\ncredits:\n  - {amount: 10, currency: DOLLARS}\n", "u.yaml:3: field credits.currency"},
		"promo":      {"gpu: A100\npromotions:\n  - {kind: free-lunch}\n", `field promotions.kind: value "free-lunch"`},
		"student":    {"gpu: A100\npromotions:\n  - {kind: student-price, price_per_hour: 0.5}\n", "a student price needs"},
		"storage":    {"gpu: A100\nstorage:\n  - {kind: object, gb_month: 100}\n", "needs kind and price_per_gb_month"},
		"job":        {"gpu: A100\nduration: 1y\nhorizon: 1mo\n", "the job needs 8760 h"},
		"license":    {"gpu: A100\nlicense: beos\n", `field license: value "beos"`},
		"rate":       {"gpu: A100\ndiscount_rate: 300%\n", "field discount_rate"},
	} {
		_, err := ParseSpec("u.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add("gpu: A100:4\nduration: 7d\negress: {internet: 100}\ncredits:\n  - {amount: 10, currency: USD, expires: 1mo}\n")
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec("f.yaml", []byte(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		u, err := spec.Usage.Resolved()
		if err != nil {
			t.Fatalf("a parsed spec fails validation: %v", err)
		}
		if u.HoursPerMonth > catalog.HoursPerMonth {
			t.Fatal("more hours than the month has")
		}
	})
}

// TestSpecSpotOutage: spot.outage reads as hours, like the other spot
// durations, and a merge takes the flag's value over the file's.
func TestSpecSpotOutage(t *testing.T) {
	spec, err := ParseSpec("u.yaml", []byte("gpu: A100\nduration: 5d\nspot: {outage: 90m, restart: 5m}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Usage.Spot.OutageHours != 1.5 || spec.Usage.Spot.RestartHours != 5.0/60 {
		t.Errorf("spot %+v, want outage 1.5 h and restart 5 min", spec.Usage.Spot)
	}
	var over Usage
	over.Spot.OutageHours = 4
	if got := spec.Usage.Merge(over, FieldOutage).Spot.OutageHours; got != 4 {
		t.Errorf("merged outage %g h, want the flag's 4 h", got)
	}
}
