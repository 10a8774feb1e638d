package gcpbilling

import (
	"io"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Feed is a recorded skus.list response under shared/data as a
// feeds.Source, so the conformance suite runs on real SKUs.
type Feed struct {
	Path   string // under shared/data
	Source string // source id
	AsOf   string // the date the recorded prices were current
	Specs  []feeds.Spec
}

// NewFeed returns the feed of a recorded response priced for the shapes.
func NewFeed(path, source, asOf string, specs []feeds.Spec) *Feed {
	return &Feed{Path: path, Source: source, AsOf: asOf, Specs: specs}
}

// ID implements feeds.Source.
func (f *Feed) ID() string { return "gcpbilling" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "GCP Cloud Billing Catalog SKUs of Compute Engine (a recorded skus.list page)",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: []string{f.Source}}},
		Yields: "GPU machine types' hourly on-demand and spot prices and 1y/3y committed-use hourly fees, each the sum of its GPU, vCPU and RAM SKUs",
	}
}

// Read implements feeds.Source.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	im := New(f.Specs)
	return feeds.ParseFile(in, feeds.Shared, f.Path, func(r io.Reader) (*feeds.Result, error) {
		return im.Parse(Format, r, feeds.ParseOptions{Source: f.Source, AsOf: f.AsOf, Origin: f.Path})
	})
}
