// Package gcpbilling imports Compute Engine prices from Google's Cloud
// Billing Catalog API (services/6F81-5844-456A/skus): one SKU per resource
// (a GPU, a machine family's vCPU or its GiB of RAM) and usage type
// (on-demand, spot, 1- and 3-year committed use), per group of regions. A
// GPU machine type's hourly price is the sum of its parts — GPUs × the GPU
// SKU + vCPUs × the family's core SKU + GiB × its RAM SKU (+ its local
// SSD) — so the importer
// takes the machine shapes (feeds.Spec, from the catalog) as a parameter and
// prices the shapes whose every part has a SKU in the region. Machines that
// bundle local SSD (a2-ultragpu, a3: the spec's LocalDiskGB) add it at the
// generic local SSD SKU, per GiB-month over 730 hours. Format
// "gcp-skus" is one response page (or a file of them); Fetch pages through
// the API with the user's API key.
package gcpbilling

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/money"
)

// SKU is one Cloud Billing Catalog SKU, as the API writes it (the fields
// gpuscout reads).
type SKU struct {
	Name        string `json:"name"`
	SKUID       string `json:"skuId"`
	Description string `json:"description"`
	Category    struct {
		ServiceDisplayName string `json:"serviceDisplayName"`
		ResourceFamily     string `json:"resourceFamily"` // Compute, Storage, Network, ...
		ResourceGroup      string `json:"resourceGroup"`  // GPU, CPU, RAM, N1Standard, ...
		UsageType          string `json:"usageType"`      // OnDemand, Preemptible, Commit1Yr, Commit3Yr
	} `json:"category"`
	ServiceRegions []string      `json:"serviceRegions"`
	PricingInfo    []PricingInfo `json:"pricingInfo"`
}

// PricingInfo is one pricing of a SKU (the API returns the current one).
type PricingInfo struct {
	EffectiveTime     string `json:"effectiveTime"`
	PricingExpression struct {
		UsageUnit   string `json:"usageUnit"` // h, GiBy.h, GiBy.mo, ...
		TieredRates []struct {
			StartUsageAmount json.Number `json:"startUsageAmount"`
			UnitPrice        Money       `json:"unitPrice"`
		} `json:"tieredRates"`
	} `json:"pricingExpression"`
	CurrencyConversionRate json.Number `json:"currencyConversionRate"`
}

// Money is Google's money type: whole units (a decimal string of an int64)
// plus nanos (10⁻⁹ units, the same sign as units).
type Money struct {
	CurrencyCode string      `json:"currencyCode"`
	Units        json.Number `json:"units"` // "2"; the JSON mapping of int64 is a string, a number is accepted too
	Nanos        int64       `json:"nanos"`
}

// Amount returns units + nanos/10⁹ exactly, or an error when the parts are
// out of range or of opposite signs.
func (m Money) Amount() (decimal.Decimal, error) {
	units := int64(0)
	if s := strings.TrimSpace(m.Units.String()); s != "" {
		u, err := m.Units.Int64()
		if err != nil {
			return decimal.Decimal{}, fmt.Errorf("units %q is not a whole number", s)
		}
		units = u
	}
	if m.Nanos <= -1e9 || m.Nanos >= 1e9 {
		return decimal.Decimal{}, fmt.Errorf("nanos %d is outside ±999,999,999", m.Nanos)
	}
	if (units > 0 && m.Nanos < 0) || (units < 0 && m.Nanos > 0) {
		return decimal.Decimal{}, fmt.Errorf("units %d and nanos %d have opposite signs", units, m.Nanos)
	}
	return decimal.NewFromInt(units).Add(decimal.New(m.Nanos, -9)), nil
}

// ListPrice returns the SKU's list price per usage unit: the tier that
// starts at zero usage of its latest pricing, with the unit and currency.
func (s *SKU) ListPrice() (amount decimal.Decimal, unit, currency string, err error) {
	if len(s.PricingInfo) == 0 {
		return decimal.Decimal{}, "", "", errors.New("no pricingInfo")
	}
	p := s.PricingInfo[0]
	for _, q := range s.PricingInfo[1:] { // RFC 3339 times in UTC compare as strings
		if q.EffectiveTime > p.EffectiveTime {
			p = q
		}
	}
	unit = p.PricingExpression.UsageUnit
	for _, t := range p.PricingExpression.TieredRates {
		start, err := money.ParseDecimal(strings.TrimSpace(t.StartUsageAmount.String()))
		if t.StartUsageAmount == "" {
			start, err = decimal.Zero, nil // omitted: proto3 JSON leaves out a zero
		}
		if err != nil || !start.IsZero() {
			continue
		}
		a, err := t.UnitPrice.Amount()
		if err != nil {
			return decimal.Decimal{}, unit, t.UnitPrice.CurrencyCode, err
		}
		return a, unit, t.UnitPrice.CurrencyCode, nil
	}
	return decimal.Decimal{}, unit, "", errors.New("no tiered rate starting at zero usage")
}

// Page is the top of one skus.list response; its SKUs are streamed.
type Page struct {
	NextPageToken string
	SKUs          int // how many SKUs the page held
}

// decodePage streams one response body (or offline file): {"skus": [...],
// "nextPageToken": "..."}. Each SKU goes to each as it is read, so a page of
// thousands of SKUs is never held at once. A file of several pages written
// one after another is read whole; the last token wins.
func decodePage(r io.Reader, each func(*SKU) error) (Page, error) {
	var pg Page
	n, err := feeds.StreamPages(r, "gcp-skus", "skus", each, func(key string, dec *json.Decoder) error {
		if key == "nextPageToken" {
			return dec.Decode(&pg.NextPageToken)
		}
		var skip json.RawMessage
		return dec.Decode(&skip)
	})
	pg.SKUs = n
	return pg, err
}
