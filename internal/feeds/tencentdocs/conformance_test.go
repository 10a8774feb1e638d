package tencentdocs_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/feedstest"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentdocs"
)

func TestConformance(t *testing.T) {
	feedstest.Run(t, feed(), feedstest.Want{Rows: map[string]int{
		files.List.Path:     len(listSourceRows(t)),
		files.CVM.Path:      len(cvmSourceRows(t)),
		files.Overview.Path: len(overviewSourceRows(t)),
	}})
}

// SOURCE.md's counts of the pages.
func TestSourceCounts(t *testing.T) {
	gpuRows, gpuRegions := 0, map[string]bool{}
	for _, r := range cvmSourceRows(t) {
		if strings.HasPrefix(r.cells[0], "GPU ") {
			gpuRows++
			gpuRegions[r.section] = true
		}
	}
	if n := len(listSourceRows(t)); n != 30 {
		t.Errorf("China-site list: %d rows, SOURCE.md counts 30", n)
	}
	if gpuRows != 111 || len(gpuRegions) != 9 {
		t.Errorf("CVM page: %d GPU rows in %d regions, SOURCE.md counts 111 in 9", gpuRows, len(gpuRegions))
	}
	if n := len(overviewSourceRows(t)); n != 21 {
		t.Errorf("GPU overview: %d rows, SOURCE.md counts 21", n)
	}
}

func origin(t *testing.T, o string) (string, int) {
	t.Helper()
	i := strings.LastIndexByte(o, ':')
	n, err := strconv.Atoi(o[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("origin %q is not file:line", o)
	}
	return o[:i], n
}

func dec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("source value %q: %v", s, err)
	}
	return d
}

func mainland() map[string]bool {
	m := map[string]bool{}
	for _, r := range tencentdocs.Regions() {
		if r.Mainland {
			m[r.Name] = true
		}
	}
	return m
}

// listedTypes is the instance types the China-site list gives.
func listedTypes(t *testing.T) map[string]int {
	lines := map[string]int{}
	for line, r := range listSourceRows(t) {
		lines[r.cells[0]] = line
	}
	return lines
}

// TestEveryPriceIsItsSourceRow: every imported price and subscription
// equals its source row, read without the feed's parsers: in a mainland
// region every type the China-site list gives is priced from that list
// (hourly_cny_high, CNY), the international pages elsewhere; every GPU row
// of every page is imported or left out for the China-site list.
func TestEveryPriceIsItsSourceRow(t *testing.T) {
	res, _ := read(t)
	list, cvm, ov := listSourceRows(t), cvmSourceRows(t), overviewSourceRows(t)
	listed := listedTypes(t)
	main := mainland()
	used := map[string]bool{}
	offered := map[string]feeds.Offering{}
	for _, o := range res.Offerings {
		file, line := origin(t, o.Origin)
		used[o.Origin] = true
		offered[o.InstanceType+" "+o.Region] = o
		p := o.OnDemand
		var want decimal.Decimal
		var cur, src, asOf, region, zone string
		if _, ok := listed[o.InstanceType]; ok && main[o.Region] && file != files.List.Path {
			t.Errorf("%s: %s %s is in mainland China and on the China-site list, but priced from %s", o.Origin, o.InstanceType, o.Region, file)
		}
		switch file {
		case files.List.Path: // instance_type,gpu,monthly_low,monthly_high,hourly_low,hourly_high
			r := list[line]
			if r.cells == nil || r.cells[0] != o.InstanceType || !main[o.Region] {
				t.Errorf("%s: %s %s is not that row's type in a mainland region", o.Origin, o.InstanceType, o.Region)
				continue
			}
			want, cur, src, asOf, region = dec(t, r.cells[5]), "CNY", files.List.Source, files.List.AsOf, o.Region
		case files.CVM.Path: // Model, Specification, vCPU, MEM, Processor, Fee
			r := cvm[line]
			reg, ok := tencentdocs.RegionForHeading(r.section)
			if r.cells == nil || r.cells[1] != o.InstanceType || !ok {
				t.Errorf("%s: %s is not that row's type", o.Origin, o.InstanceType)
				continue
			}
			want, cur, src, asOf, region = dec(t, strings.TrimSuffix(r.cells[5], "USD/hr")), "USD", files.CVM.Source, files.CVM.AsOf, reg.Name
		case files.Overview.Path: // Specification, GPU, GPU memory, vCPU, Memory, Pay-as-You-Go
			r := ov[line]
			if r.cells == nil || r.cells[0] != o.InstanceType {
				t.Errorf("%s: %s is not that row's type", o.Origin, o.InstanceType)
				continue
			}
			want, cur, src, asOf, region, zone = dec(t, strings.TrimSuffix(r.cells[5], " USD/hr")), "USD", files.Overview.Source, files.Overview.AsOf, "ap-guangzhou", "ap-guangzhou-3"
		default:
			t.Fatalf("%s: not a file the feed reads", o.Origin)
		}
		if !p.Known || !p.Amount.Equal(want) || p.Currency != cur || p.Source != src || p.AsOf != asOf || o.Region != region || o.Zone != zone || o.Provider != "tencent" {
			t.Errorf("%s: %s %s/%s priced %s %s (%s, %s); want %s %s (%s, %s) in %s/%s", o.Origin, o.InstanceType, o.Region, o.Zone,
				p.Amount, p.Currency, p.Source, p.AsOf, want, cur, src, asOf, region, zone)
		}
	}
	subscribed := map[int]int{}
	for _, c := range res.Commitments {
		file, line := origin(t, c.Origin)
		r := list[line]
		if file != files.List.Path || r.cells == nil || r.cells[0] != c.InstanceType {
			t.Errorf("%s: commitment of %s is not a China-site row of that type", c.Origin, c.InstanceType)
			continue
		}
		subscribed[line]++
		if !c.Monthly.Equal(dec(t, r.cells[3])) || c.Currency != "CNY" || c.Model != "subscription" || c.Term != "1mo" || c.Payment != "monthly" ||
			!c.Upfront.IsZero() || !c.Hourly.IsZero() || c.Source != files.List.Source || c.AsOf != files.List.AsOf || c.Provider != "tencent" {
			t.Errorf("%s: %+v; want %s CNY a month (monthly_cny_high), subscription 1mo monthly", c.Origin, c, r.cells[3])
		}
		o, ok := offered[c.InstanceType+" "+c.Region]
		if !main[c.Region] || !ok {
			t.Errorf("%s: %s subscription in %s, not a mainland region the feed offers it in", c.Origin, c.InstanceType, c.Region)
			continue
		}
		// The pay-as-you-go price it is compared with: the same row, the same list, the same end of a range.
		if o.Origin != c.Origin || o.OnDemand.Source != c.Source || o.OnDemand.AsOf != c.AsOf || o.OnDemand.Currency != c.Currency ||
			!o.OnDemand.Amount.Equal(dec(t, r.cells[5])) {
			t.Errorf("%s %s: subscription %s %s (%s, %s) against on-demand %s %s (%s, %s, %s); want the same row's hourly_cny_high %s CNY",
				c.InstanceType, c.Region, c.Monthly, c.Currency, c.Source, c.Origin, o.OnDemand.Amount, o.OnDemand.Currency, o.OnDemand.Source, o.Origin, o.OnDemand.AsOf, r.cells[5])
		}
	}
	for line, r := range list {
		if subscribed[line] == 0 {
			t.Errorf("China-site row %d (%s): no 包年包月 subscription yielded", line, r.cells[0])
		}
	}
	leftOut := map[string]feeds.LeftOut{}
	for _, l := range res.LeftOut {
		leftOut[l.Origin] = l
	}
	// An international row not imported is a mainland region's price of a
	// type the China-site list gives: left out, naming the list's price.
	setAside := func(o, region, typ string) {
		t.Helper()
		l, ok := leftOut[o]
		line, isListed := listed[typ]
		if !ok || !main[region] || !isListed || !strings.Contains(l.Reason, "China site's list prices the type") {
			t.Errorf("%s: GPU row %s %s neither imported nor left out for the China-site list (%+v)", o, region, typ, l)
			return
		}
		if r := list[line]; !strings.Contains(l.What, r.cells[4]) || !strings.Contains(l.What, r.cells[5]+" CNY/hr") {
			t.Errorf("%s: left out as %q; want the list's %s - %s CNY/hr named", o, l.What, r.cells[4], r.cells[5])
		}
	}
	for line, r := range cvm {
		o := fmt.Sprintf("%s:%d", files.CVM.Path, line)
		if !strings.HasPrefix(r.cells[0], "GPU ") || used[o] {
			continue
		}
		reg, _ := tencentdocs.RegionForHeading(r.section)
		setAside(o, reg.Name, r.cells[1])
	}
	for line, r := range ov {
		if o := fmt.Sprintf("%s:%d", files.Overview.Path, line); !used[o] {
			setAside(o, "ap-guangzhou", r.cells[0])
		}
	}
}

// TestMainlandOnOneList: the user trial's cases. GN10X, GN10Xp, GT4 and
// GN7 are priced pay-as-you-go from the China-site list (CNY, the upper
// end of a range) in every mainland region, where the international pages
// priced GN10X, GN7 and Guangzhou's GN10Xp in USD before; outside mainland
// China the international pages' USD prices stay.
func TestMainlandOnOneList(t *testing.T) {
	res, _ := read(t)
	got := map[string]feeds.Offering{}
	for _, o := range res.Offerings {
		got[o.InstanceType+"/"+o.Region+"/"+o.Zone] = o
	}
	for _, tc := range []struct{ key, price, cur, source string }{
		{"GN10X.2XLARGE40/ap-beijing/", "18.04", "CNY", files.List.Source},   // was 2.68 USD (the CVM page's Beijing)
		{"GN10X.2XLARGE40/ap-nanjing/", "18.04", "CNY", files.List.Source},   // was 2.56 USD
		{"GN10X.2XLARGE40/ap-guangzhou/", "18.04", "CNY", files.List.Source}, // was 2.68 USD in ap-guangzhou-3 (the GPU overview)
		{"GN10Xp.2XLARGE40/ap-beijing/", "11.98", "CNY", files.List.Source},
		{"GN10Xp.2XLARGE40/ap-guangzhou/", "11.98", "CNY", files.List.Source}, // was 1.72 USD in ap-guangzhou-3
		{"GT4.41XLARGE948/ap-shanghai/", "237.51", "CNY", files.List.Source},
		{"GN7.5XLARGE80/ap-guangzhou/", "13.89", "CNY", files.List.Source}, // was 2.01 USD; the page gives 12.5 - 13.89
		{"GN7.5XLARGE80/ap-chengdu/", "13.89", "CNY", files.List.Source},   // was 1.77 USD
		{"GN10X.2XLARGE40/ap-singapore/", "2.48", "USD", files.CVM.Source}, // not mainland: the CVM page's own price
		{"GN7.5XLARGE80/na-siliconvalley/", "1.63", "USD", files.CVM.Source},
	} {
		o, ok := got[tc.key]
		if !ok {
			t.Errorf("%s: not offered", tc.key)
			continue
		}
		if p := o.OnDemand; !p.Known || p.Amount.String() != tc.price || p.Currency != tc.cur || p.Source != tc.source {
			t.Errorf("%s: on-demand %s %s (%s); want %s %s (%s)", tc.key, p.Amount, p.Currency, p.Source, tc.price, tc.cur, tc.source)
		}
	}
	for k := range got {
		if strings.HasSuffix(k, "/ap-guangzhou-3") {
			t.Errorf("%s: a zone offering; the China-site list prices mainland regions, not zones", k)
		}
	}
}

// TestChinaListPrices: the rule, region by region.
func TestChinaListPrices(t *testing.T) {
	for _, tc := range []struct {
		listed bool
		region string
		want   bool
	}{
		{true, "ap-beijing", true}, {true, "ap-guangzhou", true}, {true, "ap-chongqing", true},
		{true, "ap-hongkong", false}, {true, "ap-singapore", false}, {true, "na-siliconvalley", false},
		{false, "ap-beijing", false}, {true, "ap-nowhere", false},
	} {
		if got := tencentdocs.ChinaListPrices(tc.listed, tc.region); got != tc.want {
			t.Errorf("ChinaListPrices(%v, %q) = %v, want %v", tc.listed, tc.region, got, tc.want)
		}
	}
}

// TestRangesKeepBothEnds: a China-site range is kept whole in the feed's
// own records and priced at its upper end.
func TestRangesKeepBothEnds(t *testing.T) {
	offers, _, err := feed().Offers(feedstest.Inputs(t))
	if err != nil {
		t.Fatal(err)
	}
	list := listSourceRows(t)
	ranges := map[string]bool{}
	check := func(q *tencentdocs.Quote, low, high int) {
		t.Helper()
		file, line := origin(t, q.Origin)
		if file != files.List.Path {
			return
		}
		r := list[line]
		if !q.Low.Equal(dec(t, r.cells[low])) || !q.High.Equal(dec(t, r.cells[high])) {
			t.Errorf("%s: %s quote %s-%s; want %s-%s", q.Origin, q.InstanceType, q.Low, q.High, r.cells[low], r.cells[high])
		}
		if q.IsRange() {
			ranges[q.InstanceType] = true
		}
	}
	for _, o := range offers {
		check(&o.Hourly, 4, 5)
		for i := range o.SetAside {
			check(&o.SetAside[i], 4, 5)
		}
		if o.Monthly != nil {
			check(o.Monthly, 2, 3)
		}
	}
	// GN10X (4 sizes), GN8 (4) and GN7 (7) are ranges on the page.
	want := 0
	for _, r := range list {
		if r.cells[2] != r.cells[3] || r.cells[4] != r.cells[5] {
			want++
		}
	}
	if len(ranges) != want || want != 15 {
		t.Errorf("%d types quoted as ranges; the list has %d range rows, the page 15", len(ranges), want)
	}
	// The yielded subscriptions of those types say both ends (the note
	// reaches the catalog and cost's explanation); the others say nothing.
	res, _ := read(t)
	noted := 0
	for _, c := range res.Commitments {
		m := monthlyOf(offers, c.InstanceType, c.Region)
		switch {
		case m == nil:
			t.Errorf("%s: %s %s has no quote", c.Origin, c.InstanceType, c.Region)
		case m.IsRange():
			noted++
			h := hourlyOf(offers, c.InstanceType, c.Region)
			for _, want := range []string{m.Low.String() + " - " + m.High.String() + " CNY a month", h.Low.String() + " - " + h.High.String() + " CNY an hour", "both priced at the upper end"} {
				if !strings.Contains(c.Note, want) {
					t.Errorf("%s: %s note %q; want %q", c.Origin, c.InstanceType, c.Note, want)
				}
			}
		case c.Note != "":
			t.Errorf("%s: %s has a note %q but no range", c.Origin, c.InstanceType, c.Note)
		}
	}
	if noted != 84 {
		t.Errorf("%d subscriptions carry a range note; the pages give 84", noted)
	}
}

// monthlyOf is the 包年包月 quote of a type in a region, or nil.
func monthlyOf(offers []tencentdocs.Offer, typ, region string) *tencentdocs.Quote {
	for i := range offers {
		if o := &offers[i]; o.InstanceType == typ && o.Region == region {
			return o.Monthly
		}
	}
	return nil
}

// hourlyOf is the pay-as-you-go quote a type is priced by in a region, or nil.
func hourlyOf(offers []tencentdocs.Offer, typ, region string) *tencentdocs.Quote {
	for i := range offers {
		if o := &offers[i]; o.InstanceType == typ && o.Region == region {
			return &o.Hourly
		}
	}
	return nil
}

// TestCounts pins what the real pages yield, so a change is seen.
func TestCounts(t *testing.T) {
	res, _ := read(t)
	types, regions, byCurrency := map[string]bool{}, map[string]bool{}, map[string]int{}
	for _, o := range res.Offerings {
		types[o.InstanceType], regions[o.Region] = true, true
		byCurrency[o.OnDemand.Currency]++
	}
	// 21 CVM-page offerings outside mainland China (Hong Kong, Singapore,
	// Silicon Valley) and 150 China-site ones, one per China-site subscription:
	// every type the list gives in each mainland region it is sold or priced
	// in. The other 90 CVM GPU rows and the GPU overview's 21 (all mainland,
	// all listed types) are left out for the list.
	if len(res.Offerings) != 171 || byCurrency["USD"] != 21 || byCurrency["CNY"] != 150 {
		t.Errorf("%d offerings (%v); want 171: 21 USD, 150 CNY", len(res.Offerings), byCurrency)
	}
	if len(types) != 30 || len(regions) != 9 {
		t.Errorf("%d types in %d regions; want 30 in 9", len(types), len(regions))
	}
	if len(res.Commitments) != 150 {
		t.Errorf("%d subscriptions; want 150 (each China-site row in each mainland region its type is offered in)", len(res.Commitments))
	}
}
