package awspricelist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// File is one AWS Price List file (bulk offer file or GetProducts element)
// with the source id it is cited by.
type File struct {
	Path   string // under shared/data
	Source string
}

// Feed is AWS Price List files as a feeds.Source.
type Feed struct{ Files []File }

// New returns the feed.
func New(files ...File) *Feed { return &Feed{Files: files} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "awspricelist" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	d := feeds.Description{
		Title:  "AWS Price List API files (bulk offer file, GetProducts elements)",
		Yields: "on-demand prices and Reserved Instance prices (upfront and hourly fees) of Linux, shared-tenancy products, dated by publicationDate; no specs",
	}
	for _, x := range f.Files {
		d.Reads = append(d.Reads, feeds.Input{Root: feeds.Shared, Path: x.Path, Cites: []string{x.Source}})
	}
	return d
}

// regions maps the Price List's location names to region codes. A location
// not listed here is left out, with that reason.
var regions = map[string]string{
	"US East (N. Virginia)":   "us-east-1",
	"US East (Ohio)":          "us-east-2",
	"US West (N. California)": "us-west-1",
	"US West (Oregon)":        "us-west-2",
	"EU (Ireland)":            "eu-west-1",
	"Europe (Ireland)":        "eu-west-1",
}

// Read implements feeds.Source. Products without GPUs, and those other than Linux, shared tenancy,
// used capacity and no pre-installed software are left out, as are products
// without an on-demand price.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	res := &feeds.Result{}
	for _, x := range f.Files {
		b, err := feeds.ParseFile(in, feeds.Shared, x.Path, io.ReadAll)
		if err != nil {
			return nil, err
		}
		var head struct {
			PublicationDate string `json:"publicationDate"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, fmt.Errorf("%s: %w", x.Path, err)
		}
		t, err := time.Parse(time.RFC3339, head.PublicationDate)
		if err != nil {
			return nil, fmt.Errorf("%s: publicationDate %q is not RFC 3339", x.Path, head.PublicationDate)
		}
		asOf := t.Format("2006-01-02")
		ps, err := Parse(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x.Path, err)
		}
		for _, p := range ps {
			origin := x.Path + "#" + p.SKU
			what := p.InstanceType + " " + p.Location
			region, ok := regions[p.Location]
			switch {
			case p.GPUs == "" || p.GPUs == "0":
				res.Leave(origin, what, "no GPU (the product has no gpu attribute); gpuscout lists GPU instances")
				continue
			case p.OS != "Linux" || p.Tenancy != "Shared" || p.PreInstalledSw != "NA" || (p.CapacityStatus != "" && p.CapacityStatus != "Used"):
				res.Leave(origin, what, fmt.Sprintf("%s, %s tenancy, software %s, capacity %s: gpuscout prices Linux, shared tenancy, no software, used capacity",
					p.OS, p.Tenancy, p.PreInstalledSw, p.CapacityStatus))
				continue
			case !ok:
				res.Leave(origin, what, fmt.Sprintf("location %q has no region code in the feed", p.Location))
				continue
			case !p.OnDemand.Valid || !p.OnDemand.Decimal.IsPositive():
				res.Leave(origin, what, "no positive on-demand price")
				continue
			}
			res.Offerings = append(res.Offerings, feeds.Offering{Origin: origin, Provider: "aws", InstanceType: p.InstanceType, Region: region,
				OnDemand: feeds.Known(p.OnDemand.Decimal, "USD", x.Source, asOf)})
			for _, r := range p.Reserved {
				if r.Upfront.IsZero() && r.Hourly.IsZero() {
					res.Leave(origin, what+" "+r.OfferTermCode, "a reservation with no fee is not a price")
					continue
				}
				res.Commitments = append(res.Commitments, feeds.Commitment{Origin: origin, Provider: "aws", InstanceType: p.InstanceType, Region: region,
					Model: "reserved", Term: r.Term(), Payment: r.Payment(), Class: r.OfferingClass, Upfront: r.Upfront, Hourly: r.Hourly,
					Currency: "USD", Source: x.Source, AsOf: asOf})
			}
		}
	}
	return res, nil
}
