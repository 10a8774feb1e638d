package awsprices

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func readShared(t testing.TB, name string) string {
	t.Helper()
	b, err := io.ReadAll(shareddata.Open(t, "price-feeds", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGetProductsElementM5Large: the m5.large record's on-demand price and
// all twelve Reserved Instance offerings, against its source rows.
func TestGetProductsElementM5Large(t *testing.T) {
	pl, shape, err := ParsePriceList(strings.NewReader(readShared(t, "aws-pricing-getproducts-m5large-us-east-1.json")), ListOptions{Origin: "m5"})
	if err != nil {
		t.Fatal(err)
	}
	if shape != ShapeElement || len(pl.Products) != 1 {
		t.Fatalf("shape %v, %d products", shape, len(pl.Products))
	}
	p := pl.Products[0]
	if p.InstanceType != "m5.large" || p.Region != "us-east-1" || p.Currency != "USD" || !p.OnDemand.Decimal.Equal(dec("0.096")) {
		t.Fatalf("product = %+v", p)
	}
	if got := pl.PublicationDate.Format("2006-01-02"); got != "2021-02-05" {
		t.Errorf("publicationDate %s, want 2021-02-05", got)
	}
	// Source rows: offerTermCode → lease, class, purchase option, Quantity (upfront) and Hrs fees.
	want := map[string]struct{ term, class, pay, upfront, hourly string }{
		"4NA7Y494T4": {"1y", "standard", "no-upfront", "0", "0.06"},
		"HU7G6KETJZ": {"1y", "standard", "partial-upfront", "252", "0.029"},
		"6QCMYABX3D": {"1y", "standard", "all-upfront", "494", "0"},
		"7NE97W5U4E": {"1y", "convertible", "no-upfront", "0", "0.071"},
		"CUZHX8X6JH": {"1y", "convertible", "partial-upfront", "294", "0.034"},
		"VJWZNREJX2": {"1y", "convertible", "all-upfront", "577", "0"},
		"BPH4J8HBKS": {"3y", "standard", "no-upfront", "0", "0.041"},
		"38NPMPTW36": {"3y", "standard", "partial-upfront", "505", "0.019"},
		"NQ3QZPMQV9": {"3y", "standard", "all-upfront", "949", "0"},
		"Z2E3P23VKM": {"3y", "convertible", "no-upfront", "0", "0.049"},
		"R5XV2EPZQZ": {"3y", "convertible", "partial-upfront", "592", "0.023"},
		"MZU6U2429S": {"3y", "convertible", "all-upfront", "1161", "0"},
	}
	if len(p.Reserved) != len(want) {
		t.Fatalf("%d reservations, want %d", len(p.Reserved), len(want))
	}
	for _, r := range p.Reserved {
		w := want[r.OfferTermCode]
		if r.Term() != w.term || r.OfferingClass != w.class || r.Payment() != w.pay || !r.Upfront.Equal(dec(w.upfront)) || !r.Hourly.Equal(dec(w.hourly)) {
			t.Errorf("%s = %s %s %s upfront %s hourly %s, want %+v", r.OfferTermCode, r.Term(), r.OfferingClass, r.Payment(), r.Upfront, r.Hourly, w)
		}
	}
	// As records: one offering, twelve commitments keeping the upfront and hourly fees apart.
	res := &feeds.Result{}
	pl.Records("m5", "src", "2021-02-05", res)
	if len(res.Offerings) != 1 || len(res.Commitments) != 12 || len(res.LeftOut) != 0 {
		t.Fatalf("records: %d offerings, %d commitments, left out %v", len(res.Offerings), len(res.Commitments), res.LeftOut)
	}
	for _, c := range res.Commitments {
		if c.Model != "reserved" || c.Currency != "USD" || c.Source != "src" || c.AsOf != "2021-02-05" || c.Origin != "m5#6C86BEPQVG73ZGGR" {
			t.Errorf("commitment %+v", c)
		}
	}
}

// TestGPUFilterLeavesM5Large: the m5.large has no gpu attribute.
func TestGPUFilterLeavesM5Large(t *testing.T) {
	pl, _, err := ParsePriceList(strings.NewReader(readShared(t, "aws-pricing-getproducts-m5large-us-east-1.json")), ListOptions{Origin: "m5", Keep: GPUFilter})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Products) != 0 || len(pl.LeftOut) != 1 || !strings.Contains(pl.LeftOut[0].Reason, "no GPU") {
		t.Fatalf("products %v, left out %v", pl.Products, pl.LeftOut)
	}
}

// TestBulkOfferExcerpt: the 2018 us-west-2 excerpt's instance products, read
// as its rows say (its authors trimmed the terms of these SKUs).
func TestBulkOfferExcerpt(t *testing.T) {
	pl, shape, err := ParsePriceList(strings.NewReader(readShared(t, "aws-offer-ec2-us-west-2-excerpt.json")), ListOptions{Origin: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if shape != ShapeOffer || len(pl.Products) != 6 {
		t.Fatalf("shape %v, %d products, want 6 instance products (one of the 7 has no instanceType)", shape, len(pl.Products))
	}
	// Source row 9DD7W8QPV2GVTFTQ: c3.large, Linux, Dedicated, SQL Std, US West (Oregon).
	for _, p := range pl.Products {
		if p.SKU == "9DD7W8QPV2GVTFTQ" && (p.InstanceType != "c3.large" || p.OS != "Linux" || p.Tenancy != "Dedicated" || p.PreInstalledSw != "SQL Std" || p.Region != "us-west-2") {
			t.Errorf("9DD7W8QPV2GVTFTQ = %+v", p)
		}
	}
	if got := pl.PublicationDate.Format("2006-01-02"); got != "2018-05-04" {
		t.Errorf("publicationDate %s", got)
	}
}

// gpuOffer is a bulk offer file with one GPU product whose on-demand and
// reserved terms are given, in the layout of the shared/data excerpt.
func gpuOffer(region, location, onDemand, reserved string) string {
	return `{"formatVersion":"v1.0","offerCode":"AmazonEC2","publicationDate":"2026-11-01T00:00:00Z",
"products":{"SKU1":{"sku":"SKU1","productFamily":"Compute Instance","attributes":{"instanceType":"p5.48xlarge","location":"` + location + `","regionCode":"` + region + `",
"operatingSystem":"Linux","tenancy":"Shared","preInstalledSw":"NA","capacitystatus":"Used","marketoption":"OnDemand","gpu":"8"}}},
"terms":{"OnDemand":{"SKU1":{` + onDemand + `}},"Reserved":{"SKU1":{` + reserved + `}}}}`
}

func term(code, dims string) string {
	return `"SKU1.` + code + `":{"sku":"SKU1","offerTermCode":"` + code + `","priceDimensions":{` + dims + `},
"termAttributes":{"LeaseContractLength":"1yr","OfferingClass":"standard","PurchaseOption":"Partial Upfront"}}`
}

func dim(code, unit, currency, price string) string {
	return `"` + code + `":{"unit":"` + unit + `","pricePerUnit":{"` + currency + `":"` + price + `"}}`
}

// TestBadTermsLeftOut: a negative price, an unknown unit, an unexpected
// currency or a price that is no number leaves the term out with a reason
// (counted), never a zero price.
func TestBadTermsLeftOut(t *testing.T) {
	good := term("JRTCKXETXF", dim("A", "Hrs", "USD", "98.32"))
	for _, c := range []struct {
		name, onDemand, reserved, region, reason string
		offerings, commitments                   int
	}{
		{"good", good, term("HU7G6KETJZ", dim("A", "Hrs", "USD", "30")+","+dim("B", "Quantity", "USD", "262800")), "us-east-1", "", 1, 1},
		{"negative on-demand", term("JRTCKXETXF", dim("A", "Hrs", "USD", "-1")), "", "us-east-1", "negative price -1", 0, 0},
		{"unknown unit", term("JRTCKXETXF", dim("A", "GB-Mo", "USD", "1")), "", "us-east-1", `unit "GB-Mo"`, 0, 0},
		{"unexpected currency", term("JRTCKXETXF", dim("A", "Hrs", "EUR", "1")), "", "us-east-1", "price in EUR; the region's prices are in USD", 0, 0},
		{"not a number", term("JRTCKXETXF", dim("A", "Hrs", "USD", "n/a")), "", "us-east-1", `price "n/a" is not a number`, 0, 0},
		{"zero on-demand", term("JRTCKXETXF", dim("A", "Hrs", "USD", "0")), "", "us-east-1", "no positive on-demand price", 0, 0},
		{"negative upfront", good, term("HU7G6KETJZ", dim("A", "Hrs", "USD", "30")+","+dim("B", "Quantity", "USD", "-5")), "us-east-1", "negative price -5", 1, 0},
		{"bad lease", good, strings.Replace(term("HU7G6KETJZ", dim("A", "Hrs", "USD", "30")), "1yr", "5yr", 1), "us-east-1", `lease "5yr"`, 1, 0},
		{"zero fees", good, term("HU7G6KETJZ", dim("A", "Hrs", "USD", "0")), "us-east-1", "no fee", 1, 0},
		{"China in CNY", term("JRTCKXETXF", dim("A", "Hrs", "CNY", "12.5")), "", "cn-north-1", "", 1, 0},
		{"China in USD", term("JRTCKXETXF", dim("A", "Hrs", "USD", "12.5")), "", "cn-north-1", "the region's prices are in CNY", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, _, err := ParsePriceList(strings.NewReader(gpuOffer(c.region, "somewhere", c.onDemand, c.reserved)), ListOptions{Origin: "f", Keep: GPUFilter})
			if err != nil {
				t.Fatal(err)
			}
			res := &feeds.Result{}
			pl.Records("f", "src", "2026-11-01", res)
			if len(res.Offerings) != c.offerings || len(res.Commitments) != c.commitments {
				t.Fatalf("%d offerings, %d commitments; want %d, %d (left out %v)", len(res.Offerings), len(res.Commitments), c.offerings, c.commitments, res.LeftOut)
			}
			for _, o := range res.Offerings {
				if !o.OnDemand.Known || !o.OnDemand.Amount.IsPositive() {
					t.Errorf("offering price %+v", o.OnDemand)
				}
			}
			if c.reason == "" {
				if len(res.LeftOut) != 0 {
					t.Errorf("left out %v", res.LeftOut)
				}
				return
			}
			if len(res.LeftOut) == 0 || !strings.Contains(res.LeftOut[0].Reason, c.reason) {
				t.Errorf("left out %v, want a reason with %q", res.LeftOut, c.reason)
			}
		})
	}
	// The good case's figures: the source's Hrs and Quantity fees, apart.
	pl, _, _ := ParsePriceList(strings.NewReader(gpuOffer("us-east-1", "x", good, term("HU7G6KETJZ", dim("A", "Hrs", "USD", "30")+","+dim("B", "Quantity", "USD", "262800")))), ListOptions{Keep: GPUFilter})
	r := pl.Products[0].Reserved[0]
	if !pl.Products[0].OnDemand.Decimal.Equal(dec("98.32")) || !r.Hourly.Equal(dec("30")) || !r.Upfront.Equal(dec("262800")) {
		t.Errorf("product %+v", pl.Products[0])
	}
}

// TestFilters: each of issue 12's on-demand filters leaves its product out.
func TestFilters(t *testing.T) {
	base := gpuOffer("us-east-1", "US East (N. Virginia)", term("JRTCKXETXF", dim("A", "Hrs", "USD", "1")), "")
	for from, to := range map[string]string{
		`"marketoption":"OnDemand"`:          `"marketoption":"CapacityBlock"`,
		`"capacitystatus":"Used"`:            `"capacitystatus":"UnusedCapacityReservation"`,
		`"tenancy":"Shared"`:                 `"tenancy":"Dedicated"`,
		`"preInstalledSw":"NA"`:              `"preInstalledSw":"SQL Web"`,
		`"operatingSystem":"Linux"`:          `"operatingSystem":"Windows"`,
		`"gpu":"8"`:                          `"gpu":"0"`,
		`"regionCode":"us-east-1"`:           `"regionCode":""`,
		`"location":"US East (N. Virginia)"`: `"location":"Mars"`,
	} {
		body := strings.Replace(base, from, to, 1)
		if from == `"location":"US East (N. Virginia)"` {
			body = strings.Replace(body, `"regionCode":"us-east-1"`, `"regionCode":""`, 1)
		}
		pl, _, err := ParsePriceList(strings.NewReader(body), ListOptions{Keep: GPUFilter})
		if err != nil {
			t.Fatal(err)
		}
		kept := len(pl.Products) == 1
		if to == `"regionCode":""` { // the location still names the region
			if !kept || pl.Products[0].Region != "us-east-1" {
				t.Errorf("%s: %+v", to, pl.Products)
			}
			continue
		}
		if kept || len(pl.LeftOut) != 1 {
			t.Errorf("%s: kept %v, left out %v", to, kept, pl.LeftOut)
		}
	}
}

// TestGetProductsResponse: a response's PriceList is an array of JSON
// strings, each an element; NextToken is the next page's.
func TestGetProductsResponse(t *testing.T) {
	el := readShared(t, "aws-pricing-getproducts-m5large-us-east-1.json")
	other := strings.ReplaceAll(el, "6C86BEPQVG73ZGGR", "SECONDSKU0000000")
	s1, _ := json.Marshal(el)
	s2, _ := json.Marshal(other)
	body := `{"FormatVersion":"aws_v1","NextToken":"tok2","PriceList":[` + string(s1) + `,` + string(s2) + `]}`
	pl, shape, err := ParsePriceList(strings.NewReader(body), ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if shape != ShapeGetProducts || pl.NextToken != "tok2" || len(pl.Products) != 2 || len(pl.Products[1].Reserved) != 12 {
		t.Fatalf("shape %v, next %q, %d products", shape, pl.NextToken, len(pl.Products))
	}
	last := `{"FormatVersion":"aws_v1","NextToken":null,"PriceList":[]}`
	pl, _, err = ParsePriceList(strings.NewReader(last), ListOptions{})
	if err != nil || pl.NextToken != "" || len(pl.Products) != 0 {
		t.Fatalf("last page: %v %+v", err, pl)
	}
}

func TestParsePriceListErrors(t *testing.T) {
	for name, in := range map[string]string{
		"not json":        "[",
		"neither":         `{"x":1}`,
		"array":           `[1]`,
		"terms first":     `{"terms":{},"products":{}}`,
		"trailing":        `{"products":{},"terms":{}} {}`,
		"bad date":        `{"publicationDate":"yesterday","products":{}}`,
		"element in list": `{"PriceList":["{\"products\":{}}"]}`,
		"list of numbers": `{"PriceList":[1]}`,
		"truncated":       `{"products":{"A":{"sku":"A","attributes":{"instanceType":"p5.48xlarge"`,
		"deep":            `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
	} {
		if _, _, err := ParsePriceList(strings.NewReader(in), ListOptions{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzParsePriceList: any body is read or rejected, never a panic; what is
// kept has no negative price and a currency.
func FuzzParsePriceList(f *testing.F) {
	f.Add(gpuOffer("us-east-1", "x", term("JRTCKXETXF", dim("A", "Hrs", "USD", "1")), term("HU7G6KETJZ", dim("A", "Hrs", "USD", "30"))))
	f.Add(`{"PriceList":["{\"product\":{\"sku\":\"A\",\"attributes\":{\"instanceType\":\"m\"}},\"terms\":{}}"],"NextToken":"x"}`)
	f.Fuzz(func(t *testing.T, s string) {
		pl, _, err := ParsePriceList(strings.NewReader(s), ListOptions{})
		if err != nil {
			return
		}
		for _, p := range pl.Products {
			if p.OnDemand.Valid && p.OnDemand.Decimal.IsNegative() || p.Currency == "" {
				t.Fatalf("product %+v", p)
			}
			for _, r := range p.Reserved {
				if r.Upfront.IsNegative() || r.Hourly.IsNegative() {
					t.Fatalf("reservation %+v", r)
				}
			}
		}
	})
}

// TestLeaverCounts: past perReason rows of one reason, the rest are one counted line.
func TestLeaverCounts(t *testing.T) {
	l := newLeaver("big.json")
	for i := 0; i < perReason+5; i++ {
		l.leave("no GPU", "big.json#x", "m5.large", "no GPU")
	}
	l.leave("other", "big.json#y", "p5", "why")
	out := l.done()
	if len(out) != perReason+2 {
		t.Fatalf("%d rows", len(out))
	}
	last := out[len(out)-1]
	if last.Origin != "big.json" || last.What != "5 more rows" || !strings.Contains(last.Reason, "no GPU (1005 rows in all") {
		t.Errorf("summary %+v", last)
	}
}
