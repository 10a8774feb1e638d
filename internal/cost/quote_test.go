package cost

import (
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Without a region, each way to pay is quoted in the region where it is
// cheapest: p5.48xlarge's spot, Capacity Block and on-demand each checked
// against the same way priced in every region one by one. (Before, the
// type's cheapest on-demand region priced every way: a Capacity Block at
// 41.528 USD/h in us-west-2 while others sell it at 37.76.)
func TestQuoteEachWayInItsCheapestRegion(t *testing.T) {
	e := engine(t)
	u := usage(t, Usage{DurationHours: 336, Instances: 1, DiscountRate: dec("0")})
	q := catalog.Query{Providers: []string{"aws"}, InstanceTypes: []string{"p5.48xlarge"}, FX: e.FX, Currency: money.USD}
	got, err := Quote(e.Catalog, e.FX, money.USD, q, u)
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]bool{}
	for i := range e.Catalog.Offerings {
		if o := &e.Catalog.Offerings[i]; o.Provider == "aws" && o.InstanceType == "p5.48xlarge" {
			regions[o.Region] = true
		}
	}
	checked := 0
	for _, way := range []struct{ model, term, payment string }{{"spot", "", ""}, {"capacity-block", "block", "all-upfront"}, {"on-demand", "", ""}} {
		o := find(t, got, way.model, way.term, way.payment, "")
		for r := range regions {
			one := q
			one.Regions = []string{r}
			in, err := Quote(e.Catalog, e.FX, money.USD, one, u)
			if err != nil {
				continue // not sold there
			}
			for _, x := range in {
				if x.Model == way.model && x.Term == way.term && x.Payment == way.payment && x.Known && x.Feasible &&
					x.Total.Value.InexactFloat64() < o.Total.Value.InexactFloat64()*(1-1e-6) {
					t.Errorf("%s: quoted %s in %s, but %s has it at %s", way.model, o.Total.Value, o.Offering.Region, r, x.Total.Value)
				}
			}
			checked++
		}
	}
	if checked < 6 {
		t.Fatalf("only %d region quotes compared", checked)
	}
	if cb := find(t, got, "capacity-block", "block", "all-upfront", ""); cb.ListHourly.Decimal.String() != "37.76" {
		t.Errorf("Capacity Block at %v USD/h in %s; want the 37.76 some regions sell it at", cb.ListHourly.Decimal, cb.Offering.Region)
	}
}

// A price sourced in another currency says so: an Alibaba on-demand price
// (CNY) quoted in USD is converted from CNY, in the JSON too; an AWS one
// (USD) is not.
func TestConvertedFrom(t *testing.T) {
	e := engine(t)
	u := usage(t, Usage{DurationHours: 168, Instances: 1, DiscountRate: dec("0")})
	for _, tc := range []struct{ offering, want string }{{"alibaba/ecs.gn7i-c8g1.2xlarge/cn-hangzhou", "CNY"}, {"aws/p4d.24xlarge/us-east-1", ""}} {
		q := catalog.Query{FX: e.FX, Currency: money.USD}
		if err := e.Catalog.SelectOffering(&q, tc.offering); err != nil {
			t.Fatal(err)
		}
		opts, err := Quote(e.Catalog, e.FX, money.USD, q, u)
		if err != nil {
			t.Fatal(err)
		}
		od := find(t, opts, ModelOnDemand, "", "", "")
		if got := OptionsJSON([]Option{*od}, money.USD, u, false)[0].ConvertedFrom; got != tc.want || od.Converted() != (tc.want != "") {
			t.Errorf("%s: converted_from %q (Converted %v); want %q", tc.offering, got, od.Converted(), tc.want)
		}
	}
}
