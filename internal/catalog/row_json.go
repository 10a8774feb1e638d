package catalog

import (
	"encoding/json"
	"time"

	"github.com/gpuscout/gpuscout/internal/money"
)

// RowJSON is one offering as `gpuscout offers -o json` and GET
// /api/v1/offerings write it: unknown prices are null, never zero; money at
// most 6 decimals in the query's currency, converted_from naming the
// currency a converted price was quoted in. price_as_of keeps its
// YYYY-MM-DD; price_as_of_precision says where only its year or month is
// known (a placeholder day, PriceDate), and price_stale and spot_stale say
// whether the price is past the age rule (PriceAge).
type RowJSON struct {
	Provider         string       `json:"provider"`
	InstanceType     string       `json:"instance_type"`
	Region           string       `json:"region"`
	Zone             string       `json:"zone"`
	China            bool         `json:"china"`
	GPU              string       `json:"gpu"`
	GPUCount         float64      `json:"gpu_count"`
	GPUMemoryGiB     *float64     `json:"gpu_memory_gib"` // null where no source gives it, never 0
	VCPUs            *float64     `json:"vcpus"`          // null where no source gives it, never 0
	MemoryGiB        *float64     `json:"memory_gib"`     // the same
	LocalDiskGB      *float64     `json:"local_disk_gb"`
	Interconnect     string       `json:"interconnect"`
	NetworkGbps      *float64     `json:"network_gbps"`
	PricePerHour     *json.Number `json:"price_per_hour"`
	SpotPricePerHour *json.Number `json:"spot_price_per_hour"`
	SpotZone         string       `json:"spot_zone,omitempty"`
	PricePerGPUHour  *json.Number `json:"price_per_gpu_hour"`
	Currency         string       `json:"currency"`
	ConvertedFrom    string       `json:"converted_from,omitempty"`
	PriceSource      string       `json:"price_source"`
	PriceAsOf        string       `json:"price_as_of"`
	// PriceAsOfPrecision is "year" or "month" where price_as_of's day (or
	// month) is a placeholder; absent where the day is known.
	PriceAsOfPrecision string `json:"price_as_of_precision,omitempty"`
	PriceStale         bool   `json:"price_stale"` // the on-demand price is older than a year
	SpotSource         string `json:"spot_source,omitempty"`
	SpotAsOf           string `json:"spot_as_of,omitempty"`
	SpotStale          *bool  `json:"spot_stale,omitempty"` // the spot price is older than 30 days; absent without one
	PriceNote          string `json:"price_note,omitempty"`
	SpecSource         string `json:"spec_source,omitempty"`
	Retired            string `json:"retired,omitempty"`        // YYYY-MM-DD the provider retired the size (include-retired)
	RetiredSource      string `json:"retired_source,omitempty"` // the retirement notice
}

// RowsJSON writes a query's rows, priced in cur, their prices dated at now.
func (c *Catalog) RowsJSON(rows []Row, cur money.Currency, now time.Time) []RowJSON {
	opt := func(f float64) *float64 {
		if f == 0 {
			return nil
		}
		return &f
	}
	out := make([]RowJSON, 0, len(rows))
	for _, r := range rows {
		o := r.Offering
		j := RowJSON{
			Provider: o.Provider, InstanceType: o.InstanceType, Region: o.Region, Zone: r.Zone, China: o.China,
			GPU: o.GPU.Name, GPUCount: o.GPUCount, GPUMemoryGiB: opt(o.GPUMemoryGiB), VCPUs: opt(o.VCPUs), MemoryGiB: opt(o.MemoryGiB),
			LocalDiskGB: opt(o.LocalDiskGB), Interconnect: o.Interconnect, NetworkGbps: opt(o.NetworkGbps),
			PricePerHour: money.NullNumber(r.Price), SpotPricePerHour: money.NullNumber(r.Spot), SpotZone: r.SpotZone,
			PricePerGPUHour: money.NullNumber(r.PerGPU),
			Currency:        string(cur), PriceSource: o.OnDemand.Source, PriceAsOf: o.OnDemand.AsOf,
			SpotSource: r.SpotCite.Source, SpotAsOf: r.SpotCite.AsOf, PriceNote: o.OnDemand.Note, SpecSource: o.SpecSource,
			Retired: o.Retired, RetiredSource: o.RetiredSource,
		}
		if r.Converted {
			j.ConvertedFrom = string(o.OnDemand.Currency)
		}
		if o.OnDemand.Known {
			a := c.PriceAge(ListPrice, o.OnDemand.Source, o.OnDemand.AsOf, now)
			j.PriceAsOfPrecision, j.PriceStale = a.Date.Precision.partialName(), a.Stale
		}
		if r.Spot.Valid {
			stale := c.PriceAge(SpotPrice, r.SpotCite.Source, r.SpotCite.AsOf, now).Stale
			j.SpotStale = &stale
		}
		out = append(out, j)
	}
	return out
}
