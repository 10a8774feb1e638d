package pricefile

import (
	"os"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

func TestParseAndApply(t *testing.T) {
	f, err := Load("testdata/ok.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 4 || f.Entries[0].Currency != money.USD || f.Entries[0].AsOf != "2026-11-01" || f.Entries[2].Currency != money.CNY {
		t.Fatalf("entries = %+v", f.Entries)
	}
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The catalog's own GCP prices, before the 20% discount, for the hand calculation below.
	before := map[string]decimal.Decimal{}
	p4dZones := 0
	for i := range c.Offerings {
		if o := &c.Offerings[i]; o.Provider == "gcp" && o.OnDemand.Known {
			before[o.Key()] = o.OnDemand.Value
		} else if o.Provider == "aws" && o.InstanceType == "p4d.24xlarge" && o.Region == "us-east-1" {
			p4dZones++
		}
	}
	fx := money.DefaultFX().Clone()
	sum, err := Apply(c, fx, f)
	if err != nil {
		t.Fatal(err)
	}
	// The file's Tencent GN7.5XLARGE80 in ap-shanghai is a catalog offering
	// now (tencent-qcloud-gpu-prices@8ec07296): it overrides, adding nothing.
	if sum.Overridden != p4dZones+2 || sum.Discounted != len(before) || sum.Added != 0 || p4dZones < 2 {
		t.Errorf("summary = %+v, want %d overridden (p4d's us-east-1 zones, gn7i, GN7), %d discounted, 0 added", sum, p4dZones+2, len(before))
	}
	found := 0
	for i := range c.Offerings {
		o := &c.Offerings[i]
		switch {
		case o.Provider == "aws" && o.InstanceType == "p4d.24xlarge" && o.Region == "us-east-1":
			found++
			if !o.OnDemand.Value.Equal(decimal.RequireFromString("15.37")) || !o.Spot.Value.Equal(decimal.RequireFromString("7.10")) || o.OnDemand.Source != "user:ok.yaml" {
				t.Errorf("p4d %s: %s/%s from %s", o.Zone, o.OnDemand.Value, o.Spot.Value, o.OnDemand.Source)
			}
		case o.Provider == "gcp" && o.OnDemand.Known:
			// 20% off: 0.8 × the catalog price.
			if want := before[o.Key()].Mul(decimal.RequireFromString("0.8")); !o.OnDemand.Value.Equal(want) {
				t.Errorf("%s: %s, want %s", o.Key(), o.OnDemand.Value, want)
			}
		case o.Provider == "alibaba" && o.InstanceType == "ecs.gn7i-c8g1.2xlarge" && o.Region == "cn-hangzhou":
			if !o.OnDemand.Known || !o.OnDemand.Value.Equal(decimal.RequireFromString("9.80")) || o.OnDemand.Currency != money.CNY || o.OnDemand.Source != "user:ok.yaml" {
				t.Errorf("gn7i: %+v", o.OnDemand)
			}
		case o.Provider == "alibaba" && o.InstanceType == "ecs.gn7i-c8g1.2xlarge":
			if o.OnDemand.Source != "karpenter-alibaba@5d2e0774" { // the file names 华东1 only
				t.Errorf("gn7i in %s: %+v, want the catalog's price", o.Region, o.OnDemand)
			}
		case o.Provider == "tencent" && o.InstanceType == "GN7.5XLARGE80" && o.Region == "ap-shanghai":
			if o.GPU.Name != "T4" || !o.China || o.VCPUs != 20 || !o.OnDemand.Value.Equal(decimal.RequireFromString("8.5")) || o.OnDemand.Source != "user:ok.yaml" {
				t.Errorf("overridden offering = %+v", o)
			}
		}
	}
	if found == 0 {
		t.Error("p4d us-east-1 not found")
	}
	got, _ := fx.Convert(decimal.NewFromInt(100), money.CNY, money.USD)
	if !got.Round(8).Equal(decimal.NewFromInt(14)) {
		t.Errorf("file fx: 100 CNY = %s USD, want 14", got)
	}
	// The default catalog is untouched by Apply on a copy.
	d, _ := catalog.Default()
	for i := range d.Offerings {
		if o := &d.Offerings[i]; o.OnDemand.Source == "user:ok.yaml" {
			t.Fatal("Apply leaked into the default catalog")
		}
	}
}

func TestErrorsNameFileLineFieldValue(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"negative price":   {"prices:\n  - provider: aws\n    instance_type: p4d.24xlarge\n    price: -3\n", "x.yaml:4: field price: value -3 is negative"},
		"bad number":       {"prices:\n  - provider: aws\n    instance_type: x\n    price: cheap\n", `field price: value "cheap" is not a number`},
		"bad currency":     {"prices:\n  - provider: aws\n    instance_type: x\n    price: 1\n    currency: DOLLAR\n", "x.yaml:5: field currency"},
		"unknown field":    {"prices:\n  - provider: aws\n    instance: x\n    price: 1\n", "x.yaml:3: field instance: unknown field"},
		"bad yaml":         {"prices:\n  - provider: aws\n   price: [\n", "x.yaml:"},
		"no provider":      {"prices:\n  - instance_type: x\n    price: 1\n", "field provider: missing"},
		"no price":         {"prices:\n  - provider: aws\n    instance_type: x\n", "field price: missing"},
		"discount too big": {"prices:\n  - provider: aws\n    discount: 150%\n", "field discount: value \"150%\" is outside"},
		"bad date":         {"as_of: yesterday\nprices: []\n", "x.yaml:1: field as_of"},
		"empty":            {"", "the file is empty"},
		"no prices":        {"currency: USD\n", "field prices: missing"},
		"fx zero":          {"fx:\n  CNY: 0\nprices: []\n", "field fx.CNY"},
	} {
		_, err := Parse("x.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}

func TestApplyErrors(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"unknown provider": {"prices:\n  - provider: oracle\n    instance_type: x\n    price: 1\n", `x.yaml:2: field provider: "oracle" is not a known provider; known: aws`},
		"new needs gpu":    {"prices:\n  - provider: aws\n    instance_type: nope.xlarge\n    region: us-east-1\n    price: 1\n", "field gpu: no catalog offering is aws instance_type nope.xlarge"},
		"ambiguous gpu":    {"prices:\n  - provider: aws\n    instance_type: n\n    region: us-east-1\n    gpu: A100\n    gpu_count: 1\n    price: 1\n", "names several GPUs"},
		"discount nothing": {"prices:\n  - provider: aws\n    instance_type: nope\n    discount: 10%\n", "the discount matches no catalog offering"},
	} {
		f, err := Parse("x.yaml", []byte(tc.in))
		if err != nil {
			t.Fatalf("%s: parse: %v", name, err)
		}
		c, _ := catalog.Default()
		_, err = Apply(c, money.DefaultFX().Clone(), f)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile("testdata/ok.yaml")
	f.Add(string(b))
	f.Add("prices:\n  - provider: aws\n    discount: 10%\n")
	f.Add("currency: CNY\nfx: {XYZ: 2}\nprices:\n  - {provider: aws, instance_type: x, price: 1e309, spot_price: 2, currency: XYZ}\n---\n")
	f.Add("commitments:\n  - {provider: aws, instance_type: x, region: r, model: reserved, term: 5y, payment: partial-upfront, upfront: 1, hourly: 0.5}\n")
	f.Fuzz(func(t *testing.T, s string) {
		pf, err := Parse("fuzz.yaml", []byte(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		// The most any hourly price may be: MaxHourlyUSD at the lowest fx rate a file may give.
		ceiling := decimal.NewFromInt(MaxHourlyUSD).Div(MinFXRate)
		for _, e := range pf.Entries {
			if e.Price.Valid && e.Price.Decimal.IsNegative() {
				t.Fatal("negative price accepted")
			}
			if e.Provider == "" {
				t.Fatal("entry without provider accepted")
			}
			for _, p := range []decimal.NullDecimal{e.Price, e.SpotPrice} {
				if e.Currency != "" && p.Valid && (!p.Decimal.IsPositive() || p.Decimal.GreaterThan(ceiling)) {
					t.Fatalf("price %s %s accepted", p.Decimal, e.Currency)
				}
			}
		}
		for _, r := range pf.FX {
			if r.USD.LessThan(MinFXRate) || r.USD.GreaterThan(MaxFXRate) {
				t.Fatalf("fx rate %s accepted", r.USD)
			}
		}
	})
}

func TestCommitments(t *testing.T) {
	f, err := Load("../../examples/prices-china.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := catalog.Default()
	sum, err := Apply(c, money.DefaultFX().Clone(), f)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Committed != 2 || sum.Overridden != 2 { // gn7i, and GN7.2XLARGE32 with hourly steps
		t.Fatalf("summary %+v", sum)
	}
	var got []catalog.Commitment
	for _, x := range c.Commitments {
		if x.Provider == "alibaba" {
			got = append(got, x)
		}
	}
	if len(got) != 2 || got[0].Region != "cn-hangzhou" || !got[0].Upfront.Equal(decimal.NewFromInt(48000)) || got[0].Currency != money.CNY || got[0].Source != "user:prices-china.yaml" {
		t.Errorf("commitments = %+v", got)
	}
	for name, tc := range map[string]struct{ in, want string }{
		"bad model":   {"commitments:\n  - {provider: aws, instance_type: x, region: r, model: lease, term: 1y, payment: monthly, monthly: 1}\n", `field model: value "lease" is not one of reserved`},
		"bad term":    {"commitments:\n  - {provider: aws, instance_type: x, region: r, model: reserved, term: 2 years, payment: monthly, monthly: 1}\n", `field term: value "2 years"`},
		"no amount":   {"commitments:\n  - {provider: aws, instance_type: x, region: r, model: reserved, term: 1y, payment: monthly}\n", "field hourly: missing"},
		"no payment":  {"commitments:\n  - {provider: aws, instance_type: x, region: r, model: reserved, term: 1y, monthly: 1}\n", "field payment: missing"},
		"steps start": {"prices:\n  - {provider: tencent, instance_type: x, hourly_steps: [{from_hours: 5, price: 1}]}\n", "the first step must start at 0 hours"},
		"steps order": {"prices:\n  - {provider: tencent, instance_type: x, hourly_steps: [{from_hours: 0, price: 2}, {from_hours: 0, price: 1}]}\n", "must be above the previous step"},
		"steps price": {"prices:\n  - {provider: tencent, instance_type: x, price: 3, hourly_steps: [{from_hours: 0, price: 2}]}\n", "differs from the first of hourly_steps"},
		"neg upfront": {"commitments:\n  - {provider: aws, instance_type: x, region: r, model: reserved, term: 1y, payment: all-upfront, upfront: -5}\n", "field upfront: value -5 is negative"},
	} {
		if _, err := Parse("x.yaml", []byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	f, _ = Parse("x.yaml", []byte("commitments:\n  - {provider: aws, instance_type: nope, region: us-east-1, model: reserved, term: 1y, payment: monthly, monthly: 1}\n"))
	if _, err := Apply(c, money.DefaultFX().Clone(), f); err == nil || !strings.Contains(err.Error(), "x.yaml:2: field instance_type: no offering is aws instance_type nope") {
		t.Errorf("commitment for a missing offering: %v", err)
	}
}
