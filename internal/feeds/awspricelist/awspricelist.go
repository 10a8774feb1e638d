// Package awspricelist reads the AWS Price List formats: the bulk offer file
// (products + terms keyed by SKU) and the Pricing API's GetProducts elements
// (one product with its terms). It returns each EC2 product with its
// on-demand hourly price and every Reserved Instance offering, keeping the
// upfront fee (unit Quantity) and the hourly fee (unit Hrs) apart, as a
// commitment's cash flows need.
package awspricelist

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

// Product is one SKU with its prices.
type Product struct {
	SKU            string
	InstanceType   string
	Location       string
	OS             string
	Tenancy        string
	CapacityStatus string
	PreInstalledSw string
	GPUs           string              // the "gpu" attribute: GPUs per instance; empty for instances without GPUs
	OnDemand       decimal.NullDecimal // USD per hour
	Reserved       []Reservation
}

// Reservation is one Reserved Instance offering.
type Reservation struct {
	OfferTermCode  string
	LeaseLength    string // "1yr" or "3yr"
	OfferingClass  string // "standard" or "convertible"
	PurchaseOption string // "No Upfront", "Partial Upfront", "All Upfront"
	Upfront        decimal.Decimal
	Hourly         decimal.Decimal
}

// Term returns the lease as gpuscout writes terms ("1y", "3y").
func (r Reservation) Term() string { return strings.TrimSuffix(r.LeaseLength, "r") }

// Payment returns the purchase option as gpuscout writes payments.
func (r Reservation) Payment() string {
	return strings.ToLower(strings.ReplaceAll(r.PurchaseOption, " ", "-"))
}

type rawTerm struct {
	OfferTermCode   string `json:"offerTermCode"`
	SKU             string `json:"sku"`
	PriceDimensions map[string]struct {
		Unit         string            `json:"unit"`
		PricePerUnit map[string]string `json:"pricePerUnit"`
	} `json:"priceDimensions"`
	TermAttributes struct {
		LeaseContractLength string
		OfferingClass       string
		PurchaseOption      string
	} `json:"termAttributes"`
}

type rawProduct struct {
	SKU           string            `json:"sku"`
	ProductFamily string            `json:"productFamily"`
	Attributes    map[string]string `json:"attributes"`
}

// Parse reads either format; products without an instance type are skipped.
func Parse(r io.Reader) ([]Product, error) {
	var top map[string]json.RawMessage
	if err := json.NewDecoder(r).Decode(&top); err != nil {
		return nil, fmt.Errorf("aws price list: %w", err)
	}
	products := map[string]rawProduct{}
	terms := map[string]map[string]rawTerm{} // "OnDemand"/"Reserved" -> termKey -> term
	switch {
	case top["products"] != nil: // bulk offer file
		if err := json.Unmarshal(top["products"], &products); err != nil {
			return nil, fmt.Errorf("aws price list: products: %w", err)
		}
		var t map[string]map[string]map[string]rawTerm
		if err := json.Unmarshal(top["terms"], &t); err != nil {
			return nil, fmt.Errorf("aws price list: terms: %w", err)
		}
		for kind, bySKU := range t {
			terms[kind] = map[string]rawTerm{}
			for _, byCode := range bySKU {
				for k, v := range byCode {
					terms[kind][k] = v
				}
			}
		}
	case top["product"] != nil: // GetProducts element
		var p rawProduct
		if err := json.Unmarshal(top["product"], &p); err != nil {
			return nil, fmt.Errorf("aws price list: product: %w", err)
		}
		products[p.SKU] = p
		var t map[string]map[string]rawTerm
		if err := json.Unmarshal(top["terms"], &t); err != nil {
			return nil, fmt.Errorf("aws price list: terms: %w", err)
		}
		for kind, byCode := range t {
			terms[kind] = byCode
		}
	default:
		return nil, fmt.Errorf("aws price list: neither a bulk offer file (products, terms) nor a GetProducts element (product, terms)")
	}
	bySKU := map[string]*Product{}
	for sku, p := range products {
		a := p.Attributes
		if a["instanceType"] == "" {
			continue
		}
		if sku == "" {
			sku = p.SKU
		}
		bySKU[sku] = &Product{SKU: sku, InstanceType: a["instanceType"], Location: a["location"], OS: a["operatingSystem"],
			Tenancy: a["tenancy"], CapacityStatus: a["capacitystatus"], PreInstalledSw: a["preInstalledSw"], GPUs: a["gpu"]}
	}
	for _, kind := range []string{"OnDemand", "Reserved"} {
		keys := make([]string, 0, len(terms[kind]))
		for k := range terms[kind] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t := terms[kind][k]
			p := bySKU[t.SKU]
			if p == nil {
				continue // the excerpt's authors trimmed products some terms refer to
			}
			var hourly, upfront decimal.Decimal
			for _, d := range t.PriceDimensions {
				v, err := decimal.NewFromString(d.PricePerUnit["USD"])
				if err != nil || v.IsNegative() {
					return nil, fmt.Errorf("aws price list: %s: price %q is not a non-negative number", k, d.PricePerUnit["USD"])
				}
				switch d.Unit {
				case "Hrs":
					hourly = v
				case "Quantity":
					upfront = v
				default:
					return nil, fmt.Errorf("aws price list: %s: unit %q; want Hrs or Quantity", k, d.Unit)
				}
			}
			if kind == "OnDemand" {
				p.OnDemand = decimal.NullDecimal{Decimal: hourly, Valid: true}
				continue
			}
			ta := t.TermAttributes
			p.Reserved = append(p.Reserved, Reservation{OfferTermCode: t.OfferTermCode, LeaseLength: ta.LeaseContractLength,
				OfferingClass: ta.OfferingClass, PurchaseOption: ta.PurchaseOption, Upfront: upfront, Hourly: hourly})
		}
	}
	out := make([]Product, 0, len(bySKU))
	for _, p := range bySKU {
		sort.Slice(p.Reserved, func(i, j int) bool { return p.Reserved[i].OfferTermCode < p.Reserved[j].OfferTermCode })
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SKU < out[j].SKU })
	return out, nil
}
