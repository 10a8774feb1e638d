package awsspotadvisor

import (
	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Feed is AWS Spot Advisor data as a feeds.Source.
type Feed struct {
	Path   string // under shared/data
	Source string // source id
	AsOf   string // date of the snapshot (the file carries none)
}

// New returns the feed.
func New(path, source, asOf string) *Feed { return &Feed{Path: path, Source: source, AsOf: asOf} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "awsspotadvisor" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "AWS Spot Advisor data (spot-advisor-data.json)",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: []string{f.Source}}},
		Yields: "Linux spot interruption-frequency bands and advertised savings per instance type and region",
	}
}

// Read implements feeds.Source. Entries for other operating systems are left
// out: gpuscout prices Linux instances.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	d, err := feeds.ParseFile(in, feeds.Shared, f.Path, Parse)
	if err != nil {
		return nil, err
	}
	res := &feeds.Result{}
	for _, e := range d.Entries {
		origin := f.Path + "#" + e.Region + "/" + e.OS + "/" + e.InstanceType
		if e.OS != "Linux" {
			res.Leave(origin, e.InstanceType+" "+e.Region+" "+e.OS, "not Linux (gpuscout prices Linux instances)")
			continue
		}
		res.SpotBands = append(res.SpotBands, feeds.SpotBand{Origin: origin, Provider: "aws", InstanceType: e.InstanceType, Region: e.Region,
			Label: e.Range.Label, Low: e.Low, High: e.High, SavingsPct: float64(e.SavingsPct), Source: f.Source, AsOf: f.AsOf})
	}
	return res, nil
}
