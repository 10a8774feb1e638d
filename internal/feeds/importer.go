package feeds

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// Importer is a provider's official price feed or pricing API: `gpuscout
// catalog refresh` fetches it live with the user's own credentials, and
// `catalog refresh --from-file F --format X` parses a downloaded response
// offline. Both yield the same feed-level records as a Source, which
// catalog/build turns into catalog offerings; an importer imports nothing of
// gpuscout but this package.
type Importer interface {
	// Provider is the catalog provider name the records are for ("aws").
	Provider() string
	// Formats lists the offline formats Parse reads ("aws-offer", ...), each
	// a response body (or file) of one kind the provider publishes.
	Formats() []Format
	// Parse reads one response body or downloaded file of the format. It
	// streams: a regional AWS offer file is hundreds of MB. Rows it cannot
	// use (missing fields, unknown units, negative prices, an unexpected
	// currency) are left out with a reason, never imported as zero.
	Parse(format string, r io.Reader, o ParseOptions) (*Result, error)
	// Fetch asks the provider's API for the GPU instance prices of
	// req.Regions (all the provider's GPU regions when empty).
	Fetch(ctx context.Context, req FetchRequest) (*Result, error)
}

// Format is one offline format an importer reads.
type Format struct {
	Name  string // "aws-offer": the --format value
	Title string // one line: what the file is and where to download it
	// PerProvider marks a format that several providers' importers read
	// alike (skypilot-csv: SkyPilot's vms.csv of any of its clouds); the
	// file does not say whose it is, so --provider must.
	PerProvider bool
}

// ParseOptions say where a parsed body came from: every record's price is
// cited by Source, dated by AsOf (YYYY-MM-DD) where it is set, else by the
// date the body itself carries (an AWS offer file's publicationDate, a spot
// price's timestamp, ...). A body that carries none, parsed without AsOf, is
// an error wrapping ErrNoDate: a price is never dated by the day it was read.
type ParseOptions struct {
	Source string // source id, e.g. "aws-pricing-api@2026-11-30" or "file:offer.json"
	AsOf   string
	// Region is the region the body is for, where the body does not say
	// (Tencent's InquiryPriceRunInstances answers for the region it was asked).
	Region string
	// Origin names the body in LeftOut and record origins ("offer.json").
	Origin string
}

// ErrNoDate is what Parse wraps when the body carries no date of its prices
// and ParseOptions.AsOf gives none: the caller must ask for one (catalog
// refresh --as-of), never use the day it reads the file.
var ErrNoDate = errors.New("it carries no date of its prices")

// Doer sends one HTTP request; the refresh passes a client that retries
// throttled (429, 503) and failed requests with backoff, so importers send
// each request once and page through results themselves.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// FetchRequest is what a live fetch needs from its caller.
type FetchRequest struct {
	Regions []string
	HTTP    Doer
	// Getenv reads credentials (ALIBABA_CLOUD_ACCESS_KEY_ID, ...) and
	// settings; credentials are never logged or written anywhere.
	Getenv func(string) string
	// HomeDir is where the providers' usual config files are looked for
	// (~/.aws/credentials, ~/.aliyun/config.json, ~/.tccli/...); "" skips them.
	HomeDir string
	// Endpoint, when set, replaces the provider's API base URL (fake servers
	// in tests, private endpoints).
	Endpoint string
	Now      func() time.Time
	// Progress, when set, is told what is fetched: done of total requests
	// (total 0 when unknown yet).
	Progress func(done, total int, what string)
	// Limits: the most bytes read of one response body (0: the importer's
	// default), the most pages followed.
	MaxBody  int64
	MaxPages int
}

// The request's defaults, decided here for every importer.

// DefaultTimeout bounds one HTTP exchange of an importer given no client.
const DefaultTimeout = 2 * time.Minute

// Clock returns Now, or the wall clock.
func (r *FetchRequest) Clock() func() time.Time {
	if r.Now != nil {
		return r.Now
	}
	return time.Now
}

// Client returns HTTP, or a plain client with DefaultTimeout.
func (r *FetchRequest) Client() Doer {
	if r.HTTP != nil {
		return r.HTTP
	}
	return &http.Client{Timeout: DefaultTimeout}
}

// Limits returns MaxBody and MaxPages, each replaced by the importer's
// default where unset (0).
func (r *FetchRequest) Limits(body int64, pages int) (int64, int) {
	if r.MaxBody > 0 {
		body = r.MaxBody
	}
	if r.MaxPages > 0 {
		pages = r.MaxPages
	}
	return body, pages
}
