package azureretail

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Format is the offline format: one Retail Prices response body.
const Format = "azure-retail"

// DefaultEndpoint is the Retail Prices API's base URL.
const DefaultEndpoint = "https://prices.azure.com"

// APIVersion is the version asked for: the one that returns reservation
// terms and savings-plan rates (filter values are case-sensitive in it).
const APIVersion = "2023-01-01-preview"

// Limits of a fetch where the request leaves them 0.
const (
	DefaultMaxBody  = 16 << 20 // a page holds at most 1,000 items
	DefaultMaxPages = 200
)

// Importer is the Azure Retail Prices API as a feeds.Importer.
type Importer struct {
	// Sizes are the sizes imported (the catalog's Azure GPU sizes, given by
	// the refresh with WithSpecs); empty: every N-series size.
	Sizes    []string
	Currency string // ISO 4217 code asked of the API and expected in every item; "" is USD
}

// New returns the importer.
func New() *Importer { return &Importer{} }

// WithSpecs returns a copy of the importer limited to the Azure sizes of
// specs (the catalog's curated GPU sizes): feeds.SpecTaker.
func (im *Importer) WithSpecs(specs []feeds.Spec) feeds.Importer {
	c := *im
	c.Sizes = nil
	for _, s := range specs {
		if s.Provider == "" || s.Provider == "azure" {
			c.Sizes = append(c.Sizes, s.InstanceType)
		}
	}
	return &c
}

// Provider implements feeds.Importer.
func (im *Importer) Provider() string { return "azure" }

// Formats implements feeds.Importer.
func (im *Importer) Formats() []feeds.Format {
	return []feeds.Format{{Name: Format, Title: "Azure Retail Prices API response (GET prices.azure.com/api/retail/prices?api-version=" + APIVersion + "&$filter=serviceName eq 'Virtual Machines' ...); needs --as-of, the response carries no date (effectiveStartDate is when each price took effect)"}}
}

func (im *Importer) currency() string {
	if im.Currency == "" {
		return "USD"
	}
	return im.Currency
}

func (im *Importer) collector(source, asOf, origin string) *collector {
	var sizes map[string]bool
	if len(im.Sizes) > 0 {
		sizes = map[string]bool{}
		for _, s := range im.Sizes {
			sizes[s] = true
		}
	}
	return newCollector(im.currency(), sizes, source, asOf, origin)
}

// Parse implements feeds.Importer. A response carries no date of its own
// (an item's effectiveStartDate is when its price took effect, which may be
// years before the response was read), so o.AsOf must give one, else the
// error wraps feeds.ErrNoDate.
func (im *Importer) Parse(format string, r io.Reader, o feeds.ParseOptions) (*feeds.Result, error) {
	if format != Format {
		return nil, fmt.Errorf("azureretail: format %q: want %q", format, Format)
	}
	if o.AsOf == "" {
		return nil, fmt.Errorf("azureretail: %w (effectiveStartDate is when each price took effect, not when the response was read)", feeds.ErrNoDate)
	}
	origin := o.Origin
	if origin == "" {
		origin = Format
	}
	c := im.collector(o.Source, o.AsOf, origin)
	if _, err := decodePage(r, func(it *Item) error {
		if o.Region == "" || it.ArmRegionName == o.Region {
			c.add(it)
		} else {
			c.n++
			c.res.Leave(fmt.Sprintf("%s#item/%d", origin, c.n), it.ArmSKUName+" "+it.ArmRegionName, "not the region asked for ("+o.Region+")")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return c.finish(), nil
}

// regionRE is what an ARM region name looks like; anything else would change
// the OData filter it is quoted into.
var regionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]{1,40}$`) })

// Filter is the OData filter of one region's GPU VM prices ("" region: all).
func Filter(region string) string {
	f := "serviceName eq 'Virtual Machines' and contains(armSkuName, '" + GPUPrefix + "')"
	if region != "" {
		f += " and armRegionName eq '" + region + "'"
	}
	return f
}

// query escapes a query value with %20 for spaces: OData reads '+' as a plus.
func query(v string) string { return strings.ReplaceAll(url.QueryEscape(v), "+", "%20") }

// Fetch implements feeds.Importer: for each region asked (all regions when
// none), it pages through the API's GPU VM prices, following NextPageLink
// on the same host only.
func (im *Importer) Fetch(ctx context.Context, req feeds.FetchRequest) (*feeds.Result, error) {
	for _, r := range req.Regions {
		if !regionRE().MatchString(r) {
			return nil, fmt.Errorf("azureretail: region %q is not an Azure region name (lower-case letters and digits, e.g. eastus)", r)
		}
	}
	base := DefaultEndpoint
	if req.Endpoint != "" {
		base = strings.TrimRight(req.Endpoint, "/")
	}
	bu, err := url.Parse(base + "/api/retail/prices")
	if err != nil || (bu.Scheme != "https" && bu.Scheme != "http") || bu.Host == "" {
		return nil, fmt.Errorf("azureretail: endpoint %q is not an http(s) URL", req.Endpoint)
	}
	doer := req.Client()
	maxBody, maxPages := req.Limits(DefaultMaxBody, DefaultMaxPages)
	now := req.Clock()
	day := now().UTC().Format("2006-01-02")
	c := im.collector("azure-retail-prices@"+day, day, bu.Host+bu.Path)
	regions := req.Regions
	if len(regions) == 0 {
		regions = []string{""}
	}
	pages := 0
	for _, region := range regions {
		next := bu.String() + "?api-version=" + APIVersion + "&currencyCode=" + query("'"+im.currency()+"'") +
			"&meterRegion=" + query("'primary'") + "&$filter=" + query(Filter(region))
		seen := map[string]bool{}
		for next != "" {
			pages++
			if pages > maxPages {
				return nil, fmt.Errorf("azureretail: more than %d pages (the most followed); raise the page limit or ask for fewer regions", maxPages)
			}
			pg, err := fetchPage(ctx, doer, next, maxBody, c)
			if err != nil {
				return nil, fmt.Errorf("azureretail: %s page %d: %w", regionName(region), len(seen)+1, err)
			}
			if req.Progress != nil {
				req.Progress(pages, 0, fmt.Sprintf("Azure retail prices %s page %d (%d items)", regionName(region), len(seen)+1, pg.Items))
			}
			seen[next] = true
			next = pg.NextPageLink
			if next == "" {
				break
			}
			nu, err := url.Parse(next)
			if err != nil || nu.Scheme != bu.Scheme || nu.Host != bu.Host {
				return nil, fmt.Errorf("azureretail: NextPageLink %q is not on %s://%s: not followed", next, bu.Scheme, bu.Host)
			}
			if seen[next] {
				return nil, fmt.Errorf("azureretail: NextPageLink repeats an earlier page: the API is looping")
			}
		}
	}
	res := c.finish()
	res.Lists = true // every page of the GPU sizes of each region asked
	return res, nil
}

func regionName(r string) string {
	if r == "" {
		return "all regions"
	}
	return r
}

func fetchPage(ctx context.Context, doer feeds.Doer, u string, maxBody int64, c *collector) (Page, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Page{}, err
	}
	hr.Header.Set("Accept", "application/json")
	resp, err := doer.Do(hr)
	if err != nil {
		return Page{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Page{}, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	return decodePage(feeds.LimitBody(resp.Body, maxBody), func(it *Item) error { c.add(it); return nil })
}
