package cost

import (
	"errors"
	"fmt"
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
	got, err := (&Request{Usage: *u, Currency: money.USD, Query: q}).Quote(e.Catalog, e.FX)
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
			in, err := (&Request{Usage: *u, Currency: money.USD, Query: one}).Quote(e.Catalog, e.FX)
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
		opts, err := (&Request{Usage: *u, Currency: money.USD, Query: q}).Quote(e.Catalog, e.FX)
		if err != nil {
			t.Fatal(err)
		}
		od := find(t, opts, ModelOnDemand, "", "", "")
		if got := OptionsJSON([]Option{*od}, money.USD, u, false)[0].ConvertedFrom; got != tc.want || od.Converted() != (tc.want != "") {
			t.Errorf("%s: converted_from %q (Converted %v); want %q", tc.offering, got, od.Converted(), tc.want)
		}
	}
}

// TestRequestValidate: a request is refused for the answer's currency, an
// amount's currency or a credit's provider, naming which, and validation
// never changes the request.
func TestRequestValidate(t *testing.T) {
	e := engine(t)
	base := func() Request {
		return Request{Usage: *usage(t, Usage{DurationHours: 168, Instances: 1, DiscountRate: dec("0")}), Currency: money.CNY}
	}
	for _, tc := range []struct {
		name   string
		change func(r *Request)
		what   string // the CurrencyError's What; "provider": an unknown provider; "": valid
	}{
		{"valid", func(r *Request) {}, ""},
		{"no currency is USD", func(r *Request) { r.Currency = "" }, ""},
		{"answer", func(r *Request) { r.Currency = "XYZ" }, "currency"},
		{"credit", func(r *Request) { r.Usage.Credits = []Credit{{Amount: dec("100"), Currency: "XYZ"}} }, "credit"},
		{"promotion", func(r *Request) {
			r.Usage.Promotions = []Promotion{{Kind: PromoVoucher, Amount: dec("5"), Currency: "XYZ"}}
		}, "promotion"},
		{"storage", func(r *Request) {
			r.Usage.Storage = []Storage{{Kind: "object", GBMonth: 10, PricePerGB: dec("0.02"), Currency: "XYZ"}}
		}, "storage"},
		{"credit's provider", func(r *Request) {
			r.Usage.Credits = []Credit{{Amount: dec("100"), Currency: money.USD, Providers: []string{"nocloud"}}}
		}, "provider"},
	} {
		r := base()
		tc.change(&r)
		before := fmt.Sprintf("%#v", r)
		err := r.Validate(e.Catalog, e.FX)
		if after := fmt.Sprintf("%#v", r); after != before {
			t.Errorf("%s: Validate changed the request", tc.name)
		}
		var ce *CurrencyError
		var pe *catalog.UnknownProviderError
		switch {
		case tc.what == "" && err != nil:
			t.Errorf("%s: %v, want valid", tc.name, err)
		case tc.what == "provider" && !errors.As(err, &pe):
			t.Errorf("%s: %v, want an unknown provider", tc.name, err)
		case tc.what != "" && tc.what != "provider" && (!errors.As(err, &ce) || ce.What != tc.what || ce.Currency != "XYZ"):
			t.Errorf("%s: %v, want a %s currency error for XYZ", tc.name, err, tc.what)
		}
		// Quote refuses what Validate refuses.
		if tc.what != "" {
			if _, qerr := r.Quote(e.Catalog, e.FX); qerr == nil || qerr.Error() != err.Error() {
				t.Errorf("%s: Quote answered %v where Validate said %v", tc.name, qerr, err)
			}
		}
	}
}
