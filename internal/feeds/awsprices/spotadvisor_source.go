package awsprices

import (
	"github.com/gpuscout/gpuscout/internal/feeds"
)

// SpotAdvisorFeed is AWS Spot Advisor data as a feeds.Source (registry id
// "awsspotadvisor").
type SpotAdvisorFeed struct {
	Path   string // under shared/data
	Source string // source id
	AsOf   string // date of the snapshot (the file carries none)
}

// NewSpotAdvisor returns the feed.
func NewSpotAdvisor(path, source, asOf string) *SpotAdvisorFeed {
	return &SpotAdvisorFeed{Path: path, Source: source, AsOf: asOf}
}

// ID implements feeds.Source.
func (f *SpotAdvisorFeed) ID() string { return "awsspotadvisor" }

// Describe implements feeds.Source.
func (f *SpotAdvisorFeed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "AWS Spot Advisor data (spot-advisor-data.json)",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: []string{f.Source}}},
		Yields: "Linux spot interruption-frequency bands and advertised savings per instance type and region",
	}
}

// Read implements feeds.Source. Entries for other operating systems are left
// out: gpuscout prices Linux instances.
func (f *SpotAdvisorFeed) Read(in feeds.Inputs) (*feeds.Result, error) {
	d, err := feeds.ParseFile(in, feeds.Shared, f.Path, ParseSpotAdvisor)
	if err != nil {
		return nil, err
	}
	res := &feeds.Result{}
	d.Records(f.Path, f.Source, f.AsOf, res)
	return res, nil
}

// Records turns the advice into Linux spot bands cited by source as of asOf.
func (d *SpotAdvisor) Records(origin, source, asOf string, res *feeds.Result) {
	for _, e := range d.Entries {
		o := origin + "#" + e.Region + "/" + e.OS + "/" + e.InstanceType
		if e.OS != "Linux" {
			res.Leave(o, e.InstanceType+" "+e.Region+" "+e.OS, "not Linux (gpuscout prices Linux instances)")
			continue
		}
		res.SpotBands = append(res.SpotBands, feeds.SpotBand{Origin: o, Provider: "aws", InstanceType: e.InstanceType, Region: e.Region,
			Label: e.Range.Label, Low: e.Low, High: e.High, SavingsPct: float64(e.SavingsPct), Source: source, AsOf: asOf})
	}
}
