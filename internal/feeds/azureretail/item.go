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
	"fmt"
	"io"
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
	dec := json.NewDecoder(r)
	dec.UseNumber()
	objects := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF && objects > 0 {
			return pg, nil
		}
		if err != nil {
			return pg, fmt.Errorf("azure-retail: %w", err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return pg, fmt.Errorf("azure-retail: the body is not a JSON object (a Retail Prices response)")
		}
		objects++
		pg.NextPageLink = ""
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return pg, fmt.Errorf("azure-retail: %w", err)
			}
			key, _ := kt.(string)
			switch key {
			case "Items":
				if err := expectDelim(dec, '['); err != nil {
					return pg, fmt.Errorf("azure-retail: Items: %w", err)
				}
				for dec.More() {
					var it Item
					if err := dec.Decode(&it); err != nil {
						return pg, fmt.Errorf("azure-retail: item %d: %w", pg.Items+1, err)
					}
					pg.Items++
					if err := each(&it); err != nil {
						return pg, err
					}
				}
				if err := expectDelim(dec, ']'); err != nil {
					return pg, fmt.Errorf("azure-retail: Items: %w", err)
				}
			case "NextPageLink", "BillingCurrency":
				var s *string
				if err := dec.Decode(&s); err != nil {
					return pg, fmt.Errorf("azure-retail: %s: %w", key, err)
				}
				if s != nil && key == "NextPageLink" {
					pg.NextPageLink = *s
				} else if s != nil {
					pg.BillingCurrency = *s
				}
			default:
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return pg, fmt.Errorf("azure-retail: %s: %w", key, err)
				}
			}
		}
		if err := expectDelim(dec, '}'); err != nil {
			return pg, fmt.Errorf("azure-retail: %w", err)
		}
	}
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, tok)
	}
	return nil
}
