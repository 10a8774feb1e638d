package awsprices_test

import (
	"encoding/json"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds/awsprices"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

type product struct {
	Attributes map[string]string `json:"attributes"`
}

// TestPriceListConformance: every instance product of the Price List
// samples is a record or left out (they hold no GPU instance).
func TestPriceListConformance(t *testing.T) {
	src := registry.Lookup("awspricelist")
	rows := map[string]int{}
	for _, f := range src.(*awsprices.PriceListFeed).Files {
		var raw struct {
			Products map[string]product `json:"products"`
			Product  *product           `json:"product"`
		}
		if err := json.NewDecoder(shareddata.Open(t, f.Path)).Decode(&raw); err != nil {
			t.Fatal(err)
		}
		if raw.Product != nil {
			raw.Products = map[string]product{"": *raw.Product}
		}
		for _, p := range raw.Products {
			if p.Attributes["instanceType"] != "" { // products of other kinds are not instances
				rows[f.Path]++
			}
		}
	}
	feedstest.Run(t, src, feedstest.Want{Rows: rows,
		Empty: "the Price List samples in shared/data hold no GPU instance (m5, c3-c5, d2, h1, i3)"})
}

// TestSpotAdvisorConformance: every entry of the Spot Advisor excerpt is a band or left out.
func TestSpotAdvisorConformance(t *testing.T) {
	src := registry.Lookup("awsspotadvisor")
	path := src.(*awsprices.SpotAdvisorFeed).Path
	var raw struct {
		Advisor map[string]map[string]map[string]json.RawMessage `json:"spot_advisor"`
	}
	if err := json.NewDecoder(shareddata.Open(t, path)).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, oses := range raw.Advisor {
		for _, types := range oses {
			n += len(types)
		}
	}
	feedstest.Run(t, src, feedstest.Want{Rows: map[string]int{path: n}})
}

// TestSpotHistoryConformance: every row of the recorded m5.large response
// is a per-zone spot price or left out (an older price of its zone).
func TestSpotHistoryConformance(t *testing.T) {
	path := "price-feeds/aws-ec2-describespotpricehistory-m5large.json"
	var raw struct{ SpotPriceHistory []json.RawMessage }
	if err := json.NewDecoder(shareddata.Open(t, path)).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	src := &awsprices.SpotHistoryFeed{Path: path, Source: "aws-spot-history-m5large@2021-02-09", AllTypes: true}
	feedstest.Run(t, src, feedstest.Want{Rows: map[string]int{path: len(raw.SpotPriceHistory)}})
}
