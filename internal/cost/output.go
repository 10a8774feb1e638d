package cost

import (
	"encoding/json"
	"math"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// OptionJSON is one option of `gpuscout cost -o json`.
type OptionJSON struct {
	Provider               string       `json:"provider"`
	InstanceType           string       `json:"instance_type"`
	Region                 string       `json:"region"`
	GPU                    string       `json:"gpu"`
	GPUCount               float64      `json:"gpu_count"`
	PricingModel           string       `json:"pricing_model"`
	Term                   string       `json:"term"`
	Payment                string       `json:"payment"`
	Class                  string       `json:"class,omitempty"`
	Known                  bool         `json:"known"`
	Feasible               bool         `json:"feasible"`
	Total                  *json.Number `json:"total"`
	Upfront                *json.Number `json:"upfront"`
	Currency               string       `json:"currency"`
	ConvertedFrom          string       `json:"converted_from,omitempty"` // the currency the price is sourced in, where not currency
	ListHourly             *json.Number `json:"list_hourly"`
	PriceZone              string       `json:"price_zone,omitempty"`
	EffectiveHourly        *json.Number `json:"effective_hourly"`
	EffectivePerGPUHour    *json.Number `json:"effective_per_gpu_hour"`
	NPV                    *json.Number `json:"npv"`
	BreakevenHoursPerMonth *float64     `json:"breakeven_hours_per_month"`
	BreakevenNPVHours      *float64     `json:"breakeven_npv_hours_per_month"`
	ImpliedAnnualRate      *float64     `json:"implied_annual_rate"`
	UnusedTermCost         *json.Number `json:"unused_term_cost,omitempty"`
	// PriceAsOf is the date of the oldest price the option bills at as far
	// as it is known (YYYY-MM-DD, or YYYY or YYYY-MM for a page dated only
	// that far), and Stale whether a price it bills at is past the age rule
	// (DatePrices); absent where not dated.
	PriceAsOf   string         `json:"price_as_of,omitempty"`
	Stale       bool           `json:"stale"`
	Explanation []string       `json:"explanation"`
	Unknown     []string       `json:"unknown,omitempty"`
	Excludes    []string       `json:"excludes,omitempty"`
	Cashflow    []CashflowJSON `json:"cashflow,omitempty"`
}

// CashflowJSON is one month of an option's cash flow.
type CashflowJSON struct {
	Month  int                     `json:"month"`
	ByKind map[string]*json.Number `json:"by_kind"`
	Total  *json.Number            `json:"total"`
}

func num(d decimal.Decimal) *json.Number { return money.Number(d) }

// RoundedHours is hours to the hundredth for JSON (nil stays nil: no
// break-even).
func RoundedHours(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := math.Round(*p*100) / 100
	return &v
}

// OptionsJSON is the JSON of priced options in currency; withCashflow adds
// each known option's monthly cash flow over the usage's months.
func OptionsJSON(opts []Option, currency money.Currency, usage *Usage, withCashflow bool) []OptionJSON {
	out := make([]OptionJSON, 0, len(opts))
	for i := range opts {
		o := &opts[i]
		j := OptionJSON{Provider: o.Offering.Provider, InstanceType: o.Offering.InstanceType, Region: o.Offering.Region,
			GPU: o.Offering.GPU.Name, GPUCount: o.Offering.GPUCount, PricingModel: o.Model, Term: o.Term, Payment: o.Payment, Class: o.Class,
			Known: o.Known, Feasible: o.Feasible, Currency: string(currency), BreakevenHoursPerMonth: RoundedHours(o.Breakeven),
			BreakevenNPVHours: RoundedHours(o.BreakevenNPV), Explanation: append([]string{}, o.Explanation...), Unknown: o.UnknownLines(), Excludes: o.Excludes,
			PriceAsOf: o.PriceAge.Date.ISO(), Stale: o.Stale}
		if o.ImpliedRate != nil {
			v := math.Round(*o.ImpliedRate*10000) / 10000
			j.ImpliedAnnualRate = &v
		}
		if o.Known {
			j.Total, j.Upfront, j.NPV = num(o.Total.Value), num(o.Upfront.Value), num(o.NPV.Value)
			if o.Converted() {
				j.ConvertedFrom = string(o.QuotedIn)
			}
		}
		j.EffectiveHourly, j.ListHourly, j.PriceZone = money.NullNumber(o.EffectiveHourly), money.NullNumber(o.ListHourly), o.PriceZone
		if o.PerGPUHour.Valid {
			j.EffectivePerGPUHour = num(o.PerGPUHour.Decimal)
		}
		if o.UnusedTermCost.Valid {
			j.UnusedTermCost = num(o.UnusedTermCost.Decimal)
		}
		if withCashflow && o.Known {
			for _, m := range o.Schedule.Expand(usage.Months()) {
				cf := CashflowJSON{Month: m.Index, ByKind: map[string]*json.Number{}, Total: num(m.Total)}
				for k, v := range m.ByKind {
					cf.ByKind[k] = num(v)
				}
				j.Cashflow = append(j.Cashflow, cf)
			}
		}
		out = append(out, j)
	}
	return out
}

// Converted says whether the option's totals were converted from the
// currency its price is sourced in.
func (o *Option) Converted() bool { return o.QuotedIn != "" && o.QuotedIn != o.Currency }
