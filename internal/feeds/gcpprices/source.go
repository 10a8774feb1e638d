package gcpprices

import (
	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Feed is the GCP GPU price excerpt as a feeds.Source.
type Feed struct {
	Path   string // under shared/data
	Source string // source id
	AsOf   string // the pricing.yml commit date (the excerpt's "generated" is not a date)
}

// New returns the feed.
func New(path, source, asOf string) *Feed { return &Feed{Path: path, Source: source, AsOf: asOf} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "gcpprices" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "GCP GPU machine prices from Cyclenerd's pricing.yml (Cloud Billing Catalog), excerpt",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: []string{f.Source}}},
		Yields: "offerings per machine type and region with on-demand and spot prices (USD) and the accelerator key; 1y/3y resource-based committed-use prices per month",
	}
}

// Read implements feeds.Source.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	ex, err := feeds.ParseFile(in, feeds.Shared, f.Path, Parse)
	if err != nil {
		return nil, err
	}
	res := &feeds.Result{}
	for _, m := range ex.Machines {
		if m.GPUName == "" {
			res.Leave(f.Path+"#"+m.Type, m.Type, "no accelerator key (not a GPU machine type)")
			continue
		}
		for _, rp := range m.Regions {
			origin := f.Path + "#" + m.Type + "/" + rp.Region
			o := feeds.Offering{
				Origin: origin, Provider: "gcp", InstanceType: m.Type, Region: rp.Region, Accelerator: m.GPUName,
				Machine:  feeds.Machine{GPUCount: m.GPUCount, VCPUs: m.VCPUs, MemoryGiB: m.RAMGiB, LocalDiskGB: m.LocalSSD, Arch: "x86_64", SpecSource: f.Source},
				OnDemand: feeds.Unknown("USD"),
			}
			if rp.Hour.Valid && rp.Hour.Decimal.IsPositive() {
				o.OnDemand = feeds.Known(rp.Hour.Decimal, "USD", f.Source, f.AsOf)
			}
			if rp.Spot.Valid && rp.Spot.Decimal.IsPositive() {
				o.Spot = feeds.Known(rp.Spot.Decimal, "USD", f.Source, f.AsOf)
			}
			res.Offerings = append(res.Offerings, o)
			// Resource-based committed-use discounts, quoted per month of 730 hours and billed monthly.
			for _, c := range []struct {
				term string
				v    bool
			}{{"1y", rp.Month1y.Valid}, {"3y", rp.Month3y.Valid}} {
				if !c.v {
					continue
				}
				monthly := rp.Month1y.Decimal
				if c.term == "3y" {
					monthly = rp.Month3y.Decimal
				}
				if !monthly.IsPositive() {
					res.Leave(origin, m.Type+" "+rp.Region+" month_"+c.term, "a zero committed-use price is not a price")
					continue
				}
				res.Commitments = append(res.Commitments, feeds.Commitment{Origin: origin, Provider: "gcp", InstanceType: m.Type, Region: rp.Region,
					Model: "commitment", Term: c.term, Payment: "monthly", Monthly: monthly, Currency: "USD", Source: f.Source, AsOf: f.AsOf})
			}
		}
	}
	return res, nil
}
