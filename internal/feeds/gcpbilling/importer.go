package gcpbilling

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Format is the offline format: one skus.list response body (or several
// written one after another).
const Format = "gcp-skus"

// ServiceID is Compute Engine's service in the Cloud Billing Catalog.
const ServiceID = "6F81-5844-456A"

// DefaultEndpoint is the Cloud Billing API's base URL.
const DefaultEndpoint = "https://cloudbilling.googleapis.com"

// KeyVars are the environment variables the API key is read from, in order:
// GOOGLE_API_KEY (the name Google's client libraries and gcloud samples
// use), then GCP_API_KEY.
var KeyVars = []string{"GOOGLE_API_KEY", "GCP_API_KEY"}

// Limits of a fetch where the request leaves them 0.
const (
	DefaultMaxBody  = 64 << 20 // one page of 5,000 SKUs is a few MB
	DefaultMaxPages = 100      // Compute Engine has some tens of thousands of SKUs
	pageSize        = 5000     // the most the API returns per page
)

// Importer is the Cloud Billing Catalog as a feeds.Importer. Specs are the
// machine shapes it prices (GPU, GPU count, vCPUs, GiB of memory per
// instance type): the catalog's GCP machines, passed in by the refresh with
// WithSpecs, since a feed imports nothing but feeds.
type Importer struct {
	Specs    []feeds.Spec
	Currency string // ISO 4217 code asked of the API and expected in every price; "" is USD
}

// New returns the importer for the shapes.
func New(specs []feeds.Spec) *Importer { return &Importer{Specs: specs} }

// WithSpecs returns a copy of the importer that prices the shapes
// (feeds.SpecTaker).
func (im *Importer) WithSpecs(specs []feeds.Spec) feeds.Importer {
	c := *im
	c.Specs = specs
	return &c
}

// Provider implements feeds.Importer.
func (im *Importer) Provider() string { return "gcp" }

// Formats implements feeds.Importer.
func (im *Importer) Formats() []feeds.Format {
	return []feeds.Format{{Name: Format, Title: "Cloud Billing Catalog skus.list response for Compute Engine (GET cloudbilling.googleapis.com/v1/services/" + ServiceID + "/skus)"}}
}

// CredentialHelp says where the API key is read from.
func (im *Importer) CredentialHelp() string {
	return "a Google Cloud API key (with the Cloud Billing API enabled) in GOOGLE_API_KEY or GCP_API_KEY"
}

func (im *Importer) currency() string {
	if im.Currency == "" {
		return "USD"
	}
	return im.Currency
}

// Parse implements feeds.Importer: it reads a response body (or file) and
// prices the importer's shapes from its SKUs. The prices are dated by
// o.AsOf where given, else by the response's own date: the latest
// effectiveTime of its SKUs' pricing (asked without a time range, the API
// answers with the pricing in effect within the last 12 hours); a response
// without one is an error wrapping feeds.ErrNoDate.
func (im *Importer) Parse(format string, r io.Reader, o feeds.ParseOptions) (*feeds.Result, error) {
	if format != Format {
		return nil, fmt.Errorf("gcpbilling: format %q: want %q", format, Format)
	}
	if err := im.needSpecs(); err != nil {
		return nil, err
	}
	res := &feeds.Result{}
	ix := newIndex(im.currency(), originOf(o.Origin, Format), res)
	latest := ""
	pg, err := decodePage(r, func(s *SKU) error {
		for _, p := range s.PricingInfo { // RFC 3339 times in UTC compare as strings
			latest = max(latest, p.EffectiveTime)
		}
		ix.add(s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Lists = pg.NextPageToken == "" // skus.list takes no filter: the last page ends the whole list
	asOf := o.AsOf
	if asOf == "" {
		t, err := time.Parse(time.RFC3339Nano, latest)
		if err != nil {
			return nil, fmt.Errorf("gcpbilling: %w (no SKU has an effectiveTime)", feeds.ErrNoDate)
		}
		asOf = t.UTC().Format("2006-01-02")
	}
	var regions []string
	if o.Region != "" {
		regions = []string{o.Region}
	}
	ix.sum(im.Specs, regions, o.Source, asOf)
	return res, nil
}

// needSpecs refuses to run without shapes: every SKU would be left out.
func (im *Importer) needSpecs() error {
	if len(im.Specs) == 0 {
		return errors.New("gcpbilling: no machine shapes to price (pass the catalog's GCP machine types with WithSpecs)")
	}
	return nil
}

func originOf(origin, dflt string) string {
	if origin == "" {
		return dflt
	}
	return origin
}

// Fetch implements feeds.Importer: it pages through Compute Engine's SKUs
// with the user's API key, sent in the X-Goog-Api-Key header (Google Cloud
// "Use API keys to access APIs": the REST alternative to ?key=) so that it
// is never part of a URL, nor of an error quoting one.
func (im *Importer) Fetch(ctx context.Context, req feeds.FetchRequest) (*feeds.Result, error) {
	if err := im.needSpecs(); err != nil {
		return nil, err
	}
	getenv := req.Getenv
	if getenv == nil {
		return nil, fmt.Errorf("gcpbilling: no environment to read the API key from: %w", feeds.ErrNoCredentials)
	}
	key := ""
	for _, v := range KeyVars {
		if key = strings.TrimSpace(getenv(v)); key != "" {
			break
		}
	}
	if key == "" {
		return nil, fmt.Errorf("gcpbilling: set GOOGLE_API_KEY (or GCP_API_KEY) to a Google Cloud API key: %w", feeds.ErrNoCredentials)
	}
	base := DefaultEndpoint
	if req.Endpoint != "" {
		base = strings.TrimRight(req.Endpoint, "/")
	}
	u, err := url.Parse(base + "/v1/services/" + ServiceID + "/skus")
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("gcpbilling: endpoint %q is not an http(s) URL", req.Endpoint)
	}
	doer := req.Client()
	maxBody, maxPages := req.Limits(DefaultMaxBody, DefaultMaxPages)
	now := req.Clock()
	at := now().UTC()
	source, asOf := "gcp-billing-catalog@"+at.Format("2006-01-02"), at.Format("2006-01-02")
	res := &feeds.Result{}
	ix := newIndex(im.currency(), u.Host+u.Path, res)
	token := ""
	seen := map[string]bool{}
	for page := 1; ; page++ {
		if page > maxPages {
			return nil, fmt.Errorf("gcpbilling: more than %d pages of SKUs (the most followed); raise the page limit", maxPages)
		}
		q := url.Values{"currencyCode": {im.currency()}, "pageSize": {fmt.Sprint(pageSize)}}
		if token != "" {
			q.Set("pageToken", token)
		}
		pu := *u
		pu.RawQuery = q.Encode()
		pg, err := im.fetchPage(ctx, doer, pu.String(), key, maxBody, ix)
		if err != nil {
			return nil, fmt.Errorf("gcpbilling: page %d: %w", page, err)
		}
		if req.Progress != nil {
			req.Progress(page, 0, fmt.Sprintf("Compute Engine SKUs page %d (%d SKUs)", page, pg.SKUs))
		}
		if pg.NextPageToken == "" {
			break
		}
		if seen[pg.NextPageToken] {
			return nil, fmt.Errorf("gcpbilling: page %d repeats an earlier page token: the API is looping", page)
		}
		seen[pg.NextPageToken] = true
		token = pg.NextPageToken
	}
	ix.sum(im.Specs, req.Regions, source, asOf)
	res.Lists = true // every page of the service's SKUs
	return res, nil
}

// fetchPage gets one page and files its SKUs.
func (im *Importer) fetchPage(ctx context.Context, doer feeds.Doer, u, key string, maxBody int64, ix *index) (Page, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Page{}, err
	}
	hr.Header.Set("X-Goog-Api-Key", key)
	hr.Header.Set("Accept", "application/json")
	resp, err := doer.Do(hr)
	if err != nil {
		return Page{}, redact(err, key)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Page{}, fmt.Errorf("HTTP %d: %s", resp.StatusCode, redactString(strings.TrimSpace(string(msg)), key))
	}
	return decodePage(feeds.LimitBody(resp.Body, maxBody), func(s *SKU) error { ix.add(s); return nil })
}

// redact removes the key from an error's text (a transport error never
// carries it, as it travels in a header, but a Doer might echo requests).
func redact(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(redactString(err.Error(), key))
}

func redactString(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}
