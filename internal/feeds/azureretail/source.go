package azureretail

import (
	"io"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Feed is saved Retail Prices responses as a feeds.Source, so the
// conformance suite runs on them.
type Feed struct {
	Files  []string // under the shared root
	Source string   // source id
	AsOf   string
	Sizes  []string // as Importer.Sizes
}

// ID implements feeds.Source.
func (f *Feed) ID() string { return "azureretail" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	d := feeds.Description{
		Title:  "Azure Retail Prices API responses (saved)",
		Yields: "GPU sizes' pay-as-you-go and Spot prices per region, Windows licence prices over Linux (Azure Hybrid Benefit waives them), 1y/3y reservations (term totals, upfront or monthly) and savings-plan hourly rates",
	}
	for _, p := range f.Files {
		d.Reads = append(d.Reads, feeds.Input{Root: feeds.Shared, Path: p, Cites: []string{f.Source}})
	}
	return d
}

// Read implements feeds.Source.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	im := &Importer{Sizes: f.Sizes}
	all := &feeds.Result{}
	for _, p := range f.Files {
		res, err := feeds.ParseFile(in, feeds.Shared, p, func(r io.Reader) (*feeds.Result, error) {
			return im.Parse(Format, r, feeds.ParseOptions{Source: f.Source, AsOf: f.AsOf, Origin: p})
		})
		if err != nil {
			return nil, err
		}
		all.Offerings = append(all.Offerings, res.Offerings...)
		all.Commitments = append(all.Commitments, res.Commitments...)
		all.Licenses = append(all.Licenses, res.Licenses...)
		all.LeftOut = append(all.LeftOut, res.LeftOut...)
	}
	return all, nil
}
