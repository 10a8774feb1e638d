package pricefile

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// validate does what `gpuscout catalog validate` does: parse, then apply to a
// copy of the default catalog.
func validate(in string) error {
	f, err := Parse("x.yaml", []byte(in))
	if err != nil {
		return err
	}
	c, err := catalog.Default()
	if err != nil {
		return err
	}
	_, err = Apply(c, money.DefaultFX().Clone(), f)
	return err
}

const p4d = "{provider: aws, instance_type: p4d.24xlarge, region: us-east-1"

// TestRejects covers the files `catalog validate` used to pass (issue 8).
func TestRejects(t *testing.T) {
	commit := func(rest string) string {
		return "commitments:\n  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved, term: 1y, " + rest + "}\n"
	}
	for name, tc := range map[string]struct{ in, want string }{
		"file currency":       {"currency: XYZ\nprices:\n  - " + p4d + ", price: 20}\n", `x.yaml:1: field currency: value "XYZ" is not a currency gpuscout can convert; allowed: CNY, EUR, USD, or one given a rate under fx:`},
		"entry currency":      {"prices:\n  - " + p4d + ",\n     price: 20, currency: XYZ}\n", `x.yaml:3: field currency: value "XYZ" is not a currency`},
		"commitment currency": {commit("payment: all-upfront, upfront: 100, currency: XYZ"), `x.yaml:2: field currency: value "XYZ" is not a currency`},
		"duplicate entry":     {"prices:\n  - " + p4d + ", price: 20}\n  - {provider: gcp, discount: 10%}\n  - " + p4d + ", spot_price: 7}\n", "x.yaml:4: the same offering as the entry at line 2 (aws/p4d.24xlarge/us-east-1)"},
		"duplicate by alias":  {"prices:\n  - {provider: aliyun, instance_type: ecs.gn7i-c8g1.2xlarge, region: 华东1, price: 9}\n  - {provider: alibaba, instance_type: ecs.gn7i-c8g1.2xlarge, region: cn-hangzhou, price: 9}\n", "x.yaml:3: the same offering as the entry at line 2 (alibaba/ecs.gn7i-c8g1.2xlarge/cn-hangzhou)"},
		"duplicate discount":  {"prices:\n  - {provider: gcp, discount: 10%}\n  - {provider: gcp, discount: 20%}\n", "x.yaml:3: the same offering as the entry at line 2 (gcp, every instance type)"},
		"duplicate commitment": {"commitments:\n  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved, term: 1y, payment: all-upfront, upfront: 100}\n" +
			"  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved, term: 1y, payment: all-upfront, upfront: 90}\n", "x.yaml:3: the same commitment as the one at line 2"},
		"second document":            {"prices:\n  - " + p4d + ", price: 20}\n---\nprices:\n  - " + p4d + ", price: 30}\n", "x.yaml:3: a second YAML document starts here"},
		"empty second document":      {"prices:\n  - " + p4d + ", price: 20}\n---\n", "x.yaml:3: a second YAML document starts here"},
		"no-upfront with upfront":    {commit("payment: no-upfront, upfront: 100, hourly: 1"), `x.yaml:2: field upfront: value 100 with payment no-upfront; want no upfront amount`},
		"monthly with upfront":       {commit("payment: monthly, upfront: 100, monthly: 1"), `x.yaml:2: field upfront: value 100 with payment monthly`},
		"no-upfront without rate":    {commit("payment: no-upfront, upfront: 0"), `field hourly: missing; payment no-upfront needs hourly or monthly`},
		"all-upfront with hourly":    {commit("payment: all-upfront, upfront: 100, hourly: 1"), `x.yaml:2: field hourly: value 1 with payment all-upfront; want no recurring amount`},
		"all-upfront monthly":        {commit("payment: all-upfront, upfront: 100, monthly: 1"), `field monthly: value 1 with payment all-upfront`},
		"all-upfront no upfront":     {commit("payment: all-upfront, hourly: 0"), `field upfront: missing; payment all-upfront needs upfront`},
		"partial no recurring":       {commit("payment: partial-upfront, upfront: 100"), `field hourly: missing; payment partial-upfront needs upfront and hourly or monthly`},
		"partial no upfront":         {commit("payment: partial-upfront, hourly: 1"), `field upfront: missing; payment partial-upfront needs upfront and hourly or monthly`},
		"spot above entry price":     {"prices:\n  - " + p4d + ",\n     price: 20, spot_price: 25}\n", `x.yaml:3: field spot_price: value 25 USD is above the on-demand price 20 USD of the same entry`},
		"spot above catalog":         {"prices:\n  - " + p4d + ", spot_price: 25}\n", `x.yaml:2: field spot_price: value 25 USD is above the on-demand price 21.957642 USD of aws/p4d.24xlarge/us-east-1/use1-az1 (skypilot-v9@2c3d7ea7)`},
		"price below catalog spot":   {"prices:\n  - " + p4d + ", zone: use1-az4, price: 12}\n", `x.yaml:2: field price: value 12 USD is below the spot price 13.9933 USD of aws/p4d.24xlarge/us-east-1/use1-az4 (skypilot-v9@2c3d7ea7)`},
		"spot above, other currency": {"prices:\n  - " + p4d + ", zone: use1-az1, spot_price: 200, currency: CNY}\n", `field spot_price: value 200 CNY is above the on-demand price 21.957642 USD`},
	} {
		err := validate(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", name, err, tc.want)
		}
	}
}

// TestAccepts: what the checks above must still let through.
func TestAccepts(t *testing.T) {
	for name, in := range map[string]string{
		"currency with file fx": "currency: XYZ\nfx:\n  XYZ: 2\nprices:\n  - " + p4d + ", price: 20}\n",
		"fx after prices":       "prices:\n  - " + p4d + ", price: 20, currency: XYZ}\nfx: {XYZ: 2}\n",
		"same type, two zones":  "prices:\n  - " + p4d + ", zone: use1-az1, price: 20}\n  - " + p4d + ", zone: use1-az2, price: 21}\n",
		"spot equal on-demand":  "prices:\n  - " + p4d + ", price: 20, spot_price: 20}\n",
		"spot below, CNY":       "prices:\n  - " + p4d + ", zone: use1-az1, spot_price: 50, currency: CNY}\n",
		"two terms":             "commitments:\n  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved, term: 1y, payment: all-upfront, upfront: 100}\n  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved, term: 3y, payment: all-upfront, upfront: 250}\n",
		"partial":               "commitments:\n  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved, term: 1y, payment: partial-upfront, upfront: 100, hourly: 5}\n",
		"no-upfront zero":       "commitments:\n  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved, term: 1y, payment: no-upfront, upfront: 0, hourly: 5}\n",
		"document end marker":   "prices:\n  - " + p4d + ", price: 20}\n...\n",
		"leading document mark": "---\nprices:\n  - " + p4d + ", price: 20}\n",
	} {
		if err := validate(in); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
