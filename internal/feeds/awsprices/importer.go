package awsprices

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// The offline formats the importer reads.
const (
	FormatOffer       = "aws-offer"
	FormatGetProducts = "aws-getproducts"
	FormatSavingsPlan = "aws-savings-plan"
	FormatSpotAdvisor = "aws-spot-advisor"
	FormatSpotHistory = "aws-spot-history"
)

// Importer is AWS's price feeds as a feeds.Importer.
type Importer struct{}

// New returns the importer.
func New() *Importer { return &Importer{} }

var _ feeds.Importer = (*Importer)(nil)

// Provider implements feeds.Importer.
func (*Importer) Provider() string { return "aws" }

// Formats implements feeds.Importer.
func (*Importer) Formats() []feeds.Format {
	return []feeds.Format{
		{Name: FormatOffer, Title: "the EC2 bulk offer file of a region (pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/REGION/index.json): on-demand and Reserved Instance prices"},
		{Name: FormatGetProducts, Title: "a Pricing API GetProducts response (`aws pricing get-products --service-code AmazonEC2 ...`), or one of its PriceList elements"},
		{Name: FormatSavingsPlan, Title: "the Compute Savings Plans price file of a region (pricing.us-east-1.amazonaws.com/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json lists them)"},
		{Name: FormatSpotAdvisor, Title: "Spot Advisor's spot-advisor-data.json (spot-bid-advisor.s3.amazonaws.com): interruption bands and savings; needs --as-of, the file carries no date"},
		{Name: FormatSpotHistory, Title: "an EC2 DescribeSpotPriceHistory response, XML (Query API) or JSON (`aws ec2 describe-spot-price-history`); each price dated by its own Timestamp"},
	}
}

// Parse implements feeds.Importer. o.Source is required (every price is
// cited). A price list (offer file, GetProducts, Savings Plans file) is
// dated by its publicationDate, or by o.AsOf where given; Spot Advisor's
// file carries no date and needs o.AsOf (else feeds.ErrNoDate); spot
// history prices are dated by their own timestamps.
func (im *Importer) Parse(format string, r io.Reader, o feeds.ParseOptions) (*feeds.Result, error) {
	if o.Source == "" {
		return nil, fmt.Errorf("%s: no source id to cite the prices by", format)
	}
	origin := o.Origin
	if origin == "" {
		origin = format
	}
	res := &feeds.Result{}
	switch format {
	case FormatOffer, FormatGetProducts:
		pl, shape, err := ParsePriceList(r, ListOptions{Origin: origin, Region: o.Region, Keep: GPUFilter})
		if err != nil {
			return nil, err
		}
		if format == FormatOffer && shape != ShapeOffer {
			return nil, fmt.Errorf("%s: the body is %s, not a bulk offer file; use --format %s", format, shape, FormatGetProducts)
		}
		if format == FormatGetProducts && shape == ShapeOffer {
			return nil, fmt.Errorf("%s: the body is a bulk offer file; use --format %s", format, FormatOffer)
		}
		asOf, err := dated(format, o.AsOf, pl.PublicationDate.Format("2006-01-02"), !pl.PublicationDate.IsZero())
		if err != nil {
			return nil, err
		}
		pl.Records(origin, o.Source, asOf, res)
		res.Lists = format == FormatOffer // a region's whole offer file; GetProducts answers a filter
	case FormatSavingsPlan:
		sp, err := ParseSavingsPlan(r, SPOptions{Origin: origin, Region: o.Region})
		if err != nil {
			return nil, err
		}
		asOf, err := dated(format, o.AsOf, sp.PublicationDate.Format("2006-01-02"), !sp.PublicationDate.IsZero())
		if err != nil {
			return nil, err
		}
		sp.Records(origin, o.Source, asOf, res)
	case FormatSpotAdvisor:
		if o.AsOf == "" {
			return nil, fmt.Errorf("%s: %w (Spot Advisor's file has none)", format, feeds.ErrNoDate)
		}
		d, err := ParseSpotAdvisor(r)
		if err != nil {
			return nil, err
		}
		d.Records(origin, o.Source, o.AsOf, res)
	case FormatSpotHistory:
		h, err := ParseSpotHistory(r, SpotHistoryOptions{Origin: origin, Region: o.Region})
		if err != nil {
			return nil, err
		}
		h.Records(origin, o.Source, res)
		if note := zoneNamesNote(origin, h); note != nil {
			res.LeftOut = append(res.LeftOut, *note)
		}
	default:
		names := make([]string, 0, 5)
		for _, f := range im.Formats() {
			names = append(names, f.Name)
		}
		return nil, fmt.Errorf("format %q: the aws importer reads %s", format, strings.Join(names, ", "))
	}
	return res, nil
}

// dated is the as-of date: the caller's, else the body's own.
func dated(format, given, own string, hasOwn bool) (string, error) {
	switch {
	case given != "":
		return given, nil
	case hasOwn:
		return own, nil
	}
	return "", fmt.Errorf("%s: %w (no publicationDate)", format, feeds.ErrNoDate)
}
