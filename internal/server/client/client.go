// Package client uploads documents to a `gpuscout serve` server: the one
// upload path of `bench --upload`, `advise --upload` and `agent --upload`.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/server"
)

// Environment variables that stand for --upload and --token.
const (
	EnvURL   = "GPUSCOUT_UPLOAD_URL"
	EnvToken = "GPUSCOUT_TOKEN"
	// EnvNodeKey, KEY-ID:HEX-KEY, signs uploads with the node's key.
	EnvNodeKey = "GPUSCOUT_NODE_KEY"
)

// Client uploads to one server with one token.
type Client struct {
	base  *url.URL
	token string
	// KeyID and Key, when set, sign each upload (X-Gpuscout-Signature).
	KeyID string
	Key   []byte
	// HTTP is the HTTP client (nil: one with a 30 s timeout).
	HTTP *http.Client
	// Attempts is how many times an upload is tried on a network error, a
	// 429 or a 5xx (0: 3); Backoff is the first wait, doubled each time,
	// unless the server's Retry-After says longer (0: 1 s).
	Attempts int
	Backoff  time.Duration
}

// New checks the server URL (http or https, a host, no query) and token.
func New(serverURL, token string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(serverURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("upload URL %q: want http(s)://HOST[:PORT], the server's address", serverURL)
	}
	if strings.TrimSpace(token) == "" {
		return nil, fmt.Errorf("no token for %s: give --token or set %s (gpuscout token create makes one)", serverURL, EnvToken)
	}
	return &Client{base: u, token: strings.TrimSpace(token)}, nil
}

// Result is the server's answer to an upload.
type Result struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Created bool   `json:"created"` // false: it was already there
}

// Error is an answer other than 2xx; Status 0 when no answer came.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return "upload: " + e.Message
	}
	return fmt.Sprintf("upload: server answered %d %s: %s", e.Status, e.Code, e.Message)
}

// Retryable says whether trying again later may succeed.
func (e *Error) Retryable() bool {
	return e.Status == 0 || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// Upload sends one document of the kind (bench, plan or agent), retrying
// what may pass later. Uploading the same body twice is harmless.
func (c *Client) Upload(ctx context.Context, kind string, body []byte) (*Result, error) {
	attempts, wait := c.Attempts, c.Backoff
	if attempts <= 0 {
		attempts = 3
	}
	if wait <= 0 {
		wait = time.Second
	}
	var last *Error
	for i := range attempts {
		res, after, err := c.once(ctx, kind, body)
		if err == nil {
			return res, nil
		}
		if !errors.As(err, &last) || !last.Retryable() || i == attempts-1 {
			return nil, err
		}
		d := max(wait, after)
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(d):
		}
		wait *= 2
	}
	return nil, last
}

func (c *Client) once(ctx context.Context, kind string, body []byte) (*Result, time.Duration, error) {
	u := *c.base
	u.Path += "/api/v1/reports"
	u.RawQuery = url.Values{"kind": {kind}}.Encode()
	req, err := http.NewRequestWithContext(ctx, "POST", u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.KeyID != "" && len(c.Key) > 0 {
		req.Header.Set(server.SignatureHeader, server.Sign(c.Key, body))
		req.Header.Set(server.KeyIDHeader, c.KeyID)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, &Error{Message: err.Error()}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated {
		var r Result
		if err := json.Unmarshal(b, &r); err != nil || r.ID == "" {
			return nil, 0, &Error{Status: resp.StatusCode, Code: "bad_answer", Message: "not the server's upload answer"}
		}
		return &r, 0, nil
	}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	_ = json.Unmarshal(b, &e)
	if e.Error.Message == "" {
		e.Error.Message = strings.TrimSpace(string(b))
	}
	after := time.Duration(0)
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 && s < 3600 {
		after = time.Duration(s) * time.Second
	}
	return nil, after, &Error{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
}
