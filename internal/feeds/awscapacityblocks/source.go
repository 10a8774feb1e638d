// Package awscapacityblocks reads the price table of Amazon EC2 Capacity
// Blocks for ML: GPU and Trainium capacity reserved for a fixed block of
// days (1 to 14, then 7-day steps to 182), paid upfront, never interrupted.
// The table (a monthly scrape of AWS's Capacity Blocks pricing page, kept
// in shared/data/price-sources) gives the price per instance-hour of each
// instance type in each region or Local Zone that sells it.
//
// Each row becomes a feeds.Commitment of model "capacity-block", term
// "block" (the buyer picks the length; the cost engine rounds a job up to a
// length AWS sells), payment all-upfront, with the hourly rate. The build
// keeps the rows of offerings the catalog lists and reports the others
// (Local Zones, GovCloud, regions without the instance type) as left out.
package awscapacityblocks

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// The commitment model and term of a Capacity Block, as the catalog names
// them (catalog.ModelCapacityBlock, catalog.TermBlock; feeds import nothing
// of the catalog).
const (
	Model = "capacity-block"
	Term  = "block"
)

// Feed is the Capacity Block price table as a feeds.Source.
type Feed struct {
	Path   string // under shared/data
	Source string // the source id of the table at its commit
}

// New returns the feed of the table at path, cited by source.
func New(path, source string) *Feed { return &Feed{Path: path, Source: source} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "aws-capacity-blocks" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "Amazon EC2 Capacity Blocks for ML prices (a scrape of AWS's pricing page), per instance-hour by region",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: []string{f.Source}}},
		Yields: "capacity-block commitments (USD per instance-hour, paid upfront for the block), dated by the table's last_updated; no specs",
	}
}

// Read implements feeds.Source.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	t, err := feeds.ParseFile(in, feeds.Shared, f.Path, Parse)
	if err != nil {
		return nil, err
	}
	asOf := t.Updated.Format("2006-01-02")
	res := &feeds.Result{}
	for _, r := range t.Rows {
		res.Commitments = append(res.Commitments, feeds.Commitment{
			Origin: fmt.Sprintf("%s:%d", f.Path, r.Line), Provider: "aws", InstanceType: r.InstanceType, Region: r.RegionCode,
			Model: Model, Term: Term, Payment: "all-upfront", Hourly: r.Hourly, Currency: "USD", Source: f.Source, AsOf: asOf,
		})
	}
	return res, nil
}
