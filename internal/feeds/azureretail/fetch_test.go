package azureretail

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// fakeAPI serves pages by $skip as the Retail Prices API does, each with an
// absolute NextPageLink to the next, and records the queries.
type fakeAPI struct {
	mu      sync.Mutex
	srv     *httptest.Server
	pages   []string              // item lists, one per page
	status  []int                 // statuses answered first, one per request
	link    func(next int) string // replaces the next page's link
	loop    bool                  // every link points to $skip=0
	raw     map[int]string        // page index -> whole body, replacing the built one
	queries []url.Values
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, r.URL.Query())
	if r.URL.Path != "/api/retail/prices" {
		http.Error(w, "no such path", http.StatusNotFound)
		return
	}
	if len(f.status) > 0 {
		code := f.status[0]
		f.status = f.status[1:]
		http.Error(w, "Too Many Requests", code)
		return
	}
	skip := 0
	if s := r.URL.Query().Get("$skip"); s != "" {
		for _, ch := range s {
			skip = skip*10 + int(ch-'0')
		}
	}
	if skip >= len(f.pages) {
		http.Error(w, "skip out of range", http.StatusBadRequest)
		return
	}
	next := "null"
	if skip+1 < len(f.pages) {
		q := r.URL.Query()
		q.Set("$skip", string(rune('0'+skip+1)))
		l := f.srv.URL + "/api/retail/prices?" + q.Encode()
		if f.link != nil {
			l = f.link(skip + 1)
		}
		if f.loop {
			l = f.srv.URL + "/api/retail/prices?$skip=0"
		}
		next = `"` + l + `"`
	}
	b := `{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail","Items":[` + f.pages[skip] + `],"NextPageLink":` + next + `,"Count":1}`
	if raw, ok := f.raw[skip]; ok {
		b = raw
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(b))
}

// retrying retries 429 and 503 at once, standing in for the refresh's client.
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

// ndPages is the ND fixture's Linux items, one per page, and one Windows item.
func ndPages(t *testing.T) []string {
	spot := ndItem(t, func(m map[string]any) { m["meterName"], m["unitPrice"] = "ND96asr v4 Spot", 5.5 })
	win := ndItem(t, func(m map[string]any) {
		m["productName"], m["unitPrice"] = "Virtual Machines NDasrA100v4 Series Windows", 31.613
	})
	return []string{ndItem(t, nil), spot, win}
}

func fetch(t *testing.T, f *fakeAPI, mod func(*feeds.FetchRequest)) (*feeds.Result, error) {
	t.Helper()
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	req := feeds.FetchRequest{HTTP: retrying{f.srv.Client()}, Endpoint: f.srv.URL, Regions: []string{"eastus"},
		Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }}
	if mod != nil {
		mod(&req)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return New().Fetch(ctx, req)
}

func TestFetchPages(t *testing.T) {
	f := &fakeAPI{pages: ndPages(t), status: []int{429, 503}}
	n := 0
	res, err := fetch(t, f, func(r *feeds.FetchRequest) { r.Progress = func(done, total int, what string) { n++ } })
	if err != nil {
		t.Fatal(err)
	}
	if len(f.queries) != 5 || n != 3 {
		t.Errorf("%d requests, %d progress reports: want 2 refused + 3 pages, 3 reports", len(f.queries), n)
	}
	q := f.queries[0]
	if q.Get("api-version") != APIVersion || q.Get("currencyCode") != "'USD'" || q.Get("meterRegion") != "'primary'" ||
		q.Get("$filter") != "serviceName eq 'Virtual Machines' and contains(armSkuName, 'Standard_N') and armRegionName eq 'eastus'" {
		t.Errorf("query %v", q)
	}
	if len(res.Offerings) != 1 || len(res.Licenses) != 1 {
		t.Fatalf("offerings %+v, licences %+v", res.Offerings, res.Licenses)
	}
	o, l := res.Offerings[0], res.Licenses[0]
	if !o.OnDemand.Amount.Equal(dec("27.197")) || !o.Spot.Amount.Equal(dec("5.5")) || o.OnDemand.Source != "azure-retail-prices@2026-11-30" || o.OnDemand.AsOf != "2026-11-30" {
		t.Errorf("offering %+v", o)
	}
	if !l.PerHour.Equal(dec("4.416")) {
		t.Errorf("licence %s, want 31.613 − 27.197 = 4.416", l.PerHour)
	}
}

func TestFetchAllRegions(t *testing.T) {
	f := &fakeAPI{pages: ndPages(t)[:1]}
	if _, err := fetch(t, f, func(r *feeds.FetchRequest) { r.Regions = nil }); err != nil {
		t.Fatal(err)
	}
	if got := f.queries[0].Get("$filter"); strings.Contains(got, "armRegionName") {
		t.Errorf("filter %q names a region", got)
	}
}

func TestFetchErrors(t *testing.T) {
	pages := ndPages(t)
	for _, c := range []struct {
		name string
		f    *fakeAPI
		mod  func(*feeds.FetchRequest)
		want string
	}{
		{"throttled without retries", &fakeAPI{pages: pages, status: []int{429}}, func(r *feeds.FetchRequest) { r.HTTP = http.DefaultClient }, "eastus page 1: HTTP 429"},
		{"malformed page", &fakeAPI{pages: pages, raw: map[int]string{1: `{"Items":[{"unitPrice":`}}, nil, "eastus page 2: azure-retail"},
		{"foreign link", &fakeAPI{pages: pages, link: func(int) string { return "https://elsewhere.example/api/retail/prices" }}, nil, "not followed"},
		{"looping link", &fakeAPI{pages: pages, loop: true}, nil, "looping"},
		{"page limit", &fakeAPI{pages: pages}, func(r *feeds.FetchRequest) { r.MaxPages = 2 }, "more than 2 pages"},
		{"body limit", &fakeAPI{pages: pages}, func(r *feeds.FetchRequest) { r.MaxBody = 64 }, "larger than 64 bytes"},
		{"bad region", &fakeAPI{pages: pages}, func(r *feeds.FetchRequest) { r.Regions = []string{"eastus' or 1 eq 1"} }, "not an Azure region name"},
		{"bad endpoint", &fakeAPI{pages: pages}, func(r *feeds.FetchRequest) { r.Endpoint = "file:///etc" }, "not an http(s) URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := fetch(t, c.f, c.mod)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
		})
	}
}
