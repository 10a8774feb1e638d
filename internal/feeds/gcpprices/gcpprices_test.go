package gcpprices

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestParseShared(t *testing.T) {
	f := shareddata.Open(t, "price-feeds", "gcp-cyclenerd-pricing-gpu-excerpt.json")
	ex, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Machines) != 5 {
		t.Fatalf("%d machines, want 5", len(ex.Machines))
	}
	var a2 *Machine
	for i := range ex.Machines {
		if ex.Machines[i].Type == "a2-highgpu-8g" {
			a2 = &ex.Machines[i]
		}
	}
	if a2 == nil || a2.GPUName != "a100" || a2.GPUCount != 8 || a2.VCPUs != 96 || a2.RAMGiB != 680 {
		t.Fatalf("a2-highgpu-8g = %+v", a2)
	}
	for _, r := range a2.Regions {
		if r.Region != "us-central1" {
			continue
		}
		if !r.Hour.Decimal.Equal(decimal.RequireFromString("29.38708")) || !r.Spot.Decimal.Equal(decimal.RequireFromString("15.42416")) {
			t.Errorf("us-central1 = %s / %s, want 29.38708 / 15.42416", r.Hour.Decimal, r.Spot.Decimal)
		}
		// Independent check: the machine is the sum of its SKUs (GCP billing catalog,
		// shared/data/price-feeds/gcp-catalog-skus.json): 8 GPUs + 96 vCPU + 680 GiB.
		sum := decimal.RequireFromString("2.933908").Mul(decimal.NewFromInt(8)).
			Add(decimal.RequireFromString("0.031611").Mul(decimal.NewFromInt(96))).
			Add(decimal.RequireFromString("0.004237").Mul(decimal.NewFromInt(680)))
		if d := sum.Sub(r.Hour.Decimal).Abs(); d.GreaterThan(decimal.RequireFromString("0.001")) {
			t.Errorf("SKU sum %s differs from the hourly price %s by %s", sum, r.Hour.Decimal, d)
		}
		if !r.Month1y.Valid || !r.Month3y.Valid {
			t.Error("1y/3y commitment prices missing")
		}
	}
}

func TestParseErrors(t *testing.T) {
	for name, in := range map[string]string{
		"not json":     "{",
		"two gpus":     `{"instance":{"x":{"a100":1,"l4":1,"cost":{}}}}`,
		"bad cost":     `{"instance":{"x":{"a100":1,"cost":3}}}`,
		"negative":     `{"instance":{"x":{"a100":1,"cost":{"r":{"hour":-1}}}}}`,
		"string count": `{"instance":{"x":{"a100":"eight","cost":{}}}}`,
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"about":{"generated":"x"},"instance":{"a2-highgpu-8g":{"a100":8,"cpu":96,"ram":680,"cost":{"us-central1":{"hour":29.38708,"hour_spot":15.42416}}}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		ex, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range ex.Machines {
			for _, r := range m.Regions {
				if r.Hour.Valid && r.Hour.Decimal.IsNegative() {
					t.Fatal("negative price accepted")
				}
			}
		}
	})
}
