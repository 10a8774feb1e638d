package pricefile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
		"1mo subscription twice": {"commitments:\n  - {provider: alibaba, instance_type: ecs.gn7i-c8g1.2xlarge, region: 华东1, model: subscription, term: 1mo, payment: all-upfront, upfront: 4800}\n" +
			"  - {provider: alibaba, instance_type: ecs.gn7i-c8g1.2xlarge, region: cn-hangzhou, model: subscription, term: 1mo, payment: monthly, monthly: 4800}\n",
			"x.yaml:3: the same commitment as the one at line 2 (alibaba/ecs.gn7i-c8g1.2xlarge/cn-hangzhou subscription 1mo monthly: a one-month term paid ahead is one product, monthly or all-upfront)"},
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
		"1y subscription upfront and in instalments": "commitments:\n  - {provider: alibaba, instance_type: ecs.gn7i-c8g1.2xlarge, region: 华东1, model: subscription, term: 1y, payment: all-upfront, upfront: 48000}\n" +
			"  - {provider: alibaba, instance_type: ecs.gn7i-c8g1.2xlarge, region: 华东1, model: subscription, term: 1y, payment: monthly, monthly: 4000}\n",
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

// TestBounds: every price, rate, amount and count is bounded (limits.go), and
// the message names file:line, the field, the value and the allowed range.
func TestBounds(t *testing.T) {
	entry := func(fields string) string { return "prices:\n  - " + p4d + ",\n     " + fields + "}\n" }
	commit := func(rest string) string {
		return "commitments:\n  - {provider: aws, instance_type: p4d.24xlarge, region: us-east-1, model: reserved,\n     " + rest + "}\n"
	}
	const usd = "more than 0 and at most 10000 USD an hour per instance"
	for name, tc := range map[string]struct{ in, want string }{
		"price 1e309":        {entry("price: 1e309"), `x.yaml:3: field price: value 1e309 is outside the allowed range (beyond 1e±30)`},
		"price 10001":        {entry("price: 10001"), `x.yaml:3: field price: value 10001 is outside the allowed range: ` + usd},
		"price zero":         {entry("price: 0"), `x.yaml:3: field price: value 0 is outside the allowed range: ` + usd + ` (omit a price nobody knows)`},
		"price NaN":          {entry("price: NaN"), `x.yaml:3: field price: value "NaN" is not a number`},
		"price .inf":         {entry("price: .inf"), `x.yaml:3: field price: value ".inf" is not a number`},
		"price tiny":         {entry("price: 1e-400"), `x.yaml:3: field price: value 1e-400 is outside the allowed range (beyond 1e±30)`},
		"spot 1e20":          {entry("spot_price: 1e20"), `x.yaml:3: field spot_price: value 100000000000000000000 is outside the allowed range: ` + usd},
		"CNY scaled":         {entry("price: 71844, currency: CNY"), `field price: value 71844 is outside the allowed range: more than 0 and at most 71843 CNY an hour per instance (10000 USD at the rate 1 USD = 7.1843 CNY)`},
		"file fx scaled":     {"fx: {JPY: 0.01}\nprices:\n  - " + p4d + ",\n     price: 1000001, currency: JPY}\n", `x.yaml:4: field price: value 1000001 is outside the allowed range: more than 0 and at most 1000000 JPY an hour per instance`},
		"provider currency":  {"prices:\n  - {provider: alibaba, instance_type: ecs.gn7i-c8g1.2xlarge, region: cn-hangzhou,\n     price: 1e9}\n", `x.yaml:3: field price: value 1000000000 is outside the allowed range: more than 0 and at most 71843 CNY`},
		"step price":         {"prices:\n  - {provider: tencent, instance_type: x, hourly_steps: [{from_hours: 0, price: 2}, {from_hours: 96, price: 1e309}]}\n", `x.yaml:2: field hourly_steps.price: value 1e309 is outside the allowed range (beyond 1e±30)`},
		"step zero":          {"prices:\n  - {provider: tencent, instance_type: x, hourly_steps: [{from_hours: 0, price: 0}]}\n", `field hourly_steps.price: value 0 is outside the allowed range`},
		"fx 1e309":           {"fx:\n  CNY: 1e309\nprices:\n  - " + p4d + ", price: 20}\n", `x.yaml:2: field fx.CNY: value 1e309 is outside the allowed range (beyond 1e±30)`},
		"fx tiny":            {"fx:\n  CNY: 1e-9\nprices:\n  - " + p4d + ", price: 20}\n", `x.yaml:2: field fx.CNY: value 0.000000001 is outside the allowed range: from 0.000001 to 100 USD per one CNY`},
		"hourly commitment":  {commit("term: 1y, payment: no-upfront, hourly: 20000"), `x.yaml:3: field hourly: value 20000 is outside the allowed range: from 0 to 10000 USD an hour`},
		"monthly commitment": {commit("term: 1y, payment: monthly, monthly: 1e12"), `x.yaml:3: field monthly: value 1000000000000 is outside the allowed range: from 0 to 7440000 USD a month`},
		"upfront commitment": {commit("term: 1y, payment: all-upfront, upfront: 1e309"), `x.yaml:3: field upfront: value 1e309 is outside the allowed range (beyond 1e±30)`},
		"term too long":      {commit("term: 100y, payment: all-upfront, upfront: 1"), `x.yaml:3: field term: value "100y" is outside the allowed range: from 1 to 60 months (1y..5y, 1mo..60mo)`},
		"term negative":      {commit("term: -1y, payment: all-upfront, upfront: 1"), `x.yaml:3: field term: value "-1y" is outside the allowed range`},
		"gpu_count":          {"prices:\n  - {provider: aws, instance_type: big, region: us-east-1, gpu: T4, gpu_count: 1000, price: 1}\n", `x.yaml:2: field gpu_count: value "1000" is outside the allowed range: more than 0 and at most 64`},
		"gpu_count NaN":      {"prices:\n  - {provider: aws, instance_type: big, region: us-east-1, gpu: T4, gpu_count: NaN, price: 1}\n", `field gpu_count: value "NaN" is outside the allowed range`},
		"vcpus":              {"prices:\n  - {provider: aws, instance_type: big, region: us-east-1, gpu: T4, gpu_count: 1, vcpus: 1e6, price: 1}\n", `field vcpus: value "1e6" is outside the allowed range: more than 0 and at most 4096`},
		"memory_gib":         {"prices:\n  - {provider: aws, instance_type: big, region: us-east-1, gpu: T4, gpu_count: 1, memory_gib: 1e9, price: 1}\n", `field memory_gib: value "1e9" is outside the allowed range: more than 0 and at most 65536`},
		"gpu_memory_gib":     {"prices:\n  - {provider: aws, instance_type: big, region: us-east-1, gpu: T4, gpu_count: 1, gpu_memory_gib: 5000, price: 1}\n", `field gpu_memory_gib: value "5000" is outside the allowed range: more than 0 and at most 1024`},
		"discount 100%":      {"prices:\n  - {provider: gcp, discount: 100%}\n", `x.yaml:2: field discount: value "100%" is outside 0%..100%`},
		"impossible date":    {"as_of: 2026-13-45\nprices:\n  - " + p4d + ", price: 20}\n", `x.yaml:1: field as_of: value "2026-13-45" is not a date`},
	} {
		err := validate(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", name, err, tc.want)
		}
	}
	// The edges themselves are allowed.
	for name, in := range map[string]string{
		"price 10000":    entry("price: 10000, spot_price: 0.0000000001"),
		"CNY 71843":      entry("price: 71843, currency: CNY"),
		"gpu_count 0.25": "prices:\n  - {provider: aws, instance_type: slice, region: us-east-1, gpu: T4, gpu_count: 0.25, price: 1}\n",
		"term 5y":        commit("term: 5y, payment: all-upfront, upfront: 446400000"),
		"fx edges":       "fx: {VND: 0.000001, XAU: 100}\nprices:\n  - " + p4d + ", price: 20}\n",
	} {
		if err := validate(in); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSizeLimit: a file above MaxFileSize is refused before it is parsed, by
// Parse and by Load (which reads no more than the limit).
func TestSizeLimit(t *testing.T) {
	big := []byte("prices:\n  - " + p4d + ", price: 20}\n" + strings.Repeat("# padding\n", MaxFileSize/10))
	want := fmt.Sprintf("x.yaml: the file is more than %d bytes (4 MiB), the most a price file may be", MaxFileSize)
	if _, err := Parse("x.yaml", big); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Parse: got %v, want %q", err, want)
	}
	path := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), strings.Replace(want, "x.yaml", path, 1)) {
		t.Errorf("Load: got %v, want %q", err, want)
	}
	// At the limit: parsed, not refused (a tab at the start fails the parse
	// at once, which keeps the test cheap).
	at := []byte("\t" + strings.Repeat("#", MaxFileSize-1))
	if _, err := Parse("x.yaml", at); err == nil || !strings.Contains(err.Error(), "x.yaml:1: not valid YAML") {
		t.Errorf("a file of MaxFileSize bytes: %v, want it parsed (and refused as YAML)", err)
	}
}

// TestApplyIndex: the index Apply uses finds offerings the same file added
// (for a later commitment) and resolves a region the file introduced, in any case.
func TestApplyIndex(t *testing.T) {
	in := "prices:\n" +
		"  - {provider: aws, instance_type: custom.x, region: mars-1, new_region: true, gpu: T4, gpu_count: 1, price: 2}\n" +
		"  - {provider: aws, instance_type: custom.y, region: MARS-1, gpu: T4, gpu_count: 1, price: 3}\n" +
		"commitments:\n  - {provider: aws, instance_type: custom.y, region: mars-1, model: reserved, term: 1y, payment: all-upfront, upfront: 9000}\n"
	f, err := Parse("x.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := catalog.Default()
	before := len(c.Offerings)
	sum, err := Apply(c, money.DefaultFX().Clone(), f)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 2 || sum.Committed != 1 || len(c.Offerings) != before+2 {
		t.Fatalf("summary %+v, offerings %d -> %d; want 2 added, 1 committed", sum, before, len(c.Offerings))
	}
	for _, o := range c.Offerings[before:] {
		if o.Region != "mars-1" {
			t.Errorf("%s: region %q, want mars-1 (resolved from the first entry's spelling)", o.Key(), o.Region)
		}
	}
	// Resolved the same way, a second entry for custom.x is a duplicate.
	dup := "prices:\n  - {provider: aws, instance_type: custom.x, region: mars-1, new_region: true, gpu: T4, gpu_count: 1, price: 2}\n" +
		"  - {provider: aws, instance_type: custom.x, region: Mars-1, spot_price: 1}\n"
	if err := validate(dup); err == nil || !strings.Contains(err.Error(), "x.yaml:3: the same offering as the entry at line 2 (aws/custom.x/mars-1)") {
		t.Errorf("duplicate in a new region: %v", err)
	}
}

// A region the catalog does not know for a known provider is refused as a
// typing mistake, with the closest names, unless the entry says it is new;
// an as_of in the future is refused.
func TestUnknownRegionAndFutureDate(t *testing.T) {
	err := validate("prices:\n  - {provider: aws, instance_type: custom.x, region: us-esat-1, gpu: T4, gpu_count: 1, price: 2}\n")
	if err == nil || !strings.Contains(err.Error(), `x.yaml:2: field region: value "us-esat-1" is not a region of aws in the catalog (closest: us-east-1`) {
		t.Errorf("misspelt region: %v", err)
	}
	if err := validate("prices:\n  - {provider: aws, instance_type: custom.x, region: mars-1, new_region: true, gpu: T4, gpu_count: 1, price: 2}\n"); err != nil {
		t.Errorf("a region marked new: %v", err)
	}
	defer func(c func() time.Time) { clock = c }(clock)
	clock = func() time.Time { return time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC) }
	for _, in := range []string{"as_of: 2099-01-01\nprices: []\n", "prices:\n  - {provider: aws, instance_type: p5.48xlarge, price: 1, as_of: 2026-12-05}\n"} {
		if _, err := Parse("x.yaml", []byte(in)); err == nil || !strings.Contains(err.Error(), "is in the future (today is 2026-12-03)") {
			t.Errorf("%q: %v, want a future as_of refused", in, err)
		}
	}
	if _, err := Parse("x.yaml", []byte("as_of: 2026-12-04\nprices: []\n")); err != nil {
		t.Errorf("tomorrow (time zones): %v", err)
	}
}

// TestFieldListsSorted: messages about an unknown field list the allowed ones in order.
func TestFieldListsSorted(t *testing.T) {
	for name, list := range map[string][]string{"entryFields": entryFields, "commitmentFields": commitmentFields} {
		if !slices.IsSorted(list) {
			t.Errorf("%s = %v, want sorted", name, list)
		}
	}
}

// A price file gives a provider's own spot interruption band: it replaces the
// assumed default, the most specific band wins, and a bad label is refused.
func TestSpotBandFromPriceFile(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("b.yaml", []byte("as_of: 2026-11-01\nprices:\n  - {provider: gcp, spot_band: 10-15%}\n  - {provider: gcp, instance_type: a2-highgpu-8g, region: us-central1, spot_band: \">20%\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Apply(c, money.DefaultFX().Clone(), f)
	if err != nil || sum.SpotBands != 2 {
		t.Fatalf("apply: %+v, %v", sum, err)
	}
	var a2, a3 *catalog.Offering
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if o.Provider == "gcp" && o.Region == "us-central1" {
			switch o.InstanceType {
			case "a2-highgpu-8g":
				a2 = o
			case "a3-highgpu-8g":
				a3 = o
			}
		}
	}
	if a2 == nil || a3 == nil {
		t.Fatal("gcp a2/a3 offerings missing")
	}
	if b := c.SpotBandChoice(a2, ""); b.Label != ">20%" || b.Assumed || !strings.Contains(b.Origin, "user price file b.yaml") {
		t.Errorf("a2 band %+v, want the type's >20%% from the file", b)
	}
	if b := c.SpotBandChoice(a3, ""); b.Label != "10-15%" || b.Assumed {
		t.Errorf("a3 band %+v, want the provider's 10-15%% from the file", b)
	}
	if _, err := Parse("b.yaml", []byte("prices:\n  - {provider: gcp, spot_band: 200%}\n")); err == nil || !strings.Contains(err.Error(), "b.yaml:2: field spot_band") {
		t.Errorf("spot_band 200%%: %v", err)
	}
}
