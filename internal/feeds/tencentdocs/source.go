package tencentdocs

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// The commitment a 包年包月 price becomes, as the catalog names it
// (catalog.ModelSubscription, catalog.PayMonthly; feeds import nothing of
// the catalog): a one-month prepaid subscription, paid monthly.
const (
	Model   = "subscription"
	Term    = "1mo"
	Payment = "monthly"
)

// provider is the catalog's name of Tencent Cloud.
const provider = "tencent"

// File is one page the feed reads: its path under shared/data, the source
// id that cites it (one per file and commit) and the date its prices are
// as of (YYYY-MM-DD).
type File struct {
	Path   string
	Source string
	AsOf   string
}

// Files are the three pages.
type Files struct {
	List     File // the China site's GPU price overview (the CSV transcription), CNY
	CVM      File // the international CVM Linux price page, USD per region
	Overview File // the international GPU price overview, USD for one zone
}

// Feed is Tencent's published GPU prices as a feeds.Source.
type Feed struct {
	Files Files
}

// New returns the feed of the three pages.
func New(files Files) *Feed { return &Feed{Files: files} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "tencentdocs" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title: "Tencent Cloud's own GPU price pages: the China site's 价格总览 (CNY, mainland China) and the international site's CVM and GPU price pages (USD per region)",
		Reads: []feeds.Input{
			{Root: feeds.Shared, Path: f.Files.List.Path, Cites: []string{f.Files.List.Source}},
			{Root: feeds.Shared, Path: f.Files.CVM.Path, Cites: []string{f.Files.CVM.Source}},
			{Root: feeds.Shared, Path: f.Files.Overview.Path, Cites: []string{f.Files.Overview.Source}},
		},
		Yields: "pay-as-you-go offerings per GPU instance type and region: in each mainland region Tencent's instance documentation sells a type in " +
			"(" + AvailabilitySource + ") or a page prices it in, the China site's CNY list price, a range priced at its " + PricedEnd + "; elsewhere, and for a " +
			"mainland type the list lacks, the region's own USD price from the international pages (the later page first); and each 包年包月 price as a " +
			"1-month subscription commitment (CNY per month, from the same row and at the same end of a range as the pay-as-you-go price) in every " +
			"mainland region the type is offered in; no specs (data/curated/tencent.yaml gives them)",
	}
}

var dateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })

// check refuses a configuration that could not cite its prices.
func (fs Files) check() error {
	for _, f := range []File{fs.List, fs.CVM, fs.Overview} {
		if f.Path == "" || f.Source == "" || !dateRE().MatchString(f.AsOf) {
			return fmt.Errorf("tencentdocs: file %q needs a path, a source id and an as-of date YYYY-MM-DD (source %q, as of %q)", f.Path, f.Source, f.AsOf)
		}
	}
	return nil
}

// Offers reads the three pages and places their quotes: one Offer per
// instance type and region, with both ends of every range and the quotes
// set aside, and the rows left out with the reason.
func (f *Feed) Offers(in feeds.Inputs) ([]Offer, []feeds.LeftOut, error) {
	if err := f.Files.check(); err != nil {
		return nil, nil, err
	}
	list, err := feeds.ParseFile(in, feeds.Shared, f.Files.List.Path, ParseList)
	if err != nil {
		return nil, nil, err
	}
	cvm, err := feeds.ParseFile(in, feeds.Shared, f.Files.CVM.Path, ParseCVMPage)
	if err != nil {
		return nil, nil, err
	}
	ov, err := feeds.ParseFile(in, feeds.Shared, f.Files.Overview.Path, ParseOverview)
	if err != nil {
		return nil, nil, err
	}
	offers, left := join(f.Files, list, cvm, ov)
	return offers, left, nil
}

// Read implements feeds.Source: each Offer becomes an offering priced at
// its hourly quote's Priced end, and its 包年包月 quote a subscription
// commitment at the same end; a range says so in the commitment's note,
// which cost shows beside the comparison.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	offers, left, err := f.Offers(in)
	if err != nil {
		return nil, err
	}
	res := &feeds.Result{LeftOut: left}
	for _, o := range offers {
		q := o.Hourly
		place := ""
		if q.Place != mainlandPlace {
			place = q.Place
		}
		res.Offerings = append(res.Offerings, feeds.Offering{Origin: q.Origin, Provider: provider, InstanceType: o.InstanceType,
			Region: o.Region, Zone: o.Zone, SourceRegion: place, OnDemand: feeds.Known(q.Priced(), q.Currency, q.Source, q.AsOf)})
		if m := o.Monthly; m != nil {
			c := feeds.Commitment{Origin: m.Origin, Provider: provider, InstanceType: o.InstanceType,
				Region: o.Region, Model: Model, Term: Term, Payment: Payment, Monthly: m.Priced(), Currency: m.Currency, Source: m.Source, AsOf: m.AsOf}
			c.Note = rangeNote(o.InstanceType, *m, q)
			res.Commitments = append(res.Commitments, c)
		}
	}
	return res, nil
}

// rangeNote says, where the page gives the 包年包月 price or the
// pay-as-you-go price it is compared with as a range, both ranges and the
// end they are priced at; "" where neither is a range.
func rangeNote(typ string, monthly, hourly Quote) string {
	if !monthly.IsRange() && !hourly.IsRange() {
		return ""
	}
	return fmt.Sprintf("包年包月 of %s: the price page gives %s %s a month and pay-as-you-go %s %s an hour, differing by region without saying which; both priced at the %s, the most they can cost",
		typ, rangeText(monthly), monthly.Currency, rangeText(hourly), hourly.Currency, PricedEnd)
}
