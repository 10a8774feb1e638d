package alibabaecs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// APIVersion is the ECS API version the importer speaks.
const APIVersion = "2014-05-26"

// DefaultRegions are the regions the catalog lists Alibaba Cloud GPU
// offers in (internal/catalog/data/providers.yaml); Fetch asks them when
// the request names none.
var DefaultRegions = []string{"cn-hangzhou", "cn-shanghai", "cn-beijing", "cn-zhangjiakou", "cn-wulanchabu", "cn-shenzhen", "cn-hongkong", "ap-southeast-1"}

// priceAsks are the DescribePrice requests made per instance type and
// region: pay-as-you-go per hour, then 1-month, 1-year and 3-year
// subscriptions (each answer is the total paid upfront for the term).
var priceAsks = []Request{{PriceUnit: "Hour"}, {PriceUnit: "Month", Period: 1}, {PriceUnit: "Year", Period: 1}, {PriceUnit: "Year", Period: 3}}

// Defaults and bounds of a fetch.
const (
	defaultMaxBody  = 16 << 20
	defaultMaxPages = 100
	typesPageSize   = 100
)

// ErrThrottled is what Fetch wraps when the API still answered Throttling
// after every try.
var ErrThrottled = errors.New("alibaba: throttled (Throttling.*)")

var (
	regionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]{2}-[a-z0-9]+(-[a-z0-9]+)*$`) })
	typeRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ecs\.[a-z0-9][a-z0-9.-]*$`) })
)

// Fetch implements feeds.Importer: for every region and GPU instance type,
// DescribePrice per pricing model (pay-as-you-go; 1-month, 1-year and
// 3-year subscriptions) and DescribeSpotPriceHistory (Linux, VPC; the
// latest price of each zone over the API's default three hours), every
// price cited "alibaba-ecs-api@DATE". A request answered Throttling.* (HTTP
// 400, which the caller's client does not retry) is sent again after a
// doubling wait. An answer about the type (not sold in the region, no
// price) is left out with the API's code and message; one about the
// account or credentials stops the fetch with that code and message; a
// malformed answer stops it naming the request.
func (im *Importer) Fetch(ctx context.Context, req feeds.FetchRequest) (*feeds.Result, error) {
	creds, err := LoadCredentials(req.Getenv, req.HomeDir)
	if err != nil {
		return nil, err
	}
	regions := req.Regions
	if len(regions) == 0 {
		regions = DefaultRegions
	}
	for _, r := range regions {
		if !regionRE().MatchString(r) {
			return nil, fmt.Errorf("alibaba: region %q: want an Alibaba Cloud region id such as cn-hangzhou or ap-southeast-1", r)
		}
	}
	for _, t := range im.InstanceTypes {
		if !typeRE().MatchString(t) {
			return nil, fmt.Errorf("alibaba: instance type %q: want an ECS instance type such as ecs.gn7i-c8g1.2xlarge", t)
		}
	}
	var base *url.URL
	if req.Endpoint != "" {
		base, err = url.Parse(req.Endpoint)
		if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
			return nil, fmt.Errorf("alibaba: endpoint %q: want an http(s) URL such as https://ecs.cn-hangzhou.aliyuncs.com", req.Endpoint)
		}
	}
	now := req.Clock()
	asOf := now().UTC().Format("2006-01-02")
	f := &fetcher{im: im, req: req, creds: creds, base: base, now: now, doer: req.Client()}
	_, f.maxPages = req.Limits(defaultMaxBody, defaultMaxPages)
	types := im.InstanceTypes
	if len(types) == 0 {
		if types, err = f.gpuTypes(ctx, regions[0]); err != nil {
			return nil, err
		}
		if len(types) == 0 {
			return nil, fmt.Errorf("alibaba: DescribeInstanceTypes in %s lists no GPU instance type", regions[0])
		}
	}
	c := newCollector("alibaba-ecs-api@"+asOf, asOf)
	total := len(regions) * len(types) * (len(priceAsks) + 1)
	done := 0
	for _, region := range regions {
		for _, typ := range types {
			if err := f.priceType(ctx, c, region, typ, &done, total); err != nil {
				return nil, err
			}
		}
	}
	res := c.result()
	res.Lists = true // every GPU type DescribeInstanceTypes lists, priced or left out with the API's reason
	return res, nil
}

// fetcher holds one fetch's state.
type fetcher struct {
	im       *Importer
	req      feeds.FetchRequest
	creds    Credentials
	base     *url.URL
	now      func() time.Time
	doer     feeds.Doer
	maxPages int
}

func (f *fetcher) progress(done, total int, what string) {
	if f.req.Progress != nil {
		f.req.Progress(done, total, what)
	}
}

// priceType asks the prices of one instance type in one region: a
// DescribePrice request per pricing model, then the spot price history. A
// type the region does not sell (InvalidInstanceType.*, InstanceType.Offline
// on the pay-as-you-go ask) is not asked further.
func (f *fetcher) priceType(ctx context.Context, c *collector, region, typ string, done *int, total int) error {
	for i, ask := range priceAsks {
		r := ask
		r.RegionID, r.InstanceType = region, typ
		params := url.Values{"RegionId": {region}, "ResourceType": {"instance"}, "InstanceType": {typ}, "PriceUnit": {r.PriceUnit}}
		if r.Period > 0 {
			params.Set("Period", strconv.Itoa(r.Period))
		}
		what := "DescribePrice " + r.String()
		body, err := f.call(ctx, region, "DescribePrice", params, what)
		origin := "alibaba-ecs-api#DescribePrice " + r.String()
		*done++
		var apiErr *APIError
		switch {
		case errors.As(err, &apiErr) && !apiErr.fatal():
			c.res.Leave(origin, r.String(), "the API answered "+apiErr.Code+": "+apiErr.Message)
			if i == 0 && apiErr.notSold() {
				c.res.Leave("alibaba-ecs-api#DescribePrice "+typ+" "+region, typ+" "+region,
					"subscription and spot prices not asked: the type is not sold in the region ("+apiErr.Code+")")
				*done += len(priceAsks)
				f.progress(*done, total, what)
				return nil
			}
		case err != nil:
			return err
		default:
			if err := c.addPrice(origin, r, body); err != nil {
				return fmt.Errorf("alibaba: DescribePrice %w", err)
			}
		}
		f.progress(*done, total, what)
	}
	if err := f.spot(ctx, c, region, typ); err != nil {
		return err
	}
	*done++
	f.progress(*done, total, "DescribeSpotPriceHistory "+typ+" "+region)
	return nil
}

// gpuTypes pages through DescribeInstanceTypes and keeps the GPU types.
func (f *fetcher) gpuTypes(ctx context.Context, region string) ([]string, error) {
	var types []string
	token := ""
	for page := 1; ; page++ {
		if page > f.maxPages {
			return nil, fmt.Errorf("alibaba: DescribeInstanceTypes: more than %d pages", f.maxPages)
		}
		params := url.Values{"MaxResults": {strconv.Itoa(typesPageSize)}}
		if token != "" {
			params.Set("NextToken", token)
		}
		what := fmt.Sprintf("DescribeInstanceTypes page %d", page)
		body, err := f.call(ctx, region, "DescribeInstanceTypes", params, what)
		if err != nil {
			return nil, err
		}
		got, next, err := parseTypes(body)
		if err != nil {
			return nil, fmt.Errorf("alibaba: %s: %w", what, err)
		}
		types = append(types, got...)
		f.progress(0, 0, what)
		if next == "" || next == token {
			return types, nil
		}
		token = next
	}
}

// spot asks DescribeSpotPriceHistory for the type in the region, page by page.
func (f *fetcher) spot(ctx context.Context, c *collector, region, typ string) error {
	offset := 0
	for page := 1; ; page++ {
		what := fmt.Sprintf("DescribeSpotPriceHistory %s %s page %d", typ, region, page)
		origin := "alibaba-ecs-api#DescribeSpotPriceHistory " + typ + " " + region
		if page > 1 {
			origin += " offset " + strconv.Itoa(offset)
		}
		if page > f.maxPages {
			c.res.Leave(origin, typ+" "+region, fmt.Sprintf("more spot price pages than the %d followed", f.maxPages))
			return nil
		}
		params := url.Values{"RegionId": {region}, "InstanceType": {typ}, "NetworkType": {"vpc"}, "OSType": {"linux"}}
		if offset > 0 {
			params.Set("Offset", strconv.Itoa(offset))
		}
		body, err := f.call(ctx, region, "DescribeSpotPriceHistory", params, what)
		var apiErr *APIError
		if errors.As(err, &apiErr) && !apiErr.fatal() {
			c.res.Leave(origin, typ+" "+region, "the API answered "+apiErr.Code+": "+apiErr.Message)
			return nil
		}
		if err != nil {
			return err
		}
		b, err := parseSpot(body)
		if err != nil {
			return fmt.Errorf("alibaba: %s: %w", what, err)
		}
		c.addSpot(origin, b, region)
		next := 0
		if b.NextOffset != nil {
			n, err := strconv.Atoi(b.NextOffset.String())
			if err != nil {
				return fmt.Errorf("alibaba: %s: NextOffset %q is not a whole number", what, b.NextOffset.String())
			}
			next = n
		}
		if next <= offset || len(b.SpotPrices.SpotPriceType) == 0 {
			return nil
		}
		offset = next
	}
}

// endpoint is the API's address for the region.
func (f *fetcher) endpoint(region string) *url.URL {
	if f.base != nil {
		u := *f.base
		if u.Path == "" {
			u.Path = "/"
		}
		return &u
	}
	return &url.URL{Scheme: "https", Host: "ecs." + region + ".aliyuncs.com", Path: "/"}
}

// call sends one signed request, again after a doubling wait while the API
// answers Throttling.*, and returns the body of a 200 answer; an error
// answer is an *APIError.
func (f *fetcher) call(ctx context.Context, region, action string, params url.Values, what string) ([]byte, error) {
	var body []byte
	var apiErr *APIError
	tries, exhausted, err := f.im.Throttle.Retry(ctx, func() (bool, error) {
		var err error
		body, err = f.send(ctx, region, action, params, what)
		return errors.As(err, &apiErr) && apiErr.throttled(), err
	}, func(wait time.Duration) {
		f.progress(0, 0, fmt.Sprintf("%s: throttled (%s), waiting %s", what, apiErr.Code, wait))
	})
	if exhausted {
		return nil, fmt.Errorf("%w: %s: still throttled after %d tries: %s: %s", ErrThrottled, what, tries, apiErr.Code, apiErr.Message)
	}
	return body, err
}

func (f *fetcher) nonce() string {
	if f.im.Nonce != nil {
		return f.im.Nonce()
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// send sends the request once.
func (f *fetcher) send(ctx context.Context, region, action string, params url.Values, what string) ([]byte, error) {
	u := f.endpoint(region)
	stamp := f.now().UTC().Format("2006-01-02T15:04:05Z")
	var hr *http.Request
	var err error
	if f.im.SignatureV2 {
		q := url.Values{"Action": {action}, "Version": {APIVersion}, "Format": {"JSON"}, "AccessKeyId": {f.creds.AccessKeyID},
			"SignatureMethod": {"HMAC-SHA1"}, "SignatureVersion": {"1.0"}, "SignatureNonce": {f.nonce()}, "Timestamp": {stamp}}
		if f.creds.SecurityToken != "" {
			q.Set("SecurityToken", f.creds.SecurityToken)
		}
		for k, v := range params {
			q[k] = v
		}
		u.RawQuery = canonicalQuery(q) + "&Signature=" + percentEncode(SignV2(http.MethodGet, q, f.creds.AccessKeySecret))
		hr, err = http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	} else {
		u.RawQuery = canonicalQuery(params)
		hr, err = http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
		if err == nil {
			h := map[string]string{"host": u.Host, "x-acs-action": action, "x-acs-version": APIVersion, "x-acs-date": stamp,
				"x-acs-signature-nonce": f.nonce(), "x-acs-content-sha256": hexSHA256(nil)}
			if f.creds.SecurityToken != "" {
				h["x-acs-security-token"] = f.creds.SecurityToken
			}
			for k, v := range h {
				if k != "host" {
					hr.Header.Set(k, v)
				}
			}
			hr.Header.Set("Authorization", SignV3(V3Request{Method: http.MethodPost, Path: "/", Query: params, Headers: h}, f.creds.AccessKeyID, f.creds.AccessKeySecret))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("alibaba: %s: %v", what, err)
	}
	hr.Header.Set("Accept", "application/json")
	resp, err := f.doer.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("alibaba: %s: %s", what, redact(err.Error(), f.creds))
	}
	defer resp.Body.Close()
	max, _ := f.req.Limits(defaultMaxBody, defaultMaxPages)
	body, err := feeds.ReadBody(resp.Body, max)
	if tl := (*feeds.TooLargeError)(nil); errors.As(err, &tl) {
		return nil, fmt.Errorf("alibaba: %s: the answer is over %d bytes", what, max)
	}
	if err != nil {
		return nil, fmt.Errorf("alibaba: %s: reading the answer: %s", what, redact(err.Error(), f.creds))
	}
	if resp.StatusCode == http.StatusOK {
		return body, nil
	}
	if code, msg, rid, ok := errorBody(body); ok {
		return nil, &APIError{Status: resp.StatusCode, Code: code, Message: redact(msg, f.creds), RequestID: rid, What: what}
	}
	return nil, fmt.Errorf("alibaba: %s: HTTP %d with a body that is no API error answer: %q", what, resp.StatusCode, redact(snippet(body), f.creds))
}

// redact removes the credentials from s (a server may echo a request back).
func redact(s string, c Credentials) string {
	for _, secret := range []string{c.AccessKeySecret, c.SecurityToken} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return s
}

func snippet(b []byte) string {
	const n = 120
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
