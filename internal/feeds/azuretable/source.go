package azuretable

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Currency is the table's currency: the generator asks the Retail Prices
// API for USD.
const Currency = "USD"

// Provider is the catalog provider of every record.
const Provider = "azure"

// Reasons a row is left out, one constant each so reports group them.
const (
	ReasonNotGPU        = "not an N-series GPU size (Azure's GPU sizes are Standard_NC, NCC, ND, NG and NV)"
	ReasonFPGA          = "NP-series: Xilinx Alveo U250 FPGAs, not GPUs"
	ReasonMedia         = "NM-series: one AMD Xilinx Alveo MA35D video transcoding unit (Azure files it under FPGA-accelerated sizes), not a GPU gpuscout can use for ML"
	ReasonUnknownN      = "an N-series family gpuscout does not know: left out until its accelerator is identified"
	ReasonDedicatedHost = "no Standard_ prefix: not a VM size but an Azure Dedicated Host SKU (NVasv4_Type1, \"DCsv2 Type 1\", ...), billed per host"
	ReasonPlaceholder   = "the generator's placeholder key " + PlaceholderKey + ", not a size"
	ReasonZeroPrice     = "price 0 in the table: no list price (left out, not read as free)"
)

var reasons = map[Kind]string{
	NotGPU: ReasonNotGPU, FPGA: ReasonFPGA, Media: ReasonMedia, UnknownN: ReasonUnknownN,
	DedicatedHost: ReasonDedicatedHost, Placeholder: ReasonPlaceholder,
}

// Feed is Karpenter's generated Azure price table as a feeds.Source.
type Feed struct {
	Path   string // under shared/data
	Source string // source id of the table (sources.yaml)
}

// New returns the feed over the table at path (under shared/data), cited
// as source; its rows are dated by the table's own "generated at" stamp.
func New(path, source string) *Feed { return &Feed{Path: path, Source: source} }

// ID implements feeds.Source.
func (f *Feed) ID() string { return "azuretable" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	return feeds.Description{
		Title:  "Azure pay-as-you-go Linux prices of VM sizes from the Azure Retail Prices API, as generated into the Karpenter provider for Azure (zz_generated.pricing.go)",
		Reads:  []feeds.Input{{Root: feeds.Shared, Path: f.Path, Cites: []string{f.Source}}},
		Yields: "on-demand prices (USD per hour) per N-series GPU size and region, dated by the table's generation time; no specs (joined with data/curated/azure*.yaml), no spot, Windows or reservation prices",
	}
}

// Read implements feeds.Source.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	t, err := feeds.ParseFile(in, feeds.Shared, f.Path, Parse)
	if err != nil {
		return nil, err
	}
	asOf := t.GeneratedAt.Format("2006-01-02")
	res := &feeds.Result{}
	for _, r := range t.Records {
		origin := fmt.Sprintf("%s:%d", f.Path, r.Line)
		what := r.Size + " " + r.Region
		if r.Normalized() {
			what += fmt.Sprintf(" (key written %q in the table)", r.Key)
		}
		kind := Classify(r.Size)
		switch {
		case kind != GPU:
			res.Leave(origin, what, reasons[kind])
		case !r.Price.IsPositive():
			res.Leave(origin, what, ReasonZeroPrice)
		default:
			res.Offerings = append(res.Offerings, feeds.Offering{
				Origin: origin, Provider: Provider, InstanceType: r.Size, Region: r.Region,
				OnDemand: feeds.Known(r.Price, Currency, f.Source, asOf),
				Spot:     feeds.Unknown(Currency),
			})
		}
	}
	return res, nil
}
