package alibabaecs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

const (
	testKeyID  = "LTAItestkeyid"
	testSecret = "s3cr3t-never-shown"
	testToken  = "sts-token-never-shown"
)

// documented returns the fixture's documented answers: the DescribePrice
// answer of describeprice-api-reference.json and the
// DescribeSpotPriceHistory answer of spothistory-ecs-docs.json.
func documented(t *testing.T) (price, spot string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "describeprice-api-reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exs []struct{ Response json.RawMessage }
	if err := json.Unmarshal(b, &exs); err != nil {
		t.Fatal(err)
	}
	s, err := os.ReadFile(filepath.Join("testdata", "spothistory-ecs-docs.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(exs[0].Response), string(s)
}

// call is one request the fake API received.
type call struct {
	Action string
	Params url.Values // the operation's parameters (V2: without the common ones)
	V2     bool
}

// fakeAPI is the ECS API on loopback: it checks each request's signature
// (recomputed with the test secret) and answers with answer().
type fakeAPI struct {
	t      *testing.T
	mu     sync.Mutex
	calls  []call
	answer func(c call, n int) (int, string) // n: how many calls of this action came before
}

var commonV2 = []string{"Action", "Version", "Format", "AccessKeyId", "SignatureMethod", "SignatureVersion", "SignatureNonce", "Timestamp", "Signature", "SecurityToken"}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.RawQuery, testSecret) || strings.Contains(fmt.Sprint(r.Header), testSecret) {
		f.t.Errorf("the secret was sent: %s %v", r.URL, r.Header)
	}
	q := r.URL.Query()
	c := call{Params: url.Values{}}
	signed := false
	if auth := r.Header.Get("Authorization"); auth != "" {
		c.Action = r.Header.Get("x-acs-action")
		h := map[string]string{"host": r.Host}
		for k := range r.Header {
			if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-acs-") {
				h[lk] = r.Header.Get(k)
			}
		}
		signed = auth == SignV3(V3Request{Method: r.Method, Path: r.URL.Path, Query: q, Headers: h}, testKeyID, testSecret) &&
			h["x-acs-version"] == APIVersion && h["x-acs-security-token"] == testToken && h["x-acs-date"] == "2026-12-01T08:00:00Z"
		c.Params = q
	} else {
		c.V2, c.Action = true, q.Get("Action")
		signed = q.Get("Signature") == SignV2(r.Method, q, testSecret) && q.Get("Version") == APIVersion &&
			q.Get("SecurityToken") == testToken && q.Get("AccessKeyId") == testKeyID
		for k, v := range q {
			c.Params[k] = v
		}
		for _, k := range commonV2 {
			c.Params.Del(k)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if !signed {
		w.WriteHeader(400)
		fmt.Fprint(w, `{"RequestId":"bad","Code":"SignatureDoesNotMatch","Message":"Specified signature is not matched with our calculation."}`)
		return
	}
	f.mu.Lock()
	n := 0
	for _, p := range f.calls {
		if p.Action == c.Action {
			n++
		}
	}
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	status, body := f.answer(c, n)
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

func (f *fakeAPI) count(action string) int {
	n := 0
	for _, c := range f.calls {
		if c.Action == action {
			n++
		}
	}
	return n
}

// fetch runs a fetch against the fake with test credentials.
func fetch(t *testing.T, im *Importer, f *fakeAPI, regions ...string) (*feeds.Result, error, []time.Duration) {
	t.Helper()
	srv := httptest.NewServer(f)
	defer srv.Close()
	var slept []time.Duration
	im.Sleep = func(d time.Duration) { slept = append(slept, d) }
	nonce := 0
	im.Nonce = func() string { nonce++; return fmt.Sprintf("nonce-%d", nonce) }
	res, err := im.Fetch(context.Background(), feeds.FetchRequest{
		Regions: regions, HTTP: srv.Client(), Endpoint: srv.URL,
		Getenv: env(map[string]string{EnvAccessKeyID: testKeyID, EnvAccessKeySecret: testSecret, EnvSecurityToken: testToken}),
		Now:    func() time.Time { return time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC) },
	})
	if err != nil && strings.Contains(err.Error(), testSecret) {
		t.Errorf("error %q shows the secret", err)
	}
	return res, err, slept
}

// One request per instance type and pricing model, replaying the
// documented answers: the first is throttled twice (Throttling.User, HTTP
// 400) and retried; a PriceNotFound answer leaves that price out.
func TestFetch(t *testing.T) {
	price, spot := documented(t)
	for _, v2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("signature v2 %v", v2), func(t *testing.T) {
			f := &fakeAPI{t: t}
			f.answer = func(c call, n int) (int, string) {
				switch {
				case c.Action == "DescribePrice" && n < 2:
					return 400, `{"RequestId":"t","HostId":"ecs.aliyuncs.com","Code":"Throttling.User","Message":"Request was denied due to user flow control."}`
				case c.Action == "DescribePrice" && c.Params.Get("InstanceType") == "ecs.gn7i-c8g1.2xlarge" && c.Params.Get("PriceUnit") == "Month":
					return 400, `{"RequestId":"p","Code":"PriceNotFound","Message":"The price of your queried resource is not available now, please try other resources."}`
				case c.Action == "DescribePrice":
					return 200, price
				case c.Action == "DescribeSpotPriceHistory":
					// The documented answer, for the type asked.
					return 200, strings.ReplaceAll(spot, "ecs.g5.large", c.Params.Get("InstanceType"))
				}
				return 404, `{"Code":"InvalidApi.NotFound","Message":"no such API"}`
			}
			im := &Importer{InstanceTypes: []string{"ecs.gn7-c13g1.26xlarge", "ecs.gn7i-c8g1.2xlarge"}, SignatureV2: v2}
			var progress [][2]int
			srv := httptest.NewServer(f)
			defer srv.Close()
			var slept []time.Duration
			im.Sleep = func(d time.Duration) { slept = append(slept, d) }
			res, err := im.Fetch(context.Background(), feeds.FetchRequest{
				Regions: []string{"cn-hangzhou"}, HTTP: srv.Client(), Endpoint: srv.URL,
				Getenv:   env(map[string]string{EnvAccessKeyID: testKeyID, EnvAccessKeySecret: testSecret, EnvSecurityToken: testToken}),
				Now:      func() time.Time { return time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC) },
				Progress: func(done, total int, what string) { progress = append(progress, [2]int{done, total}) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := f.count("DescribePrice"), 2*4+2; got != want {
				t.Errorf("%d DescribePrice requests, want %d (4 per type, 2 throttled retries)", got, want)
			}
			if got := f.count("DescribeSpotPriceHistory"); got != 2 {
				t.Errorf("%d DescribeSpotPriceHistory requests, want 2", got)
			}
			for _, c := range f.calls {
				if c.V2 != v2 {
					t.Errorf("%s signed v2=%v, want %v", c.Action, c.V2, v2)
				}
				if c.Action == "DescribePrice" && (c.Params.Get("RegionId") != "cn-hangzhou" || c.Params.Get("ResourceType") != "instance") {
					t.Errorf("DescribePrice params %v", c.Params)
				}
				if c.Action == "DescribeSpotPriceHistory" && (c.Params.Get("NetworkType") != "vpc" || c.Params.Get("OSType") != "linux") {
					t.Errorf("DescribeSpotPriceHistory params %v", c.Params)
				}
			}
			if fmt.Sprint(slept) != "[1s 2s]" {
				t.Errorf("waits %v, want [1s 2s] (doubling from 1 s)", slept)
			}
			if last := progress[len(progress)-1]; last != [2]int{10, 10} {
				t.Errorf("last progress %v, want [10 10]", last)
			}
			trade := decimal.RequireFromString("3712.8")
			if len(res.Offerings) != 4 {
				t.Fatalf("offerings %+v, want a zone and a region-wide one per type", res.Offerings)
			}
			for i, o := range res.Offerings {
				zone := []string{"cn-hangzhou-g", ""}[i%2]
				if o.Zone != zone || o.Region != "cn-hangzhou" || !o.OnDemand.Known || !o.OnDemand.Amount.Equal(trade) ||
					o.OnDemand.Source != "alibaba-ecs-api@2026-12-01" || o.OnDemand.AsOf != "2026-12-01" || o.OnDemand.Currency != "CNY" {
					t.Errorf("offering %d = %+v", i, o)
				}
				if spot := o.Spot.Known && o.Spot.Amount.Equal(decimal.RequireFromString("0.036")); spot != (zone != "") {
					t.Errorf("offering %d spot %+v", i, o.Spot)
				}
			}
			var terms []string
			for _, c := range res.Commitments {
				terms = append(terms, c.InstanceType+" "+c.Term)
				if !c.Upfront.Equal(trade) || c.Payment != "all-upfront" || c.Model != "subscription" {
					t.Errorf("commitment %+v", c)
				}
			}
			if got, want := strings.Join(terms, ", "), "ecs.gn7-c13g1.26xlarge 1mo, ecs.gn7-c13g1.26xlarge 1y, ecs.gn7-c13g1.26xlarge 3y, ecs.gn7i-c8g1.2xlarge 1y, ecs.gn7i-c8g1.2xlarge 3y"; got != want {
				t.Errorf("commitments %s\nwant %s", got, want)
			}
			var reasons []string
			for _, l := range res.LeftOut {
				reasons = append(reasons, l.Reason)
			}
			all := strings.Join(reasons, "|")
			if len(res.LeftOut) != 3 || strings.Count(all, "the API answered PriceNotFound") != 1 || strings.Count(all, "superseded") != 2 {
				t.Errorf("left out %v, want PriceNotFound and two superseded spot rows", res.LeftOut)
			}
		})
	}
}

// The GPU instance types come from DescribeInstanceTypes, page by page.
func TestFetchListsGPUTypes(t *testing.T) {
	price, spot := documented(t)
	doc, err := os.ReadFile(filepath.Join("testdata", "describeinstancetypes-ecs-docs.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAPI{t: t}
	f.answer = func(c call, n int) (int, string) {
		switch c.Action {
		case "DescribeInstanceTypes":
			if c.Params.Get("NextToken") == "" {
				// The documented page (no GPU type), with a NextToken added.
				return 200, strings.Replace(string(doc), `"RequestId"`, `"NextToken":"page-2","RequestId"`, 1)
			}
			// A second page built here: one GPU type, figures as in data/curated/alibaba.yaml.
			return 200, `{"RequestId":"2","InstanceTypes":{"InstanceType":[{"InstanceTypeId":"ecs.gn7-c13g1.26xlarge","GPUAmount":8,"GPUSpec":"NVIDIA A100","CpuCoreCount":104,"MemorySize":756}]}}`
		case "DescribePrice":
			return 200, price
		case "DescribeSpotPriceHistory":
			return 200, strings.ReplaceAll(spot, "ecs.g5.large", c.Params.Get("InstanceType"))
		}
		return 404, `{"Code":"InvalidApi.NotFound","Message":"no such API"}`
	}
	res, err, _ := fetch(t, New(), f, "cn-hangzhou")
	if err != nil {
		t.Fatal(err)
	}
	if f.count("DescribeInstanceTypes") != 2 || f.calls[1].Params.Get("NextToken") != "page-2" {
		t.Errorf("calls %+v, want two DescribeInstanceTypes pages", f.calls)
	}
	for _, c := range f.calls {
		if c.Action == "DescribePrice" && c.Params.Get("InstanceType") != "ecs.gn7-c13g1.26xlarge" {
			t.Errorf("priced %s, not a GPU type", c.Params.Get("InstanceType"))
		}
	}
	if f.count("DescribePrice") != 4 || len(res.Offerings) != 2 {
		t.Errorf("%d DescribePrice requests, %d offerings; want 4 and 2", f.count("DescribePrice"), len(res.Offerings))
	}
}

// Spot history pages follow NextOffset.
func TestFetchSpotPages(t *testing.T) {
	price, spot := documented(t)
	f := &fakeAPI{t: t}
	f.answer = func(c call, n int) (int, string) {
		switch {
		case c.Action == "DescribePrice":
			return 200, price
		case c.Params.Get("Offset") == "":
			return 200, strings.Replace(spot, `"Currency"`, `"NextOffset":2,"Currency"`, 1)
		}
		return 200, `{"RequestId":"x","SpotPrices":{"SpotPriceType":[]},"Currency":"CNY"}`
	}
	if _, err, _ := fetch(t, &Importer{InstanceTypes: []string{"ecs.g5.large"}}, f, "cn-hangzhou"); err != nil {
		t.Fatal(err)
	}
	if n := f.count("DescribeSpotPriceHistory"); n != 2 || f.calls[len(f.calls)-1].Params.Get("Offset") != "2" {
		t.Errorf("%d spot requests, last %v; want a second page at Offset 2", n, f.calls[len(f.calls)-1].Params)
	}
}

func TestFetchErrors(t *testing.T) {
	price, _ := documented(t)
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		tries    int
		want     []string
		is       error
		requests int
	}{
		{name: "credentials refused", status: 404, body: `{"RequestId":"6E1A","HostId":"ecs.aliyuncs.com","Code":"InvalidAccessKeyId.NotFound","Message":"Specified access key is not found."}`,
			want: []string{"InvalidAccessKeyId.NotFound", "Specified access key is not found.", "RequestId 6E1A", "DescribePrice"}, requests: 1},
		{name: "price inquiry not enabled", status: 400, body: `{"Code":"InvalidAction","Message":"Specified action is not valid."}`,
			want: []string{"InvalidAction"}, requests: 1},
		{name: "malformed body", status: 200, body: `{"PriceInfo": {"Price": `, want: []string{"DescribePrice ecs.gn7-c13g1.26xlarge cn-hangzhou Hour", "not a DescribePrice response"}, requests: 1},
		{name: "not an answer", status: 200, body: `<html>maintenance</html>`, want: []string{"not a DescribePrice response"}, requests: 1},
		{name: "gateway page", status: 502, body: `<html>Bad Gateway</html>`, want: []string{"HTTP 502", "Bad Gateway"}, requests: 1},
		{name: "always throttled", status: 400, body: `{"Code":"Throttling.User","Message":"Request was denied due to user flow control."}`, tries: 3,
			want: []string{"still throttled after 3 tries"}, is: ErrThrottled, requests: 3},
		{name: "secret echoed", status: 403, body: `{"Code":"Forbidden.RAM","Message":"User not authorized; your secret ` + testSecret + ` was wrong"}`,
			want: []string{"Forbidden.RAM", "[redacted]"}, requests: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{t: t}
			f.answer = func(c call, n int) (int, string) {
				if c.Action == "DescribePrice" {
					return tc.status, tc.body
				}
				return 200, price
			}
			_, err, _ := fetch(t, &Importer{InstanceTypes: []string{"ecs.gn7-c13g1.26xlarge"}, Throttle: feeds.Throttle{Tries: tc.tries}}, f, "cn-hangzhou")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %q lacks %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err %v is not %v", err, tc.is)
			}
			if len(f.calls) != tc.requests {
				t.Errorf("%d requests, want %d (the fetch stops)", len(f.calls), tc.requests)
			}
		})
	}
}

func TestFetchRefusesBadInput(t *testing.T) {
	f := &fakeAPI{t: t, answer: func(call, int) (int, string) { return 500, "" }}
	for _, tc := range []struct {
		name    string
		im      *Importer
		regions []string
		want    string
	}{
		{"region", &Importer{InstanceTypes: []string{"ecs.gn7-c13g1.26xlarge"}}, []string{"Hangzhou!"}, `region "Hangzhou!"`},
		{"type", &Importer{InstanceTypes: []string{"gn7 big"}}, []string{"cn-hangzhou"}, `instance type "gn7 big"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err, _ := fetch(t, tc.im, f, tc.regions...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	_, err := New().Fetch(context.Background(), feeds.FetchRequest{Getenv: env(nil), Endpoint: "http://127.0.0.1:1"})
	if !errors.Is(err, feeds.ErrNoCredentials) || !strings.Contains(err.Error(), EnvAccessKeyID) {
		t.Errorf("without credentials: %v, want ErrNoCredentials naming %s", err, EnvAccessKeyID)
	}
	if len(f.calls) != 0 {
		t.Errorf("%d requests sent for bad input", len(f.calls))
	}
}

// A type the region does not sell is asked once, not per pricing model.
func TestFetchSkipsTypesNotSold(t *testing.T) {
	price, spot := documented(t)
	f := &fakeAPI{t: t}
	f.answer = func(c call, n int) (int, string) {
		switch {
		case c.Params.Get("InstanceType") == "ecs.gn6v-c8g1.16xlarge":
			return 400, `{"RequestId":"n","Code":"InvalidInstanceType.ValueNotSupported","Message":"The specified InstanceType does not exist or beyond the permitted range."}`
		case c.Action == "DescribePrice":
			return 200, price
		}
		return 200, strings.ReplaceAll(spot, "ecs.g5.large", c.Params.Get("InstanceType"))
	}
	var progress [][2]int
	srv := httptest.NewServer(f)
	defer srv.Close()
	res, err := (&Importer{InstanceTypes: []string{"ecs.gn6v-c8g1.16xlarge", "ecs.gn7-c13g1.26xlarge"}}).Fetch(context.Background(), feeds.FetchRequest{
		Regions: []string{"cn-hangzhou"}, HTTP: srv.Client(), Endpoint: srv.URL,
		Getenv:   env(map[string]string{EnvAccessKeyID: testKeyID, EnvAccessKeySecret: testSecret, EnvSecurityToken: testToken}),
		Now:      func() time.Time { return time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC) },
		Progress: func(done, total int, _ string) { progress = append(progress, [2]int{done, total}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, c := range f.calls {
		if c.Params.Get("InstanceType") == "ecs.gn6v-c8g1.16xlarge" {
			asked++
		}
	}
	if asked != 1 || len(f.calls) != 1+5 {
		t.Errorf("the unsold type was asked %d times, %d requests in all; want 1 and 6", asked, len(f.calls))
	}
	if last := progress[len(progress)-1]; last != [2]int{10, 10} {
		t.Errorf("last progress %v, want [10 10]", last)
	}
	if len(res.LeftOut) < 2 || !strings.Contains(res.LeftOut[0].Reason, "InvalidInstanceType.ValueNotSupported") || !strings.Contains(res.LeftOut[1].Reason, "not sold in the region") {
		t.Errorf("left out %v", res.LeftOut)
	}
}

// An answer over FetchRequest.MaxBody stops the fetch instead of being cut.
func TestFetchBodyLimit(t *testing.T) {
	price, _ := documented(t)
	f := &fakeAPI{t: t, answer: func(call, int) (int, string) { return 200, price }}
	srv := httptest.NewServer(f)
	defer srv.Close()
	_, err := (&Importer{InstanceTypes: []string{"ecs.gn7-c13g1.26xlarge"}}).Fetch(context.Background(), feeds.FetchRequest{
		Regions: []string{"cn-hangzhou"}, HTTP: srv.Client(), Endpoint: srv.URL, MaxBody: 100,
		Getenv: env(map[string]string{EnvAccessKeyID: testKeyID, EnvAccessKeySecret: testSecret, EnvSecurityToken: testToken}),
		Now:    func() time.Time { return time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC) },
	})
	if err == nil || !strings.Contains(err.Error(), "over 100 bytes") || len(f.calls) != 1 {
		t.Errorf("err = %v after %d requests, want the answer over 100 bytes refused at once", err, len(f.calls))
	}
}
