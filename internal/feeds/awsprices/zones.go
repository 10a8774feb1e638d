package awsprices

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// ZoneIDs maps an account's zone names (us-east-1a) to zone ids (use1-az1).
// AWS maps names to physical zones per account in its older regions, so a
// name means nothing to another account; the catalog's AWS rows are per zone
// id, which is the same in every account. DescribeSpotPriceHistory answers
// names, EC2 DescribeAvailabilityZones says which id each name is.
type ZoneIDs map[string]string

type zoneItem struct {
	ZoneName string `json:"ZoneName" xml:"zoneName"`
	ZoneID   string `json:"ZoneId" xml:"zoneId"`
}

// ParseZones reads a DescribeAvailabilityZones response: the EC2 Query
// API's XML (DescribeAvailabilityZonesResponse, availabilityZoneInfo items
// with zoneName and zoneId) or the JSON the SDKs and the CLI write
// (AvailabilityZones with ZoneName and ZoneId). An item without both is an
// error: a map with holes would silently keep names.
func ParseZones(r io.Reader) (ZoneIDs, error) {
	br := bufio.NewReader(r)
	first, err := firstByte(br)
	if err != nil {
		return nil, fmt.Errorf("aws availability zones: %w", err)
	}
	var items []zoneItem
	switch first {
	case '{':
		var raw struct{ AvailabilityZones []zoneItem }
		if err := json.NewDecoder(br).Decode(&raw); err != nil {
			return nil, fmt.Errorf("aws availability zones: %w", err)
		}
		if raw.AvailabilityZones == nil {
			return nil, fmt.Errorf("aws availability zones: no AvailabilityZones")
		}
		items = raw.AvailabilityZones
	case '<':
		var raw struct {
			XMLName xml.Name   `xml:"DescribeAvailabilityZonesResponse"`
			Items   []zoneItem `xml:"availabilityZoneInfo>item"`
		}
		if err := xml.NewDecoder(br).Decode(&raw); err != nil {
			return nil, fmt.Errorf("aws availability zones: %w", err)
		}
		items = raw.Items
	default:
		return nil, fmt.Errorf("aws availability zones: the body is neither JSON nor XML (starts with %q)", first)
	}
	ids := ZoneIDs{}
	for i, it := range items {
		name, id := strings.TrimSpace(it.ZoneName), strings.TrimSpace(it.ZoneID)
		if name == "" || id == "" {
			return nil, fmt.Errorf("aws availability zones: item %d has no zone name or no zone id (%q, %q)", i, name, id)
		}
		if prev, dup := ids[name]; dup && prev != id {
			return nil, fmt.Errorf("aws availability zones: zone %s is both %s and %s", name, prev, id)
		}
		ids[name] = id
	}
	return ids, nil
}

// catZoneID is the leave category of spot prices whose zone has no id.
const catZoneID = "a zone name without a zone id"

// MapZones rewrites the prices' zone names to zone ids. A price whose zone
// the map does not name is left out: the catalog's rows are per zone id and
// a name is only this account's.
func (h *SpotHistory) MapZones(ids ZoneIDs, origin string) {
	left := newLeaver(origin)
	kept := h.Prices[:0]
	for _, p := range h.Prices {
		id, ok := ids[p.Zone]
		if !ok {
			left.leave(catZoneID, fmt.Sprintf("%s#%d", origin, p.Row), p.InstanceType+" "+p.Zone,
				"DescribeAvailabilityZones does not name the zone, so its zone id is unknown")
			continue
		}
		p.Zone = id
		kept = append(kept, p)
	}
	h.Prices = kept
	h.LeftOut = append(h.LeftOut, left.done()...)
}

// zoneNamesNote is what an offline spot history file's result says of its
// zones: they stay names, which do not match the catalog's zone-id rows.
func zoneNamesNote(origin string, h *SpotHistory) *feeds.LeftOut {
	if len(h.Prices) == 0 {
		return nil
	}
	return &feeds.LeftOut{Origin: origin, What: "zone ids of " + fmt.Sprint(len(h.Prices)) + " spot prices",
		Reason: "not mapped: the file names zones as this account sees them (" + h.Prices[0].Zone + "), the catalog by zone id (use1-az1); " +
			"the prices are kept under the names and replace the catalog's zone-id rows of their types and regions. A refresh with AWS credentials maps them (EC2 DescribeAvailabilityZones)"}
}

// zones asks EC2 which zone id each of the account's zone names in region
// is (DescribeAvailabilityZones, all zones including Local Zones).
func (f *fetcher) zones(region string) (ZoneIDs, error) {
	what := "aws DescribeAvailabilityZones " + region
	form := url.Values{"Action": {"DescribeAvailabilityZones"}, "Version": {ec2APIVersion}, "AllAvailabilityZones": {"true"}}
	rc, err := f.post(ec2Endpoint(region), what, "ec2", region, []byte(form.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	ids, err := ParseZones(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	f.progress(what)
	return ids, nil
}
