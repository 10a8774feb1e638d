package tencentcvm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Endpoint is the CVM API's address on the China site (prices in CNY).
const Endpoint = "https://cvm.tencentcloudapi.com"

// APIVersion is the CVM API version the importer speaks.
const APIVersion = "2017-03-12"

// service is the signed service name: the first label of the API's host.
const service = "cvm"

// DefaultRegions are the regions DescribeZoneInstanceConfigInfos answers
// for, as its API page lists them (tencentcloud.com/document/product/213/33254,
// updated 2025-11-13); Fetch asks all of them when no region is given.
var DefaultRegions = []string{"ap-bangkok", "ap-beijing", "ap-chengdu", "ap-chongqing", "ap-guangzhou", "ap-hongkong",
	"ap-jakarta", "ap-nanjing", "ap-seoul", "ap-shanghai", "ap-shanghai-fsi", "ap-shenzhen-fsi", "ap-singapore", "ap-tokyo",
	"eu-frankfurt", "na-ashburn", "na-siliconvalley", "sa-saopaulo"}

// fetchCharges are the charge types Fetch asks for, one request each.
var fetchCharges = []string{ChargePostpaid, ChargeSpot, ChargePrepaid}

// defaultMaxBody bounds one answer (a region's full type list is a few MB).
const defaultMaxBody = 64 << 20

// Errors callers can tell apart (errors.Is).
var (
	// ErrAuth: the API refused the credentials (AuthFailure.*).
	ErrAuth = errors.New("tencent: the API refused the credentials")
	// ErrThrottled: the API still answered RequestLimitExceeded after every try.
	ErrThrottled = errors.New("tencent: throttled (RequestLimitExceeded)")
)

var regionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]{2}-[a-z0-9]+(-[a-z0-9]+)*$`) })

// Fetch implements feeds.Importer: DescribeZoneInstanceConfigInfos for
// every region and charge type (POSTPAID_BY_HOUR, SPOTPAID, PREPAID), the
// GPU rows turned into per-zone offerings and per-region prepaid
// commitments, cited "tencent-cvm-api@DATE". The API does not page. A
// request answered RequestLimitExceeded (HTTP 200, so the caller's client
// cannot see it) is sent again after a doubling wait, told to Progress; the
// fetch fails with ErrThrottled when every try is throttled, with ErrAuth
// when the API refuses the credentials. With no region asked, a default
// region the API refuses otherwise (a finance region the account may not
// use) is left out with the API's reason instead of failing the fetch.
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
			return nil, fmt.Errorf("tencent: region %q: want a Tencent Cloud region id such as ap-shanghai or na-siliconvalley", r)
		}
	}
	base := req.Endpoint
	if base == "" {
		base = Endpoint
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("tencent: endpoint %q: want an http(s) URL such as %s", base, Endpoint)
	}
	now := req.Clock()
	asOf := now().UTC().Format("2006-01-02")
	c := newCollector("tencent-cvm-api@"+asOf, asOf)
	total, done := len(regions)*len(fetchCharges), 0
	tell := func(msg string) {
		if req.Progress != nil {
			req.Progress(done, total, msg)
		}
	}
	var firstSkip error
	skipped := 0
	for _, region := range regions {
		for i, charge := range fetchCharges {
			payload, _ := json.Marshal(map[string]any{"Filters": []map[string]any{{"Name": "instance-charge-type", "Values": []string{charge}}}})
			origin := "DescribeZoneInstanceConfigInfos?Region=" + region + "&instance-charge-type=" + charge
			what := region + " " + charge
			err := im.call(ctx, req, creds, u, region, "DescribeZoneInstanceConfigInfos", payload, what, tell, func(r io.Reader) error {
				return c.zoneConfig(r, origin, region, false)
			})
			var apiErr *APIError
			if err != nil && len(req.Regions) == 0 && errors.As(err, &apiErr) && !errors.Is(err, ErrAuth) && !errors.Is(err, ErrThrottled) {
				// No region was asked: a default region this account may
				// not use (the finance regions, say) is skipped, not fatal.
				c.res.Leave(origin, "region "+region, "skipped: the API answered "+apiErr.Code+": "+apiErr.Message+" (a default region; ask for regions to make this an error)")
				if firstSkip == nil {
					firstSkip = err
				}
				skipped++
				done += len(fetchCharges) - i
				tell(region + " skipped (" + apiErr.Code + ")")
				break
			}
			if err != nil {
				return nil, err
			}
			done++
			tell(what)
		}
	}
	if skipped == len(regions) {
		return nil, fmt.Errorf("tencent: every region was refused; the first: %w", firstSkip)
	}
	res := c.result()
	res.Lists = true // each region's whole DescribeZoneInstanceConfigInfos answer, unfiltered
	return res, nil
}

// call sends one signed request and reads its answer, trying again while
// the API answers RequestLimitExceeded and telling each wait.
func (im *Importer) call(ctx context.Context, req feeds.FetchRequest, creds Credentials, u *url.URL, region, action string, payload []byte, what string, tell func(string), read func(io.Reader) error) error {
	now := req.Clock()
	var apiErr *APIError
	tries, exhausted, err := im.Throttle.Retry(ctx, func() (bool, error) {
		apiErr = nil
		err := im.once(ctx, req, creds, u, region, action, payload, now(), read)
		return err != nil && errors.As(err, &apiErr) && strings.HasPrefix(apiErr.Code, "RequestLimitExceeded"), err
	}, func(wait time.Duration) {
		tell(fmt.Sprintf("%s: throttled (%s), trying again in %s", what, apiErr.Code, wait))
	})
	if !errors.As(err, &apiErr) { // success, a transport error, or the context ended while waiting
		return err
	}
	code := apiErr.Code
	msg := redact(apiErr.Message, creds)
	switch {
	case exhausted:
		return fmt.Errorf("%w: %s %s: %d tries, the last answered %s: %s", ErrThrottled, action, what, tries, code, msg)
	case strings.HasPrefix(code, "AuthFailure"):
		hint := ""
		if code == "AuthFailure.SignatureExpire" {
			hint = "; the signature is dated by this machine's clock: check it is within 5 minutes of the real time"
		}
		return fmt.Errorf("%w (%s: %s); credentials from %s: check %s and %s, or the tccli profile ~/.tccli/PROFILE.credential%s",
			ErrAuth, code, msg, creds.From, EnvSecretID, EnvSecretKey, hint)
	}
	return fmt.Errorf("tencent: %s %s: the API answered %w", action, what, &APIError{Code: code, Message: msg, RequestID: apiErr.RequestID})
}

// once sends the request one time.
func (im *Importer) once(ctx context.Context, req feeds.FetchRequest, creds Credentials, u *url.URL, region, action string, payload []byte, at time.Time, read func(io.Reader) error) error {
	const contentType = "application/json; charset=utf-8"
	s := Signing{Method: http.MethodPost, Host: u.Host, Service: service, Timestamp: at.Unix(), Payload: payload,
		Headers:  map[string]string{"Content-Type": contentType, "Host": u.Host, "X-TC-Action": action},
		SecretID: creds.SecretID, SecretKey: creds.SecretKey}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("tencent: %s: %w", action, err)
	}
	hr.Header.Set("Content-Type", contentType)
	hr.Header.Set("X-TC-Action", action)
	hr.Header.Set("X-TC-Version", APIVersion)
	hr.Header.Set("X-TC-Timestamp", strconv.FormatInt(at.Unix(), 10))
	hr.Header.Set("X-TC-Region", region)
	if creds.Token != "" {
		hr.Header.Set("X-TC-Token", creds.Token)
	}
	hr.Header.Set("Authorization", s.Authorization())
	resp, err := req.Client().Do(hr)
	if err != nil {
		return fmt.Errorf("tencent: %s %s: %s", action, region, redact(err.Error(), creds))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("tencent: %s %s: HTTP %s", action, region, resp.Status)
	}
	max, _ := req.Limits(defaultMaxBody, 1) // the API does not page
	if err := read(feeds.LimitBody(resp.Body, max)); err != nil {
		if tl := (*feeds.TooLargeError)(nil); errors.As(err, &tl) {
			return fmt.Errorf("tencent: %s %s: the answer is larger than %d bytes", action, region, max)
		}
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			return err
		}
		return fmt.Errorf("tencent: %s %s: %w", action, region, err)
	}
	return nil
}

// sleep waits d, or until ctx ends.
// redact removes the credentials from a text that may quote them.
func redact(s string, c Credentials) string {
	for _, secret := range []string{c.SecretKey, c.Token, c.SecretID} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return s
}
