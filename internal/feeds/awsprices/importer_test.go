package awsprices

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// TestParseFormats: every offline format through Importer.Parse, on the
// recorded responses (shared/data) and the documented examples (testdata).
func TestParseFormats(t *testing.T) {
	im := New()
	if im.Provider() != "aws" || len(im.Formats()) != 5 {
		t.Fatalf("provider %q, formats %v", im.Provider(), im.Formats())
	}
	open := func(name string) string {
		if strings.HasPrefix(name, "testdata/") {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		return readShared(t, name)
	}
	for _, c := range []struct {
		format, file, asOf                     string
		offerings, commitments, bands, leftOut int
	}{
		// No GPU in the recorded Price List bodies: every instance product is left out.
		{FormatOffer, "aws-offer-ec2-us-west-2-excerpt.json", "", 0, 0, 0, 6},
		{FormatGetProducts, "aws-pricing-getproducts-m5large-us-east-1.json", "", 0, 0, 0, 1},
		{FormatSavingsPlan, "testdata/savingsplan-docs-example.json", "", 0, 0, 0, 1},
		// Spot Advisor: the excerpt has 7+7+5 Linux and 4+4+4 Windows entries (us-east-1, us-west-2, eu-west-1); Linux kept.
		{FormatSpotAdvisor, "aws-spot-advisor-excerpt.json", "2025-06-28", 0, 0, 19, 12},
		{FormatSpotHistory, "testdata/describespotpricehistory-example.xml", "", 0, 0, 0, 2},
	} {
		res, err := im.Parse(c.format, strings.NewReader(open(c.file)), feeds.ParseOptions{Source: "s", AsOf: c.asOf, Origin: "o"})
		if err != nil {
			t.Errorf("%s: %v", c.format, err)
			continue
		}
		if len(res.Offerings) != c.offerings || len(res.Commitments) != c.commitments || len(res.SpotBands) != c.bands || len(res.LeftOut) != c.leftOut {
			t.Errorf("%s: %d offerings, %d commitments, %d bands, %d left out; want %d, %d, %d, %d",
				c.format, len(res.Offerings), len(res.Commitments), len(res.SpotBands), len(res.LeftOut), c.offerings, c.commitments, c.bands, c.leftOut)
		}
		for _, b := range res.SpotBands {
			if b.AsOf != "2025-06-28" || b.Source != "s" {
				t.Errorf("band %+v", b)
			}
		}
	}
}

// TestParseGPUOffer: a GPU product of an offer file, dated by its publicationDate.
func TestParseGPUOffer(t *testing.T) {
	body := gpuOffer("us-east-1", "US East (N. Virginia)", term("JRTCKXETXF", dim("A", "Hrs", "USD", "55.04")), term("HU7G6KETJZ", dim("A", "Hrs", "USD", "20")+","+dim("B", "Quantity", "USD", "175000")))
	res, err := New().Parse(FormatOffer, strings.NewReader(body), feeds.ParseOptions{Source: "file:offer.json", Origin: "offer.json"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 1 || len(res.Commitments) != 1 {
		t.Fatalf("%+v", res)
	}
	o, c := res.Offerings[0], res.Commitments[0]
	if o.Origin != "offer.json#SKU1" || !o.OnDemand.Amount.Equal(dec("55.04")) || o.OnDemand.AsOf != "2026-11-01" || o.OnDemand.Source != "file:offer.json" {
		t.Errorf("offering %+v", o)
	}
	if !c.Upfront.Equal(dec("175000")) || !c.Hourly.Equal(dec("20")) || c.Term != "1y" || c.Payment != "partial-upfront" || c.Class != "standard" {
		t.Errorf("commitment %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	im := New()
	offer := gpuOffer("us-east-1", "x", term("JRTCKXETXF", dim("A", "Hrs", "USD", "1")), "")
	for _, c := range []struct {
		format, body string
		o            feeds.ParseOptions
		want         string
	}{
		{"azure-retail", "{}", feeds.ParseOptions{Source: "s"}, `format "azure-retail": the aws importer reads aws-offer, aws-getproducts`},
		{FormatOffer, offer, feeds.ParseOptions{}, "no source id"},
		{FormatGetProducts, offer, feeds.ParseOptions{Source: "s"}, "use --format aws-offer"},
		{FormatOffer, `{"PriceList":[]}`, feeds.ParseOptions{Source: "s"}, "use --format aws-getproducts"},
		{FormatSpotAdvisor, `{"ranges":[]}`, feeds.ParseOptions{Source: "s"}, "Spot Advisor's file has none"},
		{FormatGetProducts, `{"PriceList":[]}`, feeds.ParseOptions{Source: "s"}, "no publicationDate"},
	} {
		_, err := im.Parse(c.format, strings.NewReader(c.body), c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.format, err, c.want)
		}
		// A body without a date of its own, and none given: the caller is to ask for one.
		if noDate := strings.Contains(c.want, "Spot Advisor") || strings.Contains(c.want, "publicationDate"); noDate != errors.Is(err, feeds.ErrNoDate) {
			t.Errorf("%s: err %v: errors.Is(err, feeds.ErrNoDate) = %v, want %v", c.format, err, !noDate, noDate)
		}
	}
}
