// Package azureretail imports Azure VM prices from the Azure Retail Prices
// API (prices.azure.com/api/retail/prices, public, no credentials): per GPU
// size and region, the pay-as-you-go (Consumption) and Spot meters, the
// Windows meters apart (their surcharge over Linux is what Azure Hybrid
// Benefit waives), 1- and 3-year reservations (whose price is the total for
// the term, not an hourly rate) and, with the 2023-01-01-preview API,
// savings-plan hourly rates. Format "azure-retail" is one response page (or
// several written one after another); Fetch follows NextPageLink.
package azureretail

import (
	"encoding/json"
	"io"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Item is one price item, as the API writes it (the fields gpuscout reads).
type Item struct {
	CurrencyCode         string        `json:"currencyCode"`
	TierMinimumUnits     json.Number   `json:"tierMinimumUnits"`
	RetailPrice          json.Number   `json:"retailPrice"`
	UnitPrice            json.Number   `json:"unitPrice"`
	ArmRegionName        string        `json:"armRegionName"`
	Location             string        `json:"location"`
	EffectiveStartDate   string        `json:"effectiveStartDate"`
	MeterID              string        `json:"meterId"`
	MeterName            string        `json:"meterName"`
	ProductName          string        `json:"productName"`
	SKUName              string        `json:"skuName"`
	ServiceName          string        `json:"serviceName"`
	UnitOfMeasure        string        `json:"unitOfMeasure"`
	Type                 string        `json:"type"` // Consumption, Reservation, DevTestConsumption
	IsPrimaryMeterRegion *bool         `json:"isPrimaryMeterRegion"`
	ArmSKUName           string        `json:"armSkuName"`
	ReservationTerm      string        `json:"reservationTerm"` // "1 Year", "3 Years"
	SavingsPlan          []SavingsRate `json:"savingsPlan"`     // 2023-01-01-preview, on Consumption items
}

// SavingsRate is a savings-plan hourly rate of a Consumption item.
type SavingsRate struct {
	Term        string      `json:"term"`
	UnitPrice   json.Number `json:"unitPrice"`
	RetailPrice json.Number `json:"retailPrice"`
}

// Page is the envelope of one response; its items are streamed.
type Page struct {
	BillingCurrency string
	NextPageLink    string
	Items           int
}

// decodePage streams one response body (or offline file): {"BillingCurrency":
// ..., "Items": [...], "NextPageLink": ..., "Count": n}. Each item goes to
// each as it is read. A file of several pages one after another is read
// whole; the last NextPageLink wins.
func decodePage(r io.Reader, each func(*Item) error) (Page, error) {
	var pg Page
	n, err := feeds.StreamPages(r, "azure-retail", "Items", each, func(key string, dec *json.Decoder) error {
		if key != "NextPageLink" && key != "BillingCurrency" {
			var skip json.RawMessage
			return dec.Decode(&skip)
		}
		var s *string
		if err := dec.Decode(&s); err != nil || s == nil {
			return err
		}
		switch key {
		case "NextPageLink":
			pg.NextPageLink = *s
		case "BillingCurrency":
			pg.BillingCurrency = *s
		}
		return nil
	})
	pg.Items = n
	return pg, err
}
