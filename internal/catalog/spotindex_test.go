package catalog

import (
	"slices"
	"testing"
)

// The spot index gives every offering the quote a scan of all offerings
// gives: over the embedded (key-ordered) offerings by binary search, then
// (past mapAfter searches) by its map of runs, and over offerings out of
// order (a price file's, appended) by its links.
func TestSpotIndexModes(t *testing.T) {
	scan := func(c *Catalog, o *Offering) SpotQuote {
		var q SpotQuote
		for i := range c.Offerings {
			z := &c.Offerings[i]
			if z.Provider != o.Provider || z.InstanceType != o.InstanceType || z.Region != o.Region || !z.Spot.Known || z.GPU != o.GPU {
				continue
			}
			if q.Offering == nil || (z.Spot.Currency == q.Price.Currency && z.Spot.Value.LessThan(q.Price.Value)) {
				q = SpotQuote{Price: z.Spot, Zone: z.Zone, Offering: z}
			}
		}
		return q
	}
	sorted := mustDefault(t)
	unsorted := sorted.Clone()
	slices.Reverse(unsorted.Offerings)
	for _, c := range []*Catalog{sorted, unsorted} {
		zones := 0
		for i := range c.Offerings {
			o := &c.Offerings[i]
			got, want := c.SpotQuoteFor(o), scan(c, o)
			if got.Offering != want.Offering || got.Zone != want.Zone || !got.Price.Value.Equal(want.Price.Value) {
				t.Fatalf("%s: quote %v in %q, want %v in %q", o.Key(), got.Price.Value, got.Zone, want.Price.Value, want.Zone)
			}
			if got.Zone != "" {
				zones++
			}
		}
		if zones == 0 {
			t.Error("no offering quoted at a zone's spot price: the test compares nothing")
		}
	}
	if !sorted.spotIdx.sorted || sorted.spotIdx.first == nil || unsorted.spotIdx.sorted || unsorted.spotIdx.next == nil {
		t.Errorf("modes: embedded sorted %v mapped %v; reversed sorted %v", sorted.spotIdx.sorted, sorted.spotIdx.first != nil, unsorted.spotIdx.sorted)
	}
	// A fresh index over the embedded offerings answers by binary search.
	fresh := mustDefault(t)
	o := &fresh.Offerings[len(fresh.Offerings)/2]
	if q := fresh.SpotQuoteFor(o); q != scan(fresh, o) || fresh.spotIdx.first != nil {
		t.Errorf("binary search: quote %+v, map built %v", q, fresh.spotIdx.first != nil)
	}
}
