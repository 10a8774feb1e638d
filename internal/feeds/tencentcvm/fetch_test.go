package tencentcvm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

const (
	testID  = "AKIDtestonly0000000000000000000000"
	testKey = "testonlysecretkey000000000000000"
)

var testNow = time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)

// fakeCVM is a loopback CVM API: it checks each request's signature as the
// real API would, and answers DescribeZoneInstanceConfigInfos with the
// synthetic fixture's rows of the asked charge type (ap-guangzhou; other
// regions have none), unless a scripted answer comes first.
type fakeCVM struct {
	t       *testing.T
	rows    []json.RawMessage
	mu      sync.Mutex
	calls   []string          // "region charge"
	script  []string          // answers to give first, in order ("" = the normal one)
	refuse  map[string]string // region -> the answer it always gets
	status  int               // an HTTP status to answer with instead
	secret  string
	headers []http.Header
}

func newFakeCVM(t *testing.T) (*fakeCVM, *httptest.Server) {
	raw, err := os.ReadFile("testdata/zoneconfig-gpu-synthetic.json")
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Response struct{ InstanceTypeQuotaSet []json.RawMessage }
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatal(err)
	}
	f := &fakeCVM{t: t, rows: ans.Response.InstanceTypeQuotaSet, secret: testKey}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// errorAnswer is the API 3.0 error answer, as its "Responses" page documents it.
func errorAnswer(code, msg string) string {
	return `{"Response":{"Error":{"Code":"` + code + `","Message":"` + msg + `"},"RequestId":"ed93f3cb-f35e-473f-b9f3-0d451b8b79c6"}}`
}

func (f *fakeCVM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.headers = append(f.headers, r.Header.Clone())
	ts, _ := strconv.ParseInt(r.Header.Get("X-TC-Timestamp"), 10, 64)
	s := Signing{Method: r.Method, Host: r.Host, Service: "cvm", Timestamp: ts, Payload: body,
		Headers:  map[string]string{"Content-Type": r.Header.Get("Content-Type"), "Host": r.Host, "X-TC-Action": r.Header.Get("X-TC-Action")},
		SecretID: testID, SecretKey: f.secret}
	if r.Method != http.MethodPost || r.Header.Get("Authorization") != s.Authorization() {
		io.WriteString(w, errorAnswer("AuthFailure.SignatureFailure", "The provided credentials could not be validated. Please check your signature is correct."))
		return
	}
	if r.Header.Get("X-TC-Version") != "2017-03-12" || r.Header.Get("X-TC-Action") != "DescribeZoneInstanceConfigInfos" {
		io.WriteString(w, errorAnswer("InvalidAction", "unexpected action or version"))
		return
	}
	var req struct {
		Filters []struct {
			Name   string
			Values []string
		}
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Filters) != 1 || req.Filters[0].Name != "instance-charge-type" || len(req.Filters[0].Values) != 1 {
		io.WriteString(w, errorAnswer("InvalidParameter", "want one instance-charge-type filter"))
		return
	}
	region, charge := r.Header.Get("X-TC-Region"), req.Filters[0].Values[0]
	f.calls = append(f.calls, region+" "+charge)
	if f.status != 0 {
		w.WriteHeader(f.status)
		return
	}
	if a, ok := f.refuse[region]; ok {
		io.WriteString(w, a)
		return
	}
	if len(f.script) > 0 {
		a := f.script[0]
		f.script = f.script[1:]
		if a != "" {
			io.WriteString(w, a)
			return
		}
	}
	var out []json.RawMessage
	for _, row := range f.rows {
		var q QuotaItem
		json.Unmarshal(row, &q)
		if q.InstanceChargeType == charge && strings.HasPrefix(q.Zone, region+"-") {
			out = append(out, row)
		}
	}
	b, _ := json.Marshal(map[string]any{"Response": map[string]any{"InstanceTypeQuotaSet": out, "RequestId": "req-" + strconv.Itoa(len(f.calls))}})
	w.Write(b)
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func fetchReq(srv *httptest.Server, regions ...string) feeds.FetchRequest {
	return feeds.FetchRequest{Regions: regions, HTTP: srv.Client(), Endpoint: srv.URL,
		Getenv: env(map[string]string{EnvSecretID: testID, EnvSecretKey: testKey}), Now: func() time.Time { return testNow }}
}

type sleeps struct{ d []time.Duration }

func (s *sleeps) importer() *Importer {
	return &Importer{Throttle: feeds.Throttle{Sleep: func(d time.Duration) { s.d = append(s.d, d) }}}
}

func TestFetchFakeServer(t *testing.T) {
	f, srv := newFakeCVM(t)
	req := fetchReq(srv, "ap-guangzhou", "ap-shanghai")
	var progress []string
	req.Progress = func(done, total int, what string) {
		progress = append(progress, strconv.Itoa(done)+"/"+strconv.Itoa(total)+" "+what)
	}
	res, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := "ap-guangzhou POSTPAID_BY_HOUR,ap-guangzhou SPOTPAID,ap-guangzhou PREPAID,ap-shanghai POSTPAID_BY_HOUR,ap-shanghai SPOTPAID,ap-shanghai PREPAID"
	if got := strings.Join(f.calls, ","); got != wantCalls {
		t.Errorf("requests = %s\nwant %s", got, wantCalls)
	}
	if len(progress) != 6 || progress[5] != "6/6 ap-shanghai PREPAID" {
		t.Errorf("progress = %q", progress)
	}
	// The same records as the offline parse of the whole answer, cited by the fetch date.
	if len(res.Offerings) != 3 || len(res.Commitments) != 3 {
		t.Fatalf("got %d offerings, %d commitments; want 3 and 3", len(res.Offerings), len(res.Commitments))
	}
	gt4 := res.Offerings[1]
	if gt4.InstanceType != "GT4.41XLARGE948" || gt4.Zone != "ap-guangzhou-3" || !gt4.OnDemand.Amount.Equal(dec("80")) || !gt4.Spot.Amount.Equal(dec("20")) ||
		gt4.OnDemand.Source != "tencent-cvm-api@2026-11-30" || gt4.OnDemand.AsOf != "2026-11-30" || gt4.OnDemand.Currency != "CNY" {
		t.Errorf("GT4 zone 3 = %+v", gt4)
	}
	if !strings.HasPrefix(gt4.Origin, "DescribeZoneInstanceConfigInfos?Region=ap-guangzhou&instance-charge-type=POSTPAID_BY_HOUR#") {
		t.Errorf("origin %q does not name the request", gt4.Origin)
	}
	h := f.headers[0]
	if h.Get("X-TC-Timestamp") != strconv.FormatInt(testNow.Unix(), 10) || h.Get("X-TC-Region") != "ap-guangzhou" || h.Get("X-TC-Token") != "" ||
		!strings.Contains(h.Get("Authorization"), "Credential="+testID+"/2026-11-30/cvm/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=") {
		t.Errorf("headers %v", h)
	}
}

func TestFetchSessionToken(t *testing.T) {
	f, srv := newFakeCVM(t)
	req := fetchReq(srv, "ap-shanghai")
	req.Getenv = env(map[string]string{EnvSecretID: testID, EnvSecretKey: testKey, EnvSessionToken: "tok123"})
	if _, err := New().Fetch(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := f.headers[0].Get("X-TC-Token"); got != "tok123" {
		t.Errorf("X-TC-Token = %q, want the session token", got)
	}
}

// TestFetchThrottled: RequestLimitExceeded comes in an HTTP 200 answer, so
// the importer itself waits (1 s, then 2 s) and asks again, telling Progress.
func TestFetchThrottled(t *testing.T) {
	f, srv := newFakeCVM(t)
	f.script = []string{errorAnswer("RequestLimitExceeded", "Your current request times equals to `41` in a second"), errorAnswer("RequestLimitExceeded.UinLimitExceeded", "too many")}
	var sl sleeps
	req := fetchReq(srv, "ap-guangzhou")
	var progress []string
	req.Progress = func(done, total int, what string) {
		progress = append(progress, strconv.Itoa(done)+"/"+strconv.Itoa(total)+" "+what)
	}
	res, err := sl.importer().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 3 {
		t.Errorf("%d offerings after the retries, want 3", len(res.Offerings))
	}
	if len(f.calls) != 5 || f.calls[0] != f.calls[2] {
		t.Errorf("calls %v: want the first request three times, then two", f.calls)
	}
	if len(sl.d) != 2 || sl.d[0] != time.Second || sl.d[1] != 2*time.Second {
		t.Errorf("waits %v, want [1s 2s]", sl.d)
	}
	if len(progress) < 2 || progress[0] != "0/3 ap-guangzhou POSTPAID_BY_HOUR: throttled (RequestLimitExceeded), trying again in 1s" ||
		progress[1] != "0/3 ap-guangzhou POSTPAID_BY_HOUR: throttled (RequestLimitExceeded.UinLimitExceeded), trying again in 2s" {
		t.Errorf("progress %q: want the throttling told", progress)
	}
}

func TestFetchStaysThrottled(t *testing.T) {
	f, srv := newFakeCVM(t)
	for range 10 {
		f.script = append(f.script, errorAnswer("RequestLimitExceeded", "slow down"))
	}
	var sl sleeps
	_, err := sl.importer().Fetch(context.Background(), fetchReq(srv, "ap-guangzhou"))
	if !errors.Is(err, ErrThrottled) || !strings.Contains(err.Error(), "5 tries") {
		t.Fatalf("err = %v, want ErrThrottled after 5 tries", err)
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}; len(sl.d) != 4 || sl.d[3] != want[3] {
		t.Errorf("waits %v, want %v", sl.d, want)
	}
}

func TestFetchAuthFailure(t *testing.T) {
	f, srv := newFakeCVM(t)
	f.secret = "the-key-the-server-knows"
	_, err := New().Fetch(context.Background(), fetchReq(srv, "ap-guangzhou"))
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("err = %v, want ErrAuth", err)
	}
	msg := err.Error()
	for _, want := range []string{"AuthFailure.SignatureFailure", EnvSecretID, EnvSecretKey, "~/.tccli/"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, testKey) {
		t.Errorf("error %q contains the secret key", msg)
	}
	if len(f.calls) != 0 {
		t.Errorf("calls %v after a refused signature", f.calls)
	}
}

func TestFetchFailures(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(*fakeCVM, *feeds.FetchRequest)
		want    string
		noCalls bool
	}{
		{name: "malformed answer", setup: func(f *fakeCVM, _ *feeds.FetchRequest) {
			f.script = []string{`{"Response":{"InstanceTypeQuotaSet":[{"Zone":"ap-guangzhou-3","InstanceType":`}
		}, want: "ap-guangzhou: malformed answer"},
		{name: "two answers in one body", setup: func(f *fakeCVM, _ *feeds.FetchRequest) {
			f.script = []string{`{"Response":{"InstanceTypeQuotaSet":[]}}{"Response":{"InstanceTypeQuotaSet":[]}}`}
		}, want: "more after the answer object"},
		{name: "answer not JSON", setup: func(f *fakeCVM, _ *feeds.FetchRequest) { f.script = []string{`<html>gateway timeout</html>`} }, want: "malformed answer"},
		{name: "other API error", setup: func(f *fakeCVM, _ *feeds.FetchRequest) {
			f.script = []string{errorAnswer("UnsupportedRegion", "region not supported")}
		}, want: "the API answered UnsupportedRegion: region not supported (RequestId ed93f3cb"},
		{name: "HTTP 500", setup: func(f *fakeCVM, _ *feeds.FetchRequest) { f.status = 500 }, want: "HTTP 500"},
		{name: "answer too large", setup: func(_ *fakeCVM, r *feeds.FetchRequest) { r.MaxBody = 100 }, want: "larger than 100 bytes"},
		{name: "no credentials", setup: func(_ *fakeCVM, r *feeds.FetchRequest) { r.Getenv = env(nil) }, want: "set TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY", noCalls: true},
		{name: "bad region", setup: func(_ *fakeCVM, r *feeds.FetchRequest) { r.Regions = []string{"Shanghai!"} }, want: `region "Shanghai!": want a Tencent Cloud region id`, noCalls: true},
		{name: "bad endpoint", setup: func(_ *fakeCVM, r *feeds.FetchRequest) { r.Endpoint = "ftp://x" }, want: `endpoint "ftp://x"`, noCalls: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFakeCVM(t)
			req := fetchReq(srv, "ap-guangzhou")
			tc.setup(f, &req)
			_, err := New().Fetch(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error contains the secret key: %v", err)
			}
			if tc.noCalls && len(f.headers) != 0 {
				t.Errorf("%d requests sent", len(f.headers))
			}
		})
	}
}

func TestFetchCanceledWhileWaiting(t *testing.T) {
	f, srv := newFakeCVM(t)
	f.script = []string{errorAnswer("RequestLimitExceeded", "slow down")}
	ctx, cancel := context.WithCancel(context.Background())
	im := &Importer{Throttle: feeds.Throttle{Sleep: func(time.Duration) { cancel() }}}
	if _, err := im.Fetch(ctx, fetchReq(srv, "ap-guangzhou")); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestFetchDefaultRegions: with no region asked, every region of
// DefaultRegions is asked, and one the account may not use is skipped with
// the API's reason; when every one is refused, the fetch fails.
func TestFetchDefaultRegions(t *testing.T) {
	f, srv := newFakeCVM(t)
	f.refuse = map[string]string{}
	for _, r := range DefaultRegions {
		if r != "ap-guangzhou" {
			f.refuse[r] = errorAnswer("UnauthorizedOperation", "the finance region needs its own account")
		}
	}
	var last string
	req := fetchReq(srv)
	req.Progress = func(done, total int, what string) { last = strconv.Itoa(done) + "/" + strconv.Itoa(total) }
	res, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 3 || len(f.calls) != len(DefaultRegions)-1+3 {
		t.Errorf("%d offerings from %d requests, want 3 from %d", len(res.Offerings), len(f.calls), len(DefaultRegions)+2)
	}
	n := 0
	for _, l := range res.LeftOut {
		if strings.HasPrefix(l.What, "region ") {
			n++
			if !strings.Contains(l.Reason, "UnauthorizedOperation: the finance region needs its own account") {
				t.Errorf("left out %s: want the API's reason", l)
			}
		}
	}
	if n != len(DefaultRegions)-1 {
		t.Errorf("%d regions left out, want %d", n, len(DefaultRegions)-1)
	}
	if want := strconv.Itoa(3*len(DefaultRegions)) + "/" + strconv.Itoa(3*len(DefaultRegions)); last != want {
		t.Errorf("last progress %s, want %s", last, want)
	}

	f.refuse["ap-guangzhou"] = errorAnswer("UnauthorizedOperation", "no CVM for this account")
	if _, err := New().Fetch(context.Background(), fetchReq(srv)); err == nil || !strings.Contains(err.Error(), "every region was refused") {
		t.Errorf("all refused: err = %v", err)
	}
}
