package feedstest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// FakeImporter is a feeds.Importer for the refresh engine's tests: it speaks
// a small paged price format shaped like the Azure Retail Prices API's
// response (an Items array of rows with currencyCode, retailPrice,
// unitOfMeasure, armRegionName, armSkuName and type Consumption or Spot; a
// NextPageLink to the next page, null on the last), for any provider, from
// an httptest server (Fetch) or a file (Parse, format "fake-prices"). It
// checks rows as a real importer must: missing fields, unknown units,
// non-positive prices and an unexpected currency are left out with a
// reason, never imported as zero. Credentials: FAKE_PRICES_TOKEN, sent as a
// Bearer token.
type FakeImporter struct {
	ProviderName string // "alibaba"
	Currency     string // the only currency accepted ("CNY")
	SourceID     string // the source prefix; Fetch cites SourceID@YYYY-MM-DD
}

// FakeFormat is the FakeImporter's offline format.
const FakeFormat = "fake-prices"

// FakeTokenEnv is the environment variable the FakeImporter reads its token from.
const FakeTokenEnv = "FAKE_PRICES_TOKEN"

// Provider implements feeds.Importer.
func (f *FakeImporter) Provider() string { return f.ProviderName }

// Formats implements feeds.Importer.
func (f *FakeImporter) Formats() []feeds.Format {
	return []feeds.Format{{Name: FakeFormat, Title: "a page of the test price API (Items, NextPageLink)"}}
}

// CredentialHelp implements feeds.CredentialHelper.
func (f *FakeImporter) CredentialHelp() string { return FakeTokenEnv + " (a test token)" }

// FakePage is one page of the fake price API.
type FakePage struct {
	Items        []FakeItem `json:"Items"`
	NextPageLink *string    `json:"NextPageLink"`
}

// FakeItem is one price row.
type FakeItem struct {
	CurrencyCode  string           `json:"currencyCode"`
	RetailPrice   *decimal.Decimal `json:"retailPrice"`
	UnitOfMeasure string           `json:"unitOfMeasure"`
	ArmRegionName string           `json:"armRegionName"`
	ArmSkuName    string           `json:"armSkuName"`
	Type          string           `json:"type"`
}

// Parse implements feeds.Importer: one page, dated by o.AsOf (a page
// carries no date; without one the error wraps feeds.ErrNoDate).
func (f *FakeImporter) Parse(format string, r io.Reader, o feeds.ParseOptions) (*feeds.Result, error) {
	if format != FakeFormat {
		return nil, fmt.Errorf("format %q: want %s", format, FakeFormat)
	}
	if o.AsOf == "" { // a page carries no date, like most price APIs' answers
		return nil, fmt.Errorf("%s: %w", o.Origin, feeds.ErrNoDate)
	}
	res := &feeds.Result{}
	if _, err := f.parsePage(r, o, res, map[string]int{}); err != nil {
		return nil, err
	}
	return res, nil
}

// parsePage adds a page's rows to res (index: offering key → position) and
// returns its NextPageLink.
func (f *FakeImporter) parsePage(r io.Reader, o feeds.ParseOptions, res *feeds.Result, index map[string]int) (string, error) {
	var page FakePage
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&page); err != nil {
		return "", fmt.Errorf("%s: malformed page: %w", o.Origin, err)
	}
	for i, it := range page.Items {
		origin := fmt.Sprintf("%s:Items[%d]", o.Origin, i)
		what := it.ArmSkuName + " " + it.ArmRegionName
		switch {
		case it.ArmSkuName == "" || it.ArmRegionName == "" || it.RetailPrice == nil || it.CurrencyCode == "":
			res.Leave(origin, what, "missing armSkuName, armRegionName, retailPrice or currencyCode")
			continue
		case it.UnitOfMeasure != "1 Hour":
			res.Leave(origin, what, fmt.Sprintf("unit %q, want 1 Hour", it.UnitOfMeasure))
			continue
		case !it.RetailPrice.IsPositive():
			res.Leave(origin, what, "price not above zero")
			continue
		case it.CurrencyCode != f.Currency:
			res.Leave(origin, what, fmt.Sprintf("currency %s, want %s", it.CurrencyCode, f.Currency))
			continue
		case it.Type != "Consumption" && it.Type != "Spot":
			res.Leave(origin, what, fmt.Sprintf("type %q, want Consumption or Spot", it.Type))
			continue
		}
		key := it.ArmSkuName + "/" + it.ArmRegionName
		j, ok := index[key]
		if !ok {
			res.Offerings = append(res.Offerings, feeds.Offering{Origin: origin, Provider: f.ProviderName, InstanceType: it.ArmSkuName,
				Region: it.ArmRegionName, OnDemand: feeds.Unknown(f.Currency)})
			j = len(res.Offerings) - 1
			index[key] = j
		}
		p := feeds.Known(*it.RetailPrice, it.CurrencyCode, o.Source, o.AsOf)
		if it.Type == "Spot" {
			res.Offerings[j].Spot = p
		} else {
			res.Offerings[j].OnDemand = p
		}
	}
	if page.NextPageLink == nil {
		return "", nil
	}
	return *page.NextPageLink, nil
}

// Fetch implements feeds.Importer: GET {Endpoint}/prices?region=R for each
// region (one request without region for all), following NextPageLink.
func (f *FakeImporter) Fetch(ctx context.Context, req feeds.FetchRequest) (*feeds.Result, error) {
	token := req.Getenv(FakeTokenEnv)
	if token == "" {
		return nil, fmt.Errorf("%s: %w", f.ProviderName, feeds.ErrNoCredentials)
	}
	if req.Endpoint == "" {
		return nil, fmt.Errorf("the fake importer needs an endpoint")
	}
	day := req.Now().UTC().Format("2006-01-02")
	o := feeds.ParseOptions{Source: f.SourceID + "@" + day, AsOf: day}
	regions := req.Regions
	if len(regions) == 0 {
		regions = []string{""}
	}
	maxPages := req.MaxPages
	if maxPages <= 0 {
		maxPages = 100
	}
	res := &feeds.Result{}
	index := map[string]int{}
	pages := 0
	for _, region := range regions {
		next := strings.TrimSuffix(req.Endpoint, "/") + "/prices"
		if region != "" {
			next += "?region=" + url.QueryEscape(region)
		}
		for next != "" {
			if pages++; pages > maxPages {
				return nil, fmt.Errorf("more than %d pages", maxPages)
			}
			hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
			if err != nil {
				return nil, err
			}
			hreq.Header.Set("Authorization", "Bearer "+token)
			resp, err := req.HTTP.Do(hreq)
			if err != nil {
				return nil, err
			}
			o.Origin = fmt.Sprintf("page %d", pages)
			if resp.StatusCode != http.StatusOK {
				resp.Body.Close()
				return nil, fmt.Errorf("%s: HTTP %d", o.Origin, resp.StatusCode)
			}
			limit := req.MaxBody
			if limit <= 0 {
				limit = 1 << 20
			}
			next, err = f.parsePage(io.LimitReader(resp.Body, limit), o, res, index)
			resp.Body.Close()
			if err != nil {
				return nil, err
			}
			if req.Progress != nil {
				req.Progress(pages, 0, o.Origin)
			}
		}
	}
	res.Lists = true // every page of each region asked
	return res, nil
}
