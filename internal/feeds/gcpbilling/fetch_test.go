package gcpbilling

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

const testKey = "AIzaTEST-not-a-real-key"

// fakeAPI replays pages of SKUs by pageToken ("" is the first page), as the
// Cloud Billing API does, and records what it was asked.
type fakeAPI struct {
	mu      sync.Mutex
	pages   map[string]string // token -> body
	status  []int             // statuses to answer first, one per request
	queries []string
	keys    []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, r.URL.RawQuery)
	f.keys = append(f.keys, r.Header.Get("X-Goog-Api-Key"))
	if r.URL.Path != "/v1/services/6F81-5844-456A/skus" {
		http.Error(w, "no such path "+r.URL.Path, http.StatusNotFound)
		return
	}
	if len(f.status) > 0 {
		code := f.status[0]
		f.status = f.status[1:]
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}`, code)
		return
	}
	body, ok := f.pages[r.URL.Query().Get("pageToken")]
	if !ok {
		http.Error(w, "unknown page token", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

// retrying is a Doer that retries 429 and 503 at once, standing in for the
// refresh's retrying client.
type retrying struct{ c *http.Client }

func (d retrying) Do(r *http.Request) (*http.Response, error) {
	for try := 0; ; try++ {
		resp, err := d.c.Do(r)
		if err != nil || try == 3 || (resp.StatusCode != 429 && resp.StatusCode != 503) {
			return resp, err
		}
		resp.Body.Close()
	}
}

// threePages splits the recorded A2 SKUs over three pages.
func threePages() map[string]string {
	s := recordedA2("OnDemand", "", "")
	return map[string]string{"": page(s[:1], "tok-2"), "tok-2": page(s[1:2], "tok-3"), "tok-3": page(s[2:], "")}
}

func fetch(t *testing.T, f *fakeAPI, mod func(*feeds.FetchRequest)) (*feeds.Result, error) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	req := feeds.FetchRequest{
		HTTP: retrying{srv.Client()}, Endpoint: srv.URL,
		Getenv: func(k string) string {
			if k == "GOOGLE_API_KEY" {
				return testKey
			}
			return ""
		},
		Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
	}
	if mod != nil {
		mod(&req)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return New([]feeds.Spec{a2Spec}).Fetch(ctx, req)
}

func TestFetchPages(t *testing.T) {
	f := &fakeAPI{pages: threePages()}
	var progress []string
	res, err := fetch(t, f, func(r *feeds.FetchRequest) {
		r.Progress = func(done, total int, what string) { progress = append(progress, what) }
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.queries) != 3 || len(progress) != 3 {
		t.Fatalf("%d requests, %d progress reports, want 3 pages", len(f.queries), len(progress))
	}
	for i, q := range f.queries {
		if strings.Contains(q, testKey) || f.keys[i] != testKey {
			t.Errorf("request %d: query %q, key header %q: the key goes in the header only", i, q, f.keys[i])
		}
		if !strings.Contains(q, "currencyCode=USD") || !strings.Contains(q, "pageSize=5000") {
			t.Errorf("request %d: query %q lacks currencyCode=USD or pageSize", i, q)
		}
	}
	if !strings.Contains(f.queries[2], "pageToken=tok-3") {
		t.Errorf("third request %q does not follow nextPageToken", f.queries[2])
	}
	if len(res.Offerings) != 3 {
		t.Fatalf("%d offerings, want 3 regions", len(res.Offerings))
	}
	for _, o := range res.Offerings {
		if !o.OnDemand.Amount.Equal(dec("29.38708")) || o.OnDemand.Source != "gcp-billing-catalog@2026-11-30" || o.OnDemand.AsOf != "2026-11-30" {
			t.Errorf("%s: %+v, want 29.38708 cited gcp-billing-catalog@2026-11-30", o.Region, o.OnDemand)
		}
	}
}

func TestFetchRegions(t *testing.T) {
	res, err := fetch(t, &fakeAPI{pages: threePages()}, func(r *feeds.FetchRequest) { r.Regions = []string{"us-west1"} })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 1 || res.Offerings[0].Region != "us-west1" {
		t.Errorf("offerings %+v, want us-west1 only", res.Offerings)
	}
}

func TestFetchThrottledThenServed(t *testing.T) {
	f := &fakeAPI{pages: threePages(), status: []int{429, 503}}
	res, err := fetch(t, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.queries) != 5 || len(res.Offerings) != 3 {
		t.Errorf("%d requests and %d offerings, want 2 refused + 3 pages and 3 offerings", len(f.queries), len(res.Offerings))
	}
}

func TestFetchErrors(t *testing.T) {
	pages := threePages()
	for _, c := range []struct {
		name string
		f    *fakeAPI
		mod  func(*feeds.FetchRequest)
		want string
	}{
		{"throttled without retries", &fakeAPI{pages: pages, status: []int{429}}, func(r *feeds.FetchRequest) { r.HTTP = http.DefaultClient }, "page 1: HTTP 429"},
		{"malformed page", &fakeAPI{pages: map[string]string{"": pages[""], "tok-2": `{"skus":[{"skuId":`}}, nil, "page 2: gcp-skus"},
		{"looping token", &fakeAPI{pages: map[string]string{"": page(nil, "again"), "again": page(nil, "again")}}, nil, "repeats an earlier page token"},
		{"page limit", &fakeAPI{pages: pages}, func(r *feeds.FetchRequest) { r.MaxPages = 2 }, "more than 2 pages"},
		{"body limit", &fakeAPI{pages: pages}, func(r *feeds.FetchRequest) { r.MaxBody = 100 }, "larger than 100 bytes"},
		{"bad endpoint", &fakeAPI{pages: pages}, func(r *feeds.FetchRequest) { r.Endpoint = "ftp://x" }, "not an http(s) URL"},
		{"key echoed", &fakeAPI{pages: map[string]string{}}, func(r *feeds.FetchRequest) { r.HTTP = echo{} }, "[redacted]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := fetch(t, c.f, c.mod)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("the error %q shows the API key", err)
			}
		})
	}
}

// echo is a Doer whose error quotes the request's key header.
type echo struct{}

func (echo) Do(r *http.Request) (*http.Response, error) {
	return nil, errors.New("refused request with key " + r.Header.Get("X-Goog-Api-Key"))
}

func TestFetchNoKey(t *testing.T) {
	_, err := fetch(t, &fakeAPI{pages: threePages()}, func(r *feeds.FetchRequest) { r.Getenv = func(string) string { return "" } })
	if !errors.Is(err, feeds.ErrNoCredentials) || !strings.Contains(err.Error(), "GOOGLE_API_KEY") {
		t.Errorf("error %v, want ErrNoCredentials naming GOOGLE_API_KEY", err)
	}
	// GCP_API_KEY is read when GOOGLE_API_KEY is unset.
	f := &fakeAPI{pages: threePages()}
	if _, err := fetch(t, f, func(r *feeds.FetchRequest) {
		r.Getenv = func(k string) string {
			if k == "GCP_API_KEY" {
				return testKey
			}
			return ""
		}
	}); err != nil || f.keys[0] != testKey {
		t.Errorf("GCP_API_KEY: %v, key sent %q", err, f.keys)
	}
}
