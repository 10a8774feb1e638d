// Package tencentcvm imports Tencent Cloud CVM prices (API 2017-03-12) for
// GPU instance types: DescribeZoneInstanceConfigInfos lists, per region,
// every instance type each zone sells with its price for one charge type
// (POSTPAID_BY_HOUR pay-as-you-go, SPOTPAID spot, PREPAID 包年包月 with its
// one- and three-year totals); InquiryPriceRunInstances prices one
// configuration. Prices are in yuan (CNY) as the China site quotes them, and
// the API's Discount is the percent PAID (20 = 2折 = 80% off).
//
// Offline, Parse reads a saved answer of either API (formats
// tencent-zoneconfig and tencent-inquiry); live, Fetch asks
// DescribeZoneInstanceConfigInfos for each region and charge type, signing
// each request with TC3-HMAC-SHA256 (sign.go) and the user's SecretId and
// SecretKey from the environment or the tccli profile (credentials.go).
// GPU instance types are the rows with a GPU count above zero (the API's
// own GpuCount or Gpu); the rest are left out with the reason.
//
// What the records keep: one offering per zone and type, its on-demand
// price from the POSTPAID_BY_HOUR row and its spot price from the SPOTPAID
// row (the price the account pays; where pay-as-you-go prices come in
// steps, the first step, for the first 96 hours); a sold-out row keeps its
// price, selling out being momentary. Prepaid totals become all-upfront
// subscriptions (1mo, 1y, 3y) per region, the first zone's where zones
// differ. A zero price is the API's "not given" and is never imported.
package tencentcvm

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Format names.
const (
	FormatZoneConfig = "tencent-zoneconfig"
	FormatInquiry    = "tencent-inquiry"
)

// Currency is the currency of every price the China-site API answers with
// (it names none in its answers).
const Currency = "CNY"

// Importer is the Tencent Cloud CVM price importer.
type Importer struct {
	// Throttle waits out requests answered RequestLimitExceeded (HTTP 200,
	// so the caller's client cannot see it): Tries, Backoff, Sleep.
	feeds.Throttle
}

// New returns the importer.
func New() *Importer { return &Importer{} }

var _ feeds.Importer = (*Importer)(nil)

// Provider implements feeds.Importer.
func (*Importer) Provider() string { return "tencent" }

// Formats implements feeds.Importer.
func (*Importer) Formats() []feeds.Format {
	return []feeds.Format{
		{Name: FormatZoneConfig, Title: "Tencent Cloud CVM DescribeZoneInstanceConfigInfos answers for one region, one or several one after another (`tccli cvm DescribeZoneInstanceConfigInfos --region R >> file.json`, once per charge type); needs --as-of, the answers carry no date"},
		{Name: FormatInquiry, Title: `Tencent Cloud CVM InquiryPriceRunInstances answers, each with the request it answers: {"Request": {...}, "Response": {...}} (one object, an array, or one per line); needs --as-of, the answers carry no date`},
	}
}

// CredentialHelp says, in one line, where Fetch reads credentials from
// (the refresh's feeds.CredentialHelper).
func (*Importer) CredentialHelp() string {
	return EnvSecretID + " and " + EnvSecretKey + " (" + EnvSessionToken + " for temporary keys), or ~/.tccli/default.credential as `tccli configure` writes it (" + EnvProfile + " picks another profile)"
}

// Parse implements feeds.Importer.
func (*Importer) Parse(format string, r io.Reader, o feeds.ParseOptions) (*feeds.Result, error) {
	if o.Source == "" {
		return nil, fmt.Errorf("tencent: parse options need a source id")
	}
	if o.AsOf == "" { // neither answer says when it was given
		return nil, fmt.Errorf("tencent: %s: %w (the CVM API's answers have none)", format, feeds.ErrNoDate)
	}
	if _, err := time.Parse("2006-01-02", o.AsOf); err != nil {
		return nil, fmt.Errorf("tencent: as-of %q: want YYYY-MM-DD", o.AsOf)
	}
	if o.Origin == "" {
		o.Origin = format
	}
	c := newCollector(o.Source, o.AsOf)
	switch format {
	case FormatZoneConfig:
		if err := c.zoneConfig(r, o.Origin, o.Region, true); err != nil {
			return nil, fmt.Errorf("%s: %w", o.Origin, err)
		}
	case FormatInquiry:
		if err := c.inquiries(r, o.Origin, o.Region); err != nil {
			return nil, fmt.Errorf("%s: %w", o.Origin, err)
		}
	default:
		return nil, fmt.Errorf("tencent: format %q; allowed: %s, %s", format, FormatZoneConfig, FormatInquiry)
	}
	return c.result(), nil
}

// zoneRegion is the region of a zone: "ap-guangzhou-6" is in "ap-guangzhou".
func zoneRegion(zone string) (string, bool) {
	i := strings.LastIndexByte(zone, '-')
	if i <= 0 || i == len(zone)-1 {
		return "", false
	}
	for _, c := range zone[i+1:] {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return zone[:i], true
}
