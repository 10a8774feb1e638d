package httpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func fast(t *testing.T, logf func(string, ...any)) *Client {
	t.Helper()
	c, err := New(Options{UserAgent: "gpuscout/test", MinWait: time.Millisecond, MaxWait: 4 * time.Millisecond, Retries: 3, Logf: logf})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// throttler answers the first n requests with status (and Retry-After), then 200 with the request's body echoed.
func throttler(n int32, status int, retryAfter string) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= n {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(status)
			io.WriteString(w, "slow down")
			return
		}
		body, _ := io.ReadAll(r.Body)
		io.WriteString(w, r.Header.Get("User-Agent")+"|"+string(body))
	}))
	return srv, &calls
}

func TestRetriesThenAnswers(t *testing.T) {
	for _, tc := range []struct {
		name       string
		fails      int32
		status     int
		retryAfter string
		method     string
		body       string
		wantCalls  int32
	}{
		{"429 twice", 2, http.StatusTooManyRequests, "0", http.MethodGet, "", 3},
		{"503 once", 1, http.StatusServiceUnavailable, "", http.MethodGet, "", 2},
		{"500 thrice", 3, http.StatusInternalServerError, "", http.MethodGet, "", 4},
		{"POST body sent again", 2, http.StatusTooManyRequests, "0", http.MethodPost, `{"Region":"ap-shanghai"}`, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls := throttler(tc.fails, tc.status, tc.retryAfter)
			defer srv.Close()
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, srv.URL, body)
			resp, err := fast(t, nil).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := "gpuscout/test|" + tc.body; string(got) != want {
				t.Errorf("body %q, want %q", got, want)
			}
			if calls.Load() != tc.wantCalls {
				t.Errorf("%d requests, want %d", calls.Load(), tc.wantCalls)
			}
		})
	}
}

func TestNotRetried(t *testing.T) {
	// A 400 (bad signature, bad parameter) is the caller's to read, sent once.
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"Code":"InvalidParameter"}`)
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	resp, err := fast(t, nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || calls.Load() != 1 || !strings.Contains(string(b), "InvalidParameter") {
		t.Errorf("status %d, %d calls, body %q; want 400 once with its body", resp.StatusCode, calls.Load(), b)
	}
}

const secretQuery = "?Action=DescribePrice&AccessKeyId=AKIDsecretid123&Signature=sig%2Fabc%3D&key=AIzaApiKey&Region=cn-hangzhou"

func TestGivesUpWithoutCredentials(t *testing.T) {
	srv, calls := throttler(100, http.StatusServiceUnavailable, "0")
	defer srv.Close()
	var logs []string
	c := fast(t, func(f string, a ...any) { logs = append(logs, strings.TrimSpace(fmt.Sprintf(f, a...))) })
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/"+secretQuery, nil)
	req.Header.Set("Authorization", "TC3-HMAC-SHA256 Credential=AKIDsecretid123/2026-11-30, Signature=deadbeef")
	_, err := c.Do(req)
	if err == nil {
		t.Fatal("no error after 4 throttled attempts")
	}
	var ge *GiveUpError
	if !errors.As(err, &ge) || ge.Attempts != 4 || ge.Status != 503 || calls.Load() != 4 {
		t.Fatalf("err %v (%d calls); want a GiveUpError after 4 attempts, status 503", err, calls.Load())
	}
	if !strings.Contains(err.Error(), "giving up after 4 attempts: HTTP 503 Service Unavailable") || !strings.Contains(err.Error(), "Region=cn-hangzhou") {
		t.Errorf("error %q: want the attempts, the last status and the non-secret query", err)
	}
	all := err.Error() + "\n" + strings.Join(logs, "\n")
	for _, secret := range []string{"AKIDsecretid123", "sig/abc", "sig%2Fabc", "AIzaApiKey", "deadbeef"} {
		if strings.Contains(all, secret) {
			t.Errorf("credential %q in the error or log:\n%s", secret, all)
		}
	}
	if len(logs) != 8 { // one line per attempt and one per response
		t.Errorf("%d log lines, want 8:\n%s", len(logs), strings.Join(logs, "\n"))
	}
}

func TestConnectionErrorRedacted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: connection refused
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/"+secretQuery, nil)
	_, err = fast(t, nil).Do(req)
	var ge *GiveUpError
	if !errors.As(err, &ge) || ge.Attempts != 4 || ge.Status != 0 {
		t.Fatalf("err %v; want a GiveUpError after 4 attempts without a status", err)
	}
	if strings.Contains(err.Error(), "AKIDsecretid123") || strings.Contains(err.Error(), "AIzaApiKey") {
		t.Errorf("credential in %q", err)
	}
}

func TestContextCancelStopsRetrying(t *testing.T) {
	srv, _ := throttler(100, http.StatusTooManyRequests, "3600")
	defer srv.Close()
	c, _ := New(Options{MaxWait: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	start := time.Now()
	_, err := c.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 30*time.Second { // obeying Retry-After: an hour
		t.Errorf("err %v after %s; want the deadline, promptly", err, time.Since(start))
	}
}

func TestBackoff(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"7", 7 * time.Second, true},
		{"0", 0, true},
		{"Mon, 30 Nov 2026 12:00:20 GMT", 20 * time.Second, true},
		{"Mon, 30 Nov 2026 11:00:00 GMT", 0, true}, // past
		{"-1", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	} {
		got, ok := RetryAfter(tc.header, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RetryAfter(%q) = %s, %v; want %s, %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
	throttled := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"7"}}}
	if got := Backoff(time.Second, 30*time.Second, 0, throttled); got != 7*time.Second {
		t.Errorf("429 Retry-After 7: wait %s, want 7s", got)
	}
	if got := Backoff(time.Second, 5*time.Second, 0, throttled); got != 5*time.Second {
		t.Errorf("Retry-After beyond the most: wait %s, want 5s", got)
	}
	// Without Retry-After: within [step/2, step], step = min·2^attempt capped at max.
	for attempt, step := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second} {
		for range 50 {
			got := Backoff(time.Second, 30*time.Second, attempt, &http.Response{StatusCode: 500})
			if got < step/2 || got > step {
				t.Fatalf("attempt %d: wait %s, want %s to %s", attempt, got, step/2, step)
			}
		}
	}
	if got := Backoff(time.Second, 30*time.Second, 200, nil); got < 15*time.Second || got > 30*time.Second {
		t.Errorf("attempt 200: %s, want 15s to 30s (no overflow)", got)
	}
}

func TestRedact(t *testing.T) {
	u, _ := url.Parse("https://user:pw@ecs.aliyuncs.com/" + secretQuery)
	got := Redact(u)
	want := "https://ecs.aliyuncs.com/?AccessKeyId=REDACTED&Action=DescribePrice&Region=cn-hangzhou&Signature=REDACTED&key=REDACTED"
	if got != want {
		t.Errorf("Redact = %q\nwant      %q", got, want)
	}
}

func TestBadOptions(t *testing.T) {
	if _, err := New(Options{Retries: 11}); err == nil || !strings.Contains(err.Error(), "retries 11: want 0 to 10") {
		t.Errorf("Retries 11: err %v", err)
	}
}
