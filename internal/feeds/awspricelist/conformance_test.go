package awspricelist_test

import (
	"encoding/json"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds/awspricelist"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

type product struct {
	Attributes map[string]string `json:"attributes"`
}

func TestConformance(t *testing.T) {
	src := registry.Lookup("awspricelist")
	rows := map[string]int{}
	for _, f := range src.(*awspricelist.Feed).Files {
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
