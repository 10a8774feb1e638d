package awsondemand

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Feed is the Karpenter-derived AWS on-demand table as a feeds.Source. The
// table gives prices only; the build joins each row with the curated AWS
// instance spec, and leaves out types without one.
type Feed struct {
	Path    string            // under shared/data
	Sources map[string]string // region -> source id (one Karpenter price map per partition)
}

// New returns the feed.
func New(path string, sources map[string]string) *Feed { return &Feed{Path: path, Sources: sources} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "awsondemand" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "AWS on-demand prices from Karpenter's generated price maps (AWS Price List API; Linux, shared tenancy)",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: slices.Sorted(maps.Values(f.Sources))}},
		Yields: "on-demand prices per instance type and region (USD; CNY in cn-north-1), dated by the table's generated_at; no specs",
	}
}

// Read implements feeds.Source. A region without a source id is an error: a
// price must be citable.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	recs, err := feeds.ParseFile(in, feeds.Shared, f.Path, Parse)
	if err != nil {
		return nil, err
	}
	res := &feeds.Result{}
	for _, r := range recs {
		origin := fmt.Sprintf("%s:%d", f.Path, r.Line)
		source, ok := f.Sources[r.Region]
		if !ok {
			return nil, fmt.Errorf("%s: region %s has no source id", origin, r.Region)
		}
		res.Offerings = append(res.Offerings, feeds.Offering{
			Origin: origin, Provider: "aws", InstanceType: r.InstanceType, Region: r.Region,
			OnDemand: feeds.Known(r.Price, r.Currency, source, r.GeneratedAt.Format("2006-01-02")),
		})
	}
	return res, nil
}
