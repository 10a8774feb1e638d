package usercatalog

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds"
)

// awsOnDemandListing is a listing of us-east-1's on-demand prices (an offer
// file, say): every type the embedded catalog prices there, at its price,
// but p4d.24xlarge (21.957642 on demand; spot per zone in the catalog).
func awsOnDemandListing(base *catalog.Catalog, lists bool) *feeds.Result {
	src := "aws-offer@2026-11-30"
	res := &feeds.Result{Lists: lists}
	seen := map[string]bool{}
	for i := range base.Offerings {
		o := &base.Offerings[i]
		if o.Provider != "aws" || o.Region != "us-east-1" || !o.OnDemand.Known || o.InstanceType == "p4d.24xlarge" || seen[o.InstanceType] {
			continue
		}
		seen[o.InstanceType] = true
		res.Offerings = append(res.Offerings, feeds.Offering{Origin: "offer", Provider: "aws", InstanceType: o.InstanceType, Region: "us-east-1",
			OnDemand: feeds.Known(o.OnDemand.Value, "USD", src, "2026-11-30")})
	}
	return res
}

// TestMarkUnlistedKindsAndRegions: a listing with on-demand prices only
// unlists p4d.24xlarge's on-demand price in us-east-1, in every zone row,
// noted with the last price; its spot prices (a kind the listing has not)
// stay with their own source and date, and so does every other region.
// A result that is not a listing unlists nothing.
func TestMarkUnlistedKindsAndRegions(t *testing.T) {
	base := embedded(t)
	rows := func(c *catalog.Catalog, region string) []*catalog.Offering {
		var out []*catalog.Offering
		for i := range c.Offerings {
			if o := &c.Offerings[i]; o.Provider == "aws" && o.InstanceType == "p4d.24xlarge" && o.Region == region {
				out = append(out, o)
			}
		}
		return out
	}
	before := rows(base, "us-east-1")
	if len(before) < 2 || !before[0].OnDemand.Known || !before[0].Spot.Known {
		t.Fatalf("the embedded catalog has %d p4d.24xlarge us-east-1 rows; want priced zone rows", len(before))
	}

	for _, lists := range []bool{false, true} {
		set, _, err := Build(base, awsOnDemandListing(base, lists), meta("aws", []string{"us-east-1"}, day))
		if err != nil {
			t.Fatal(err)
		}
		MarkUnlisted(set, base, nil)
		over, _, err := Overlay(base, []*Set{set})
		if err != nil {
			t.Fatal(err)
		}
		after := rows(over, "us-east-1")
		if !lists {
			if set.Meta.Counts.Unlisted != 0 || !after[0].OnDemand.Known {
				t.Errorf("not a listing: %d unlisted, p4d on demand %v; want nothing unlisted", set.Meta.Counts.Unlisted, after[0].OnDemand)
			}
			continue
		}
		if set.Meta.Counts.Unlisted != 1 || len(set.Meta.Unlisted) != len(before) {
			t.Errorf("%d offerings unlisted with %d entries, want 1 with %d (one per zone row, on demand only)", set.Meta.Counts.Unlisted, len(set.Meta.Unlisted), len(before))
		}
		if len(after) != len(before) {
			t.Fatalf("%d p4d.24xlarge us-east-1 rows after, want the %d zone rows kept", len(after), len(before))
		}
		want := "not listed by your catalog refresh of 2026-11-30 (aws us-east-1); last priced 21.957642 USD/h as of " + before[0].OnDemand.AsOf + " (" + before[0].OnDemand.Source + ")"
		for i, o := range after {
			b := before[i]
			if o.Zone != b.Zone || o.OnDemand.Known || o.OnDemand.Note != want {
				t.Errorf("zone %s: on demand %+v, want unknown with the note %q", o.Zone, o.OnDemand, want)
			}
			if o.Spot != b.Spot {
				t.Errorf("zone %s: spot %+v, want the catalog's %+v kept (the listing has no spot price)", o.Zone, o.Spot, b.Spot)
			}
		}
		if w := rows(over, "us-west-2"); len(w) == 0 || !w[0].OnDemand.Known || w[0].OnDemand.Note != "" {
			t.Errorf("us-west-2 p4d.24xlarge %v: another region must keep its price", w)
		}
		changes := Diff(base.Offerings, over.Offerings, "aws")
		var gone []string
		for _, c := range changes {
			if c.Kind == Unknown {
				gone = append(gone, c.InstanceType+" "+c.Region+" "+c.Zone)
			}
		}
		if len(gone) != len(before) || !strings.HasPrefix(gone[0], "p4d.24xlarge us-east-1") {
			t.Errorf("diff: no longer priced %v, want the %d p4d.24xlarge us-east-1 rows", gone, len(before))
		}
	}
}
