package awsprices

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// TestParseZones reads the zone names and ids of a DescribeAvailabilityZones
// answer, XML (testdata, derived from the API reference) or JSON (the CLI's
// AvailabilityZones); an item without its id is an error, not a hole.
func TestParseZones(t *testing.T) {
	xmlBody, err := os.ReadFile(filepath.Join("testdata", "describeavailabilityzones-derived.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		want       ZoneIDs
		err        string
	}{
		{"xml", string(xmlBody), ZoneIDs{"us-east-1a": "use1-az4", "us-east-1b": "use1-az6"}, ""},
		{"json", `{"AvailabilityZones":[{"State":"available","ZoneName":"us-east-1a","ZoneId":"use1-az4","RegionName":"us-east-1"}]}`, ZoneIDs{"us-east-1a": "use1-az4"}, ""},
		{"no id", `{"AvailabilityZones":[{"ZoneName":"us-east-1a"}]}`, nil, `item 0 has no zone name or no zone id ("us-east-1a", "")`},
		{"two ids", `{"AvailabilityZones":[{"ZoneName":"a","ZoneId":"x"},{"ZoneName":"a","ZoneId":"y"}]}`, nil, "zone a is both x and y"},
		{"no list", `{"Zones":[]}`, nil, "no AvailabilityZones"},
		{"truncated", `<DescribeAvailabilityZonesResponse><availabilityZoneInfo><item>`, nil, "aws availability zones: XML syntax error"},
		{"html", `Service Unavailable`, nil, "neither JSON nor XML"},
		{"empty", ``, nil, "empty body"},
	} {
		got, err := ParseZones(strings.NewReader(tc.body))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestMapZones: a spot price's zone name becomes its zone id; a zone the map
// lacks is left out with its reason.
func TestMapZones(t *testing.T) {
	h := &SpotHistory{Prices: []SpotPrice{
		{InstanceType: "p5.48xlarge", Zone: "us-east-1a", Region: "us-east-1", Price: dec("25.5"), Row: 0},
		{InstanceType: "p5.48xlarge", Zone: "us-east-1f", Region: "us-east-1", Price: dec("26"), Row: 1},
	}}
	h.MapZones(ZoneIDs{"us-east-1a": "use1-az4"}, "page-1")
	if len(h.Prices) != 1 || h.Prices[0].Zone != "use1-az4" || !h.Prices[0].Price.Equal(dec("25.5")) {
		t.Errorf("prices %+v, want 25.5 in use1-az4 only", h.Prices)
	}
	if len(h.LeftOut) != 1 || h.LeftOut[0].Origin != "page-1#1" || !strings.Contains(h.LeftOut[0].Reason, "zone id is unknown") {
		t.Errorf("left out %v, want page-1#1 as a zone without id", h.LeftOut)
	}
}

// TestParseSpotHistoryKeepsNames: offline, a spot history file names zones
// as its account sees them; they are kept and the result says so.
func TestParseSpotHistoryKeepsNames(t *testing.T) {
	res, err := New().Parse(FormatSpotHistory, strings.NewReader(readShared(t, "aws-ec2-describespotpricehistory-m5large.json")),
		feeds.ParseOptions{Source: "file:h.json@2021-02-09", AsOf: "2021-02-09", Origin: "h.json"})
	if err != nil {
		t.Fatal(err)
	}
	// m5.large is no GPU type: no prices, so nothing to say of zones.
	for _, l := range res.LeftOut {
		if strings.Contains(l.What, "zone ids") {
			t.Errorf("a zone note without prices: %v", l)
		}
	}
	body, err := os.ReadFile(filepath.Join("testdata", "describespotpricehistory-example.xml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseSpotHistory(strings.NewReader(string(body)), SpotHistoryOptions{Origin: "x.xml", Keep: keepAll})
	if err != nil {
		t.Fatal(err)
	}
	note := zoneNamesNote("x.xml", h)
	if note == nil || note.What != "zone ids of 1 spot prices" || !strings.Contains(note.Reason, "(us-west-2a)") || !strings.Contains(note.Reason, "DescribeAvailabilityZones") {
		t.Errorf("note %+v, want one naming us-west-2a and how a live refresh maps it", note)
	}
}

// FuzzParseZones: any body is a map or an error, never a panic; a map has
// no empty name or id.
func FuzzParseZones(f *testing.F) {
	f.Add(`{"AvailabilityZones":[{"ZoneName":"us-east-1a","ZoneId":"use1-az4"}]}`)
	f.Add(`<DescribeAvailabilityZonesResponse><availabilityZoneInfo><item><zoneName>a</zoneName><zoneId>b</zoneId></item></availabilityZoneInfo></DescribeAvailabilityZonesResponse>`)
	f.Fuzz(func(t *testing.T, body string) {
		ids, err := ParseZones(strings.NewReader(body))
		if err != nil {
			return
		}
		for name, id := range ids {
			if name == "" || id == "" {
				t.Errorf("empty pair %q → %q", name, id)
			}
		}
	})
}
