package catalog

import (
	"slices"
	"testing"
)

// TestRetiredOfferingsLeftOut: Azure's NCv3 sizes, retired on 2025-09-30, are
// out of default queries from that day on, and back with IncludeRetired.
func TestRetiredOfferingsLeftOut(t *testing.T) {
	c := mustDefault(t)
	retired := []string{"Standard_NC6s_v3", "Standard_NC12s_v3", "Standard_NC24s_v3", "Standard_NC24rs_v3"}
	all := 0 // every region Microsoft's table priced them in
	for i := range c.Offerings {
		if o := &c.Offerings[i]; o.Provider == "azure" && slices.Contains(retired, o.InstanceType) {
			all++
		}
	}
	if all < 4 {
		t.Fatalf("%d NCv3 offerings in the catalog, want the four sizes at least", all)
	}
	tests := []struct {
		today   string
		include bool
		want    int
	}{
		{"2026-11-30", false, 0},
		{"2025-09-30", false, 0},   // retired that day
		{"2025-09-29", false, all}, // still sold the day before
		{"2026-11-30", true, all},
	}
	for _, tt := range tests {
		rows, err := c.Query(Query{Providers: []string{"azure"}, InstanceTypes: retired, Today: tt.today, IncludeRetired: tt.include, AllRegions: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != tt.want {
			t.Errorf("on %s, include %v: %d NCv3 rows, want %d", tt.today, tt.include, len(rows), tt.want)
		}
		for _, r := range rows {
			if o := r.Offering; o.Retired != "2025-09-30" || c.Source(o.RetiredSource) == nil {
				t.Errorf("%s: retired %q from %q, want 2025-09-30 with a known source", o.Key(), o.Retired, o.RetiredSource)
			}
		}
	}
	// The default query (today) keeps the sizes that are still sold.
	rows, _ := c.Query(Query{Providers: []string{"azure"}, AllRegions: true})
	if len(rows) == 0 {
		t.Fatal("no Azure offering left")
	}
	for _, r := range rows {
		if r.Offering.Retired != "" {
			t.Errorf("%s (retired %s) in a default query", r.Offering.Key(), r.Offering.Retired)
		}
	}
}
