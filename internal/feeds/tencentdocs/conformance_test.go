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

// TestEveryPriceIsItsSourceRow: every imported price and subscription
// equals its source row, read without the feed's parsers; every GPU row of
// every page is imported or set aside for a later page's equal price.
func TestEveryPriceIsItsSourceRow(t *testing.T) {
	res, _ := read(t)
	list, cvm, ov := listSourceRows(t), cvmSourceRows(t), overviewSourceRows(t)
	main := mainland()
	used := map[string]bool{}
	offered := map[string]bool{}
	for _, o := range res.Offerings {
		file, line := origin(t, o.Origin)
		used[o.Origin] = true
		offered[o.InstanceType+" "+o.Region] = true
		p := o.OnDemand
		var want decimal.Decimal
		var cur, src, asOf, region, zone string
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
		if !main[c.Region] || !offered[c.InstanceType+" "+c.Region] {
			t.Errorf("%s: %s subscription in %s, not a mainland region the feed offers it in", c.Origin, c.InstanceType, c.Region)
		}
	}
	for line, r := range list {
		if subscribed[line] == 0 {
			t.Errorf("China-site row %d (%s): no 包年包月 subscription yielded", line, r.cells[0])
		}
	}
	superseded := map[string]feeds.LeftOut{}
	for _, l := range res.LeftOut {
		superseded[l.Origin] = l
	}
	for line, r := range cvm {
		o := fmt.Sprintf("%s:%d", files.CVM.Path, line)
		if !strings.HasPrefix(r.cells[0], "GPU ") || used[o] {
			continue
		}
		// The GPU overview prices Guangzhou later (2020-07-21); both pages give the same prices.
		if l, ok := superseded[o]; !ok || r.section != "Guangzhou" || !strings.Contains(l.What, "agrees with "+files.Overview.Source) {
			t.Errorf("%s: GPU row %s %s neither imported nor set aside for an equal later price (%+v)", o, r.section, r.cells[1], l)
		}
	}
	for line, r := range ov {
		if o := fmt.Sprintf("%s:%d", files.Overview.Path, line); !used[o] {
			t.Errorf("%s: GPU overview row %s not imported", o, r.cells[0])
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
			if want := m.Low.String() + " - " + m.High.String() + " CNY a month"; !strings.Contains(c.Note, want) || !strings.Contains(c.Note, "upper end") {
				t.Errorf("%s: %s note %q; want %q and the upper end", c.Origin, c.InstanceType, c.Note, want)
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

// TestCounts pins what the real pages yield, so a change is seen.
func TestCounts(t *testing.T) {
	res, _ := read(t)
	types, regions, byCurrency := map[string]bool{}, map[string]bool{}, map[string]int{}
	for _, o := range res.Offerings {
		types[o.InstanceType], regions[o.Region] = true, true
		byCurrency[o.OnDemand.Currency]++
	}
	// 94 CVM-page offerings (111 GPU rows less 17 in Guangzhou the GPU
	// overview prices later), 21 GPU-overview ones (Guangzhou Zone 3) and
	// 56 China-site ones: GT4 in 4 regions, GN10Xp in 5, GI3X in 6, GN6 in 1.
	if len(res.Offerings) != 171 || byCurrency["USD"] != 115 || byCurrency["CNY"] != 56 {
		t.Errorf("%d offerings (%v); want 171: 115 USD, 56 CNY", len(res.Offerings), byCurrency)
	}
	if len(types) != 30 || len(regions) != 9 {
		t.Errorf("%d types in %d regions; want 30 in 9", len(types), len(regions))
	}
	if len(res.Commitments) != 150 {
		t.Errorf("%d subscriptions; want 150 (each China-site row in each mainland region its type is offered in)", len(res.Commitments))
	}
}
