package awspricelist

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func TestGetProductsM5Large(t *testing.T) {
	f := shareddata.Open(t, "price-feeds", "aws-pricing-getproducts-m5large-us-east-1.json")
	ps, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].InstanceType != "m5.large" || !ps[0].OnDemand.Decimal.Equal(decimal.RequireFromString("0.096")) {
		t.Fatalf("products = %+v", ps)
	}
	if n := len(ps[0].Reserved); n != 12 {
		t.Fatalf("%d reservations, want 12 (1y/3y × standard/convertible × 3 payments)", n)
	}
	// The record's 1y standard all-upfront: an upfront fee and a zero hourly fee.
	for _, r := range ps[0].Reserved {
		if r.OfferTermCode == "6QCMYABX3D" {
			if r.Term() != "1y" || r.Payment() != "all-upfront" || r.OfferingClass != "standard" || !r.Hourly.IsZero() || !r.Upfront.IsPositive() {
				t.Errorf("6QCMYABX3D = %+v", r)
			}
		}
	}
}

func TestBulkOfferFile(t *testing.T) {
	f := shareddata.Open(t, "price-feeds", "aws-offer-ec2-us-west-2-excerpt.json")
	ps, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Fatal("no products")
	}
	for _, p := range ps {
		if p.InstanceType == "" || p.SKU == "" {
			t.Errorf("product without type or SKU: %+v", p)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for name, in := range map[string]string{
		"not json":  "[",
		"neither":   `{"x":1}`,
		"bad price": `{"product":{"sku":"A","attributes":{"instanceType":"m"}},"terms":{"OnDemand":{"A.X":{"sku":"A","priceDimensions":{"d":{"unit":"Hrs","pricePerUnit":{"USD":"abc"}}}}}}}`,
		"bad unit":  `{"product":{"sku":"A","attributes":{"instanceType":"m"}},"terms":{"OnDemand":{"A.X":{"sku":"A","priceDimensions":{"d":{"unit":"GB","pricePerUnit":{"USD":"1"}}}}}}}`,
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"product":{"sku":"A","attributes":{"instanceType":"m"}},"terms":{"OnDemand":{"A.X":{"sku":"A","priceDimensions":{"d":{"unit":"Hrs","pricePerUnit":{"USD":"0.1"}}}}}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.OnDemand.Valid && p.OnDemand.Decimal.IsNegative() {
				t.Fatal("negative price")
			}
		}
	})
}
