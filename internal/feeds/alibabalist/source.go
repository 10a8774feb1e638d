package alibabalist

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Currency is the table's currency: China-site list prices in yuan.
const Currency = "CNY"

// Reasons a row is left out. Each is one constant, so reports group them.
const (
	ReasonNotGPU    = "not a GPU instance family (" + GPUFamilies + ")"
	ReasonZeroPrice = "price 0 in the table: it has no list price for the type there (left out, not read as free)"
)

// Feed is the Karpenter-shipped Alibaba Cloud on-demand price table as a
// feeds.Source.
type Feed struct {
	Path   string // under shared/data
	Source string // source id of the table (sources.yaml)
	AsOf   string // the table's data date, YYYY-MM-DD
}

// New returns the feed over the table at path (under shared/data), cited
// as source and dated asOf.
func New(path, source, asOf string) *Feed { return &Feed{Path: path, Source: source, AsOf: asOf} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "alibabalist" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "Alibaba Cloud China-site pay-as-you-go Linux list prices of ECS instance types, as shipped by the Karpenter provider for Alibaba Cloud",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: []string{f.Source}}},
		Yields: "on-demand prices (CNY per hour) per GPU instance type and region; no specs (joined with data/curated/alibaba.yaml)",
	}
}

// Read implements feeds.Source.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	recs, err := feeds.ParseFile(in, feeds.Shared, f.Path, Parse)
	if err != nil {
		return nil, err
	}
	res := &feeds.Result{}
	for _, r := range recs {
		origin := fmt.Sprintf("%s:%d", f.Path, r.Line)
		what := r.InstanceType + " " + r.Region
		switch {
		case !IsGPUType(r.InstanceType):
			res.Leave(origin, what, ReasonNotGPU)
		case !r.Price.IsPositive():
			res.Leave(origin, what, ReasonZeroPrice)
		default:
			res.Offerings = append(res.Offerings, feeds.Offering{
				Origin: origin, Provider: "alibaba", InstanceType: r.InstanceType, Region: r.Region,
				OnDemand: feeds.Known(r.Price, Currency, f.Source, f.AsOf),
			})
		}
	}
	return res, nil
}
