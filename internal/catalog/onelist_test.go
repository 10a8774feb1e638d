package catalog

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/shareddata"
)

// TestMainlandCommitmentsShareTheirOnDemandList: in mainland China an
// offering's on-demand price and each commitment it is compared with come
// from one price list (the same source id and currency), so cost's
// "% below on-demand" and break-even compare like with like. The user
// trial found Tencent's 包年包月 from the China-site list against USD
// on-demand prices of the international site.
func TestMainlandCommitmentsShareTheirOnDemandList(t *testing.T) {
	c := mustDefault(t)
	compared := 0
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if !o.China || !o.OnDemand.Known {
			continue
		}
		for _, x := range c.CommitmentsFor(o) {
			compared++
			if x.Source != o.OnDemand.Source || x.Currency != o.OnDemand.Currency || x.AsOf != o.OnDemand.AsOf {
				t.Errorf("%s: on-demand %s %s (%s, %s) against %s %s %s %s (%s, %s): two price lists", o.Key(), o.OnDemand.Value, o.OnDemand.Currency,
					o.OnDemand.Source, o.OnDemand.AsOf, x.Model, x.Term, x.Monthly, x.Currency, x.Source, x.AsOf)
			}
		}
	}
	if compared != 150 { // Tencent's China-site rows, each in the mainland regions its type is sold in
		t.Errorf("%d mainland commitments compared with on-demand; want 150", compared)
	}
}

// TestTencentMainlandOnDemandIsTheChinaList: GN10X, GN10Xp, GT4 and GN7 in
// every mainland region are priced pay-as-you-go at the China-site list's
// hourly_cny_high, the end its 包年包月 (monthly_cny_high) is priced at,
// read from the CSV without the feed's parser.
func TestTencentMainlandOnDemandIsTheChinaList(t *testing.T) {
	f, err := os.Open(filepath.Join(shareddata.Dir(t), "price-sources", "tencent-qcloud-gpu-price-overview-cny.transcribed.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	type listRow struct{ monthly, hourly string }
	list := map[string]listRow{}
	for _, r := range rows[1:] { // instance_type,gpu,monthly_cny_low,monthly_cny_high,hourly_cny_low,hourly_cny_high
		list[r[0]] = listRow{monthly: r[3], hourly: r[5]}
	}
	c := mustDefault(t)
	seen := map[string]int{}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		fam, _, _ := strings.Cut(o.InstanceType, ".")
		if o.Provider != "tencent" || !o.China || !map[string]bool{"GN10X": true, "GN10Xp": true, "GT4": true, "GN7": true}[fam] {
			continue
		}
		seen[fam]++
		r, ok := list[o.InstanceType]
		if !ok {
			t.Errorf("%s: not on the China-site list", o.Key())
			continue
		}
		if p := o.OnDemand; !p.Known || p.Value.String() != r.hourly || p.Currency != "CNY" || p.Source != "tencent-qcloud-gpu-prices@8ec07296" || o.Zone != "" {
			t.Errorf("%s: on-demand %s %s (%s); want %s CNY (tencent-qcloud-gpu-prices@8ec07296, hourly_cny_high), region-wide", o.Key(), p.Value, p.Currency, p.Source, r.hourly)
		}
		subs := c.CommitmentsFor(o)
		if len(subs) != 1 || subs[0].Monthly.String() != r.monthly || subs[0].Currency != "CNY" {
			t.Errorf("%s: commitments %+v; want one 包年包月 of %s CNY a month (monthly_cny_high)", o.Key(), subs, r.monthly)
		}
	}
	// GN10X: 3 sizes in 6 regions, GN10X.4XLARGE80 in 4; GN10Xp: 4 in 6; GT4: 4 in 4; GN7: 7 in 6.
	for fam, n := range map[string]int{"GN10X": 22, "GN10Xp": 24, "GT4": 16, "GN7": 42} {
		if seen[fam] != n {
			t.Errorf("%s: %d mainland offerings, want %d", fam, seen[fam], n)
		}
	}
}
