package awscapacityblocks_test

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds/awscapacityblocks"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/registry"
	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// sourceRows reads the table independently of the feed's parser: the price
// of every instance type in every region code.
func sourceRows(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := io.ReadAll(shareddata.Open(t, path))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		InstanceTypes map[string]struct {
			Pricing []struct {
				RegionCode string      `json:"region_code"`
				Hourly     json.Number `json:"hourly_rate_usd"`
			} `json:"pricing"`
		} `json:"instance_types"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for typ, it := range doc.InstanceTypes {
		for _, p := range it.Pricing {
			out[typ+" "+p.RegionCode] = p.Hourly.String()
		}
	}
	return out
}

func TestConformance(t *testing.T) {
	src := registry.Lookup("aws-capacity-blocks")
	path := src.(*awscapacityblocks.Feed).Path
	feedstest.Run(t, src, feedstest.Want{Rows: map[string]int{path: len(sourceRows(t, path))}})
}

// TestEveryPriceIsItsSourceRow: each commitment the feed yields is the
// table's row, exactly, and every row is yielded once.
func TestEveryPriceIsItsSourceRow(t *testing.T) {
	src := registry.Lookup("aws-capacity-blocks")
	path := src.(*awscapacityblocks.Feed).Path
	want := sourceRows(t, path)
	res, err := src.Read(feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range res.Commitments {
		k := c.InstanceType + " " + c.Region
		w, ok := want[k]
		if !ok || got[k] {
			t.Errorf("%s: %s is not a row of the table, or yielded twice", c.Origin, k)
			continue
		}
		got[k] = true
		if !c.Hourly.Equal(decimal.RequireFromString(w)) || c.Currency != "USD" || c.Model != "capacity-block" || c.Term != "block" ||
			c.Payment != "all-upfront" || c.AsOf != "2026-07-22" || !c.Upfront.IsZero() || !c.Monthly.IsZero() {
			t.Errorf("%s: %+v; want %s USD an instance-hour, capacity-block block all-upfront, 2026-07-22", c.Origin, c, w)
		}
	}
	if len(got) != len(want) || len(want) != 69 {
		t.Errorf("%d rows yielded of %d in the table; SOURCE.md counts 69", len(got), len(want))
	}
	if p := want["p5.48xlarge us-east-1"]; p != "41.528" {
		t.Errorf("p5.48xlarge us-east-1 = %s, want SOURCE.md's sample 41.528", p)
	}
}
