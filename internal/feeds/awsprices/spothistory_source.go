package awsprices

import (
	"io"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// SpotHistoryFeed is a recorded DescribeSpotPriceHistory response under
// shared/data as a feeds.Source, so that the conformance suite covers the
// aws-spot-history format. It is not in the build's registry: the recorded
// response prices m5.large (no GPU).
type SpotHistoryFeed struct {
	Path   string // under shared/data
	Source string
	// AllTypes keeps every instance type, not only the GPU families.
	AllTypes bool
}

// ID implements feeds.Source.
func (f *SpotHistoryFeed) ID() string { return "awsspothistory" }

// Describe implements feeds.Source.
func (f *SpotHistoryFeed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "AWS EC2 DescribeSpotPriceHistory response",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: []string{f.Source}}},
		Yields: "the latest Linux spot price per instance type and zone, dated by its timestamp",
	}
}

// Read implements feeds.Source.
func (f *SpotHistoryFeed) Read(in feeds.Inputs) (*feeds.Result, error) {
	o := SpotHistoryOptions{Origin: f.Path}
	if f.AllTypes {
		o.Keep = func(string) (string, string) { return "", "" }
	}
	h, err := feeds.ParseFile(in, feeds.Shared, f.Path, func(r io.Reader) (*SpotHistory, error) { return ParseSpotHistory(r, o) })
	if err != nil {
		return nil, err
	}
	res := &feeds.Result{}
	h.Records(f.Path, f.Source, res)
	return res, nil
}
