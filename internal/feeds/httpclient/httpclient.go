// Package httpclient is the HTTP client live price importers fetch with (a
// feeds.Doer): per-attempt timeouts, retries with exponential backoff and
// jitter on throttling (429), unavailability (503), other server errors and
// connection errors, honouring the server's Retry-After; a User-Agent naming
// gpuscout and its version; and errors and log lines that never carry a
// credential (the Authorization header is never written anywhere, and
// signature, key and token query parameters are redacted). The retry loop is
// hashicorp/go-retryablehttp's.
package httpclient

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Options configure a Client; zero fields take the defaults.
type Options struct {
	// UserAgent is sent with every request ("gpuscout/v0.3.0"); default
	// "gpuscout/dev".
	UserAgent string
	// HeaderTimeout bounds the wait for a response's headers (default 60s);
	// Timeout, when set, bounds a whole attempt including reading the body
	// (a regional AWS offer file is hundreds of MB, so it is off by default).
	HeaderTimeout, Timeout time.Duration
	// Retries is how many times a failed request is retried (default 4,
	// at most MaxRetries); MinWait and MaxWait bound the backoff between
	// attempts (default 1s and 30s). A Retry-After longer than MaxWait waits
	// MaxWait.
	Retries          int
	MinWait, MaxWait time.Duration
	// Logf, when set, is told each attempt and retry, with credentials
	// redacted (for --verbose).
	Logf func(format string, args ...any)
}

// Bounds of Options.
const (
	DefaultRetries       = 4
	MaxRetries           = 10
	DefaultMinWait       = time.Second
	DefaultMaxWait       = 30 * time.Second
	DefaultHeaderTimeout = 60 * time.Second
)

// Client sends requests with retries; it implements feeds.Doer.
type Client struct {
	rc        *retryablehttp.Client
	userAgent string
	logf      func(string, ...any)
}

// New returns a client with the options.
func New(o Options) (*Client, error) {
	if o.Retries < 0 || o.Retries > MaxRetries {
		return nil, fmt.Errorf("retries %d: want 0 to %d", o.Retries, MaxRetries)
	}
	if o.Retries == 0 {
		o.Retries = DefaultRetries
	}
	if o.MinWait <= 0 {
		o.MinWait = DefaultMinWait
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.MaxWait < o.MinWait {
		o.MaxWait = o.MinWait
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = DefaultHeaderTimeout
	}
	if o.UserAgent == "" {
		o.UserAgent = "gpuscout/dev"
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: o.HeaderTimeout,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   4,
		ForceAttemptHTTP2:     true,
	}
	c := &Client{userAgent: o.UserAgent, logf: o.Logf}
	c.rc = &retryablehttp.Client{
		HTTPClient:   &http.Client{Transport: tr, Timeout: o.Timeout},
		RetryWaitMin: o.MinWait,
		RetryWaitMax: o.MaxWait,
		RetryMax:     o.Retries,
		CheckRetry:   retryablehttp.DefaultRetryPolicy,
		Backoff:      Backoff,
		ErrorHandler: giveUp,
		// Logger stays nil: the library's own lines carry the full URL.
	}
	if o.Logf != nil {
		c.rc.RequestLogHook = func(_ retryablehttp.Logger, r *http.Request, attempt int) {
			o.Logf("%s %s (attempt %d)", r.Method, Redact(r.URL), attempt+1)
		}
		c.rc.ResponseLogHook = func(_ retryablehttp.Logger, r *http.Response) {
			o.Logf("%s %s: %s", r.Request.Method, Redact(r.Request.URL), r.Status)
		}
	}
	return c, nil
}

// Do sends the request, retrying it on throttling, server and connection
// errors; a request body is buffered so that it can be sent again. After the
// last attempt the error says how many were made and the last status or
// error, without the request's credentials.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	rr, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, Redact(req.URL), unwrapURLError(err))
	}
	resp, err := c.rc.Do(rr)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return nil, fmt.Errorf("%s %s: %w", req.Method, Redact(req.URL), ctxErr)
		}
		var ge *GiveUpError
		if errors.As(err, &ge) {
			ge.Method, ge.URL = req.Method, Redact(req.URL)
			return nil, ge
		}
		return nil, fmt.Errorf("%s %s: %w", req.Method, Redact(req.URL), unwrapURLError(err))
	}
	return resp, nil
}

// GiveUpError is the error after the last attempt failed.
type GiveUpError struct {
	Method, URL string // URL redacted
	Attempts    int
	Status      int   // the last response's status, 0 after a connection error
	Err         error // the last connection error, without the URL
}

func (e *GiveUpError) Error() string {
	last := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	if e.Status == 0 {
		last = fmt.Sprint(e.Err)
	}
	return fmt.Sprintf("%s %s: giving up after %d attempts: %s", e.Method, e.URL, e.Attempts, last)
}

func (e *GiveUpError) Unwrap() error { return e.Err }

// giveUp is retryablehttp's ErrorHandler: it closes the last response and
// returns a GiveUpError (Do fills in the method and redacted URL).
func giveUp(resp *http.Response, err error, attempts int) (*http.Response, error) {
	ge := &GiveUpError{Attempts: attempts, Err: unwrapURLError(err)}
	if resp != nil {
		ge.Status = resp.StatusCode
		resp.Body.Close()
	}
	if ctxErr := contextError(err); ctxErr != nil {
		return nil, ctxErr
	}
	return nil, ge
}

func contextError(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	}
	return nil
}

// unwrapURLError drops the URL net/http puts in its errors (it may carry a
// signature in its query).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Backoff is the wait before retry attempt+1: the server's Retry-After on a
// 429 or 503 (seconds or an HTTP date; at most max), else exponential
// (min·2^attempt, at most max) with full jitter, so that many clients
// throttled together do not come back together.
func Backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if d, ok := RetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min64(d, max)
		}
	}
	ceil := max
	if attempt < 32 {
		if d := min << uint(attempt); d > 0 && d < max {
			ceil = d
		}
	}
	// Full jitter, but never less than half the step, so retries still back off.
	return ceil/2 + rand.N(ceil/2+1)
}

func min64(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}

// RetryAfter parses a Retry-After header: delay-seconds or an HTTP date
// (relative to now; a past date is no wait).
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 || s > 24*3600 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d := t.Sub(now); d > 0 {
		return d, true
	}
	return 0, true
}
