package tencentdocs

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Quote is one price a page states for an instance type: per hour
// (pay-as-you-go) or per month (包年包月). A China-site quote holds for
// every mainland region at once; where the page gives a range (the price
// differs by region and the page does not say where) Low < High, and the
// feed prices at Priced, the same end for both prices of a row.
type Quote struct {
	Origin       string // "file:line" of the row
	InstanceType string
	Region       string // the region the quote is placed in
	Zone         string // the zone, where the page prices one ("ap-guangzhou-3")
	Place        string // the page's words for where: "Hongkong,China", "Guangzhou Zone 3", "mainland China"
	Low, High    decimal.Decimal
	Currency     string
	Source, AsOf string
}

// IsRange reports a quote the page gives as a range.
func (q Quote) IsRange() bool { return !q.Low.Equal(q.High) }

// PricedEnd names the end of a range the feed prices at, in the words the
// notes and the description use; Priced is that end. It is one rule for
// the pay-as-you-go and the 包年包月 price of a China-site row, so that
// the two are compared at the same end of their ranges.
const PricedEnd = "upper end"

// Priced is the amount the feed prices a quote at: the upper end of a
// range (the most a user in any region it covers can pay), else the price.
func (q Quote) Priced() decimal.Decimal { return q.High }

// Offer is one instance type in one region (and zone) as the feed prices
// it: the hourly quote it is priced by (at its Priced end), the 包年包月
// quote where the China site gives one (from the same row as the hourly
// quote: see ChinaListPrices), and the hourly quotes set aside.
type Offer struct {
	InstanceType string
	Region, Zone string
	Hourly       Quote
	Monthly      *Quote
	SetAside     []Quote
}

// The reasons rows are left out, one string each so reports group them.
const (
	reasonNotGPU     = "not a GPU instance type (the feed prices GPU instances only)"
	reasonSuperseded = "a later page's price for the same type and region is used instead"
	reasonChinaList  = "in mainland China the China site's list prices the type (pay-as-you-go CNY, the same row as its 包年包月 price, so the two compare on one list); the international page's USD price is set aside"
	reasonNoRegion   = "no mainland region sells the type per Tencent's instance documentation, and no page prices it in a region"
	mainlandPlace    = "mainland China"
)

// ChinaListPrices is the one rule of which page prices an instance type in
// a region. In a mainland China region, the China site's list (价格总览)
// prices every type it lists: its pay-as-you-go price per hour, from the
// same row (and the same end of a range, Priced) as the 包年包月 price it
// is compared with, whatever the international pages say of that region.
// Anywhere else, and for a mainland type the list does not give, a
// region's own price from the international pages (USD, the later page
// first) prices it; those offers carry no 包年包月 price, so on-demand and
// subscription never come from different lists.
func ChinaListPrices(listed bool, region string) bool {
	r, ok := regionNamed(region)
	return listed && ok && r.Mainland
}

type typeRegion struct{ typ, region string }

// join places the three pages' quotes (ChinaListPrices decides which
// prices an offer): each region's own quotes from the international pages
// (the latest page's wins) where the China site's list does not price the
// type, then the list in the mainland regions that sell each type. The
// slices come sorted.
func join(files Files, list []ListRow, cvm []CVMRow, ov *Overview) ([]Offer, []feeds.LeftOut) {
	var left []feeds.LeftOut
	own := map[typeRegion][]Quote{}
	for _, r := range cvm {
		origin := fmt.Sprintf("%s:%d", files.CVM.Path, r.Line)
		if !r.GPU() {
			left = append(left, feeds.LeftOut{Origin: origin, What: r.InstanceType + " " + r.Region + " (" + r.Model + ")", Reason: reasonNotGPU})
			continue
		}
		k := typeRegion{r.InstanceType, r.Region}
		own[k] = append(own[k], Quote{Origin: origin, InstanceType: r.InstanceType, Region: r.Region, Place: r.Heading,
			Low: r.Price, High: r.Price, Currency: "USD", Source: files.CVM.Source, AsOf: files.CVM.AsOf})
	}
	for _, r := range ov.Rows {
		k := typeRegion{r.InstanceType, ov.Region.Name}
		own[k] = append(own[k], Quote{Origin: fmt.Sprintf("%s:%d", files.Overview.Path, r.Line), InstanceType: r.InstanceType,
			Region: ov.Region.Name, Zone: ov.Zone, Place: ov.Place, Low: r.Price, High: r.Price, Currency: "USD",
			Source: files.Overview.Source, AsOf: files.Overview.AsOf})
	}
	listed := map[string]bool{}
	for _, r := range list {
		listed[r.InstanceType] = true
	}
	offers := map[typeRegion]*Offer{}
	for k, qs := range own {
		// The latest page first; a zone's own price before a region-wide one.
		slices.SortStableFunc(qs, func(a, b Quote) int {
			return cmp.Or(cmp.Compare(b.AsOf, a.AsOf), cmp.Compare(b.Zone, a.Zone), cmp.Compare(a.Origin, b.Origin))
		})
		if ChinaListPrices(listed[k.typ], k.region) {
			continue // set aside below, beside the list's row
		}
		o := &Offer{InstanceType: k.typ, Region: k.region, Zone: qs[0].Zone, Hourly: qs[0], SetAside: slices.Clone(qs[1:])}
		for _, q := range qs[1:] {
			verb := "agrees with"
			if !q.High.Equal(qs[0].High) {
				verb = "differs from"
			}
			left = append(left, feeds.LeftOut{Origin: q.Origin, Reason: reasonSuperseded,
				What: fmt.Sprintf("%s %s %s %s/hr (%s); %s %s %s %s/hr (%s, %s)", q.InstanceType, q.Region, q.High, q.Currency, q.AsOf,
					verb, qs[0].Source, qs[0].High, qs[0].Currency, qs[0].AsOf, qs[0].Place)})
		}
		offers[k] = o
	}
	for _, r := range list {
		origin := fmt.Sprintf("%s:%d", files.List.Path, r.Line)
		regions := mainlandFor(r.InstanceType, own)
		if len(regions) == 0 {
			left = append(left, feeds.LeftOut{Origin: origin, What: r.InstanceType, Reason: reasonNoRegion})
			continue
		}
		for _, reg := range regions {
			k := typeRegion{r.InstanceType, reg}
			hourly := Quote{Origin: origin, InstanceType: r.InstanceType, Region: reg, Place: mainlandPlace,
				Low: r.HourlyLow, High: r.HourlyHigh, Currency: "CNY", Source: files.List.Source, AsOf: files.List.AsOf}
			monthly := hourly
			monthly.Low, monthly.High = r.MonthlyLow, r.MonthlyHigh
			o := &Offer{InstanceType: r.InstanceType, Region: reg, Hourly: hourly, Monthly: &monthly, SetAside: own[k]}
			for _, q := range own[k] {
				left = append(left, feeds.LeftOut{Origin: q.Origin, Reason: reasonChinaList,
					What: fmt.Sprintf("%s %s %s %s/hr (%s, %s); the China site's list: %s %s/hr (%s, %s)", q.InstanceType, q.Region, q.High, q.Currency, q.Place, q.AsOf,
						rangeText(hourly), hourly.Currency, hourly.Source, hourly.AsOf)})
			}
			offers[k] = o
		}
	}
	out := make([]Offer, 0, len(offers))
	for _, o := range offers {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b Offer) int {
		return cmp.Or(cmp.Compare(a.InstanceType, b.InstanceType), cmp.Compare(a.Region, b.Region), cmp.Compare(a.Zone, b.Zone))
	})
	slices.SortStableFunc(left, func(a, b feeds.LeftOut) int { return compareOrigins(a.Origin, b.Origin) })
	return out, left
}

// rangeText is a quote's amount as the page gives it: "16.21 - 18.04" or "11.98".
func rangeText(q Quote) string {
	if q.IsRange() {
		return q.Low.String() + " - " + q.High.String()
	}
	return q.High.String()
}

// compareOrigins orders "file:line" origins by file, then line number.
func compareOrigins(a, b string) int {
	fa, la := splitOrigin(a)
	fb, lb := splitOrigin(b)
	return cmp.Or(cmp.Compare(fa, fb), cmp.Compare(la, lb), cmp.Compare(a, b))
}

func splitOrigin(o string) (string, int) {
	i := strings.LastIndexByte(o, ':')
	if i < 0 {
		return o, 0
	}
	n, _ := strconv.Atoi(o[i+1:])
	return o[:i], n
}

// mainlandFor is where the China site's list places a type: the mainland
// regions the documentation sells it in, and those a page prices it in.
func mainlandFor(typ string, own map[typeRegion][]Quote) []string {
	rs := MainlandRegions(typ)
	for k := range own {
		if r, ok := regionNamed(k.region); ok && r.Mainland && k.typ == typ && !slices.Contains(rs, k.region) {
			rs = append(rs, k.region)
		}
	}
	slices.Sort(rs)
	return rs
}
