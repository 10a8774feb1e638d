package awsprices

import (
	"fmt"
	"io"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// File is one AWS Price List file under shared/data (bulk offer file,
// GetProducts element or response) with the source id it is cited by.
type File struct {
	Path   string // under shared/data
	Source string
}

// PriceListFeed is AWS Price List files as a feeds.Source (registry id
// "awspricelist").
type PriceListFeed struct{ Files []File }

// NewPriceList returns the feed.
func NewPriceList(files ...File) *PriceListFeed { return &PriceListFeed{Files: files} }

// ID implements feeds.Source.
func (f *PriceListFeed) ID() string { return "awspricelist" }

// Describe implements feeds.Source.
func (f *PriceListFeed) Describe() feeds.Description {
	d := feeds.Description{
		Title:  "AWS Price List API files (bulk offer file, GetProducts elements)",
		Yields: "on-demand prices and Reserved Instance prices (upfront and hourly fees) of Linux, shared-tenancy GPU products, dated by publicationDate; no specs",
	}
	for _, x := range f.Files {
		d.Reads = append(d.Reads, feeds.Input{Root: feeds.Shared, Path: x.Path, Cites: []string{x.Source}})
	}
	return d
}

// Read implements feeds.Source: GPUFilter's products with a positive
// on-demand price, dated by the file's publicationDate.
func (f *PriceListFeed) Read(in feeds.Inputs) (*feeds.Result, error) {
	res := &feeds.Result{}
	for _, x := range f.Files {
		pl, err := feeds.ParseFile(in, feeds.Shared, x.Path, func(r io.Reader) (*PriceList, error) {
			pl, _, err := ParsePriceList(r, ListOptions{Origin: x.Path, Keep: GPUFilter})
			return pl, err
		})
		if err != nil {
			return nil, err
		}
		if pl.PublicationDate.IsZero() {
			return nil, fmt.Errorf("%s: no publicationDate", x.Path)
		}
		pl.Records(x.Path, x.Source, pl.PublicationDate.Format("2006-01-02"), res)
	}
	return res, nil
}
