package cloudmeta

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Size limits of what a metadata service may answer: a value is an instance
// type or a region; a document is AWS's identity document or Azure's
// instance JSON (a few KiB with many disks and NICs).
const (
	maxValueBytes = 256
	maxDocBytes   = 256 << 10
)

// ConnectTimeout bounds the TCP connect to a metadata service, which on
// its own cloud answers from the local host within milliseconds.
const ConnectTimeout = 300 * time.Millisecond

// defaultHTTP is the client every metadata request uses unless a test gives
// its own: no proxy (metadata services must be reached directly; a proxy
// would answer for them), a short connect timeout, and no redirects (a
// captive portal's redirect is not a metadata answer).
var defaultHTTP = &http.Client{
	Transport: &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: ConnectTimeout}).DialContext,
		ResponseHeaderTimeout: time.Second,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       5 * time.Second,
	},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// fetcher makes one cloud's metadata requests against its base URL.
type fetcher struct {
	cloud string
	base  string
	hc    *http.Client
	// header is sent with every request (Metadata: true, a token, ...).
	header map[string]string
}

func newFetcher(cloud, base string, hc *http.Client, header map[string]string) *fetcher {
	if hc == nil {
		hc = defaultHTTP
	}
	return &fetcher{cloud: cloud, base: strings.TrimRight(base, "/"), hc: hc, header: header}
}

// do sends method path with the fetcher's headers and extra, and returns
// the body (at most limit bytes) and the response headers. A status other
// than 200, a larger body and an HTML page are errors naming the request.
func (f *fetcher) do(ctx context.Context, method, path string, extra map[string]string, limit int64) ([]byte, http.Header, error) {
	target := f.base + path
	fail := func(status int, absent bool, err error) ([]byte, http.Header, error) {
		return nil, nil, &Error{Cloud: f.cloud, Method: method, URL: target, Status: status, Absent: absent, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, method, target, nil)
	if err != nil {
		return fail(0, false, err)
	}
	for k, v := range f.header {
		req.Header.Set(k, v)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return fail(0, true, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fail(resp.StatusCode, false, fmt.Errorf("reading the body: %w", unwrapURLError(err)))
	}
	if resp.StatusCode != http.StatusOK {
		return fail(resp.StatusCode, false, fmt.Errorf("HTTP %d %s%s", resp.StatusCode, http.StatusText(resp.StatusCode), snippet(body)))
	}
	if int64(len(body)) > limit {
		return fail(resp.StatusCode, false, fmt.Errorf("the body exceeds %d bytes; a metadata answer is smaller", limit))
	}
	if isHTML(resp.Header.Get("Content-Type"), body) {
		return fail(resp.StatusCode, false, fmt.Errorf("an HTML page%s, not a metadata answer (a proxy or captive portal?)", snippet(body)))
	}
	return body, resp.Header, nil
}

// value GETs path and returns it as one checked value (an instance type,
// a region, a zone).
func (f *fetcher) value(ctx context.Context, path string, extra map[string]string) (string, error) {
	body, _, err := f.do(ctx, http.MethodGet, path, extra, maxValueBytes)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(body))
	if err := checkValue(v); err != nil {
		return "", &Error{Cloud: f.cloud, Method: http.MethodGet, URL: f.base + path, Status: http.StatusOK, Err: fmt.Errorf("value %q: %w", clip(v), err)}
	}
	return v, nil
}

// checkValue accepts what clouds use in instance types, regions, zones and
// instance ids: letters, digits, '.', '-', '_', at most 128 of them.
func checkValue(v string) error {
	if v == "" {
		return errors.New("empty")
	}
	if len(v) > 128 {
		return fmt.Errorf("%d characters; at most 128", len(v))
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return fmt.Errorf("character %q; allowed: letters, digits, '.', '-', '_'", r)
		}
	}
	return nil
}

// token checks a session token before it goes into a request header: what a
// metadata service issues is printable ASCII without spaces.
func (f *fetcher) token(ctx context.Context, path, ttlHeader string) (string, error) {
	body, _, err := f.do(ctx, http.MethodPut, path, map[string]string{ttlHeader: "60"}, maxValueBytes)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(body))
	ok := tok != ""
	for _, r := range tok {
		ok = ok && r > ' ' && r < 0x7f
	}
	if !ok {
		return "", &Error{Cloud: f.cloud, Method: http.MethodPut, URL: f.base + path, Status: http.StatusOK, Err: fmt.Errorf("token %q: want printable ASCII without spaces", clip(tok))}
	}
	return tok, nil
}

func isHTML(contentType string, body []byte) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && (mt == "text/html" || mt == "application/xhtml+xml") {
		return true
	}
	b := bytes.TrimSpace(body)
	return len(b) > 0 && b[0] == '<'
}

// snippet quotes the start of an error body for the message.
func snippet(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", clip(s))
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// unwrapURLError drops net/http's "Get URL:" prefix: Error names the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
