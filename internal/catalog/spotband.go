package catalog

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SpotBand is AWS Spot Advisor's interruption-frequency band for an
// instance type in a region: the share of spot instances interrupted in a
// month falls in [Low, High] percent (High = 100 for ">20%").
type SpotBand struct {
	Provider     string
	InstanceType string
	Region       string
	Label        string // "<5%", "5-10%", "10-15%", "15-20%", ">20%"
	Low, High    float64
	SavingsPct   float64 // advertised saving against on-demand
	Source       string
	AsOf         string
}

// SpotBandColumns is the header of the generated spot_bands.csv.
var SpotBandColumns = []string{"provider", "instance_type", "region", "label", "low_pct", "high_pct", "savings_pct", "source", "as_of"}

// WriteSpotBandsCSV writes spot bands in the snapshot format.
func WriteSpotBandsCSV(w io.Writer, bs []SpotBand) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SpotBandColumns); err != nil {
		return err
	}
	for _, b := range bs {
		if err := cw.Write([]string{b.Provider, b.InstanceType, b.Region, b.Label, fnum(b.Low), fnum(b.High), fnum(b.SavingsPct), b.Source, b.AsOf}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadSpotBandsCSV parses the snapshot format.
func ReadSpotBandsCSV(r io.Reader) ([]SpotBand, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("spot bands: %w", err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(SpotBandColumns, ",") {
		return nil, fmt.Errorf("spot bands: header must be %s", strings.Join(SpotBandColumns, ","))
	}
	var out []SpotBand
	for i, rec := range recs[1:] {
		b := SpotBand{Provider: rec[0], InstanceType: rec[1], Region: rec[2], Label: rec[3], Source: rec[7], AsOf: rec[8]}
		for j, dst := range []*float64{&b.Low, &b.High, &b.SavingsPct} {
			if rec[4+j] == "" {
				continue
			}
			if *dst, err = strconv.ParseFloat(rec[4+j], 64); err != nil {
				return nil, fmt.Errorf("spot bands line %d: %s: %w", i+2, SpotBandColumns[4+j], err)
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// SpotBandFor returns the spot interruption band of an offering's type and
// region, or nil: the most specific one (type and region, then type, then
// region, then the whole provider) — AWS Spot Advisor's, or one a price file
// gave (the later one wins at the same specificity).
func (c *Catalog) SpotBandFor(o *Offering) *SpotBand {
	var best *SpotBand
	bestRank := -1
	for i := range c.SpotBands {
		b := &c.SpotBands[i]
		if b.Provider != o.Provider || (b.InstanceType != "" && b.InstanceType != o.InstanceType) || (b.Region != "" && b.Region != o.Region) {
			continue
		}
		rank := 0
		if b.InstanceType != "" {
			rank += 2
		}
		if b.Region != "" {
			rank++
		}
		if rank >= bestRank {
			best, bestRank = b, rank
		}
	}
	return best
}
