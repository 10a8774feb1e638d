package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/usercatalog"
)

// End-to-end refreshes of the providers whose importers sign requests:
// `catalog refresh --provider X --region R --endpoint <loopback fake>` with
// the provider's credentials in the environment, then `offers --provider X`
// shows the refreshed price with its source and date. Each fake replays the
// importer's own fixtures (testdata of the importer's package, shared/data
// records) and throttles its first request once (429, Retry-After: 0), which
// the refresh's HTTP client retries. No fake checks signatures: the importers'
// own tests do, against the documented worked examples.

// refreshedRow is the offers -o json row of the type and region, in CNY
// for the Chinese clouds.
func refreshedRow(t *testing.T, provider, typ, region string, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := run(t, append([]string{"offers", "--provider", provider, "--all-regions", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("offers: exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r["instance_type"] == typ && r["region"] == region {
			return r
		}
	}
	t.Fatalf("offers --provider %s lists no %s in %s", provider, typ, region)
	return nil
}

// throttleOnce answers a request's first try 429 (Retry-After: 0).
type throttleOnce struct {
	mu   sync.Mutex
	seen map[string]bool
	next http.Handler
	hits []string // "key" of every request, throttled ones included
	leak string   // a secret no request may carry
	t    *testing.T
}

func newThrottleOnce(t *testing.T, secret string, next http.HandlerFunc) *httptest.Server {
	h := &throttleOnce{seen: map[string]bool{}, next: next, leak: secret, t: t}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func (h *throttleOnce) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	if strings.Contains(r.URL.String()+fmt.Sprint(r.Header)+string(body), h.leak) {
		h.t.Errorf("a request carries the secret: %s", r.URL)
	}
	key := r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery + " " + r.Header.Get("X-TC-Action") + r.Header.Get("x-acs-action") + r.Header.Get("X-Amz-Target") + " " + string(body)
	h.mu.Lock()
	first := !h.seen[key]
	h.seen[key] = true
	h.mu.Unlock()
	if first {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	h.next.ServeHTTP(w, r)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hermetic points HOME at an empty folder (no provider config file is
// read) and the user catalog at a fresh one.
func hermetic(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv(usercatalog.EnvDir, t.TempDir())
}

// tencentFake replays tencentcvm's synthetic zone-config answer
// (testdata/zoneconfig-gpu-synthetic.json: GPU rows in ap-guangzhou with
// round made-up prices): the rows of the asked region and charge type.
func tencentFake(t *testing.T, secret string) *httptest.Server {
	var ans struct {
		Response struct{ InstanceTypeQuotaSet []json.RawMessage }
	}
	if err := json.Unmarshal(readFile(t, filepath.Join("..", "feeds", "tencentcvm", "testdata", "zoneconfig-gpu-synthetic.json")), &ans); err != nil {
		t.Fatal(err)
	}
	return newThrottleOnce(t, secret, func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Filters []struct{ Values []string } }
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-TC-Action") != "DescribeZoneInstanceConfigInfos" || !strings.HasPrefix(r.Header.Get("Authorization"), "TC3-HMAC-SHA256 Credential=AKIDe2e/") ||
			json.Unmarshal(body, &req) != nil || len(req.Filters) != 1 || len(req.Filters[0].Values) != 1 {
			fmt.Fprint(w, `{"Response":{"Error":{"Code":"InvalidParameter","Message":"unexpected request"},"RequestId":"x"}}`)
			return
		}
		region, charge := r.Header.Get("X-TC-Region"), req.Filters[0].Values[0]
		out := []json.RawMessage{}
		for _, row := range ans.Response.InstanceTypeQuotaSet {
			var q struct{ Zone, InstanceChargeType string }
			json.Unmarshal(row, &q)
			if q.InstanceChargeType == charge && strings.HasPrefix(q.Zone, region+"-") {
				out = append(out, row)
			}
		}
		b, _ := json.Marshal(map[string]any{"Response": map[string]any{"InstanceTypeQuotaSet": out, "RequestId": "e2e"}})
		w.Write(b)
	})
}

// TestRefreshTencentEndToEnd: GT4.41XLARGE948 in ap-guangzhou priced by the
// synthetic answer: 100 CNY/h at 80 % paid = 80 CNY/h on demand, 20 CNY/h spot.
func TestRefreshTencentEndToEnd(t *testing.T) {
	hermetic(t)
	const secret = "tencent-secret-never-shown"
	srv := tencentFake(t, secret)
	t.Setenv("TENCENTCLOUD_SECRET_ID", "AKIDe2e")
	t.Setenv("TENCENTCLOUD_SECRET_KEY", secret)
	out, errOut, code := run(t, "catalog", "refresh", "--provider", "tencent", "--region", "ap-guangzhou", "--endpoint", srv.URL)
	if code != 0 {
		t.Fatalf("refresh: exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, secret) {
		t.Error("the refresh output shows the secret")
	}
	day := time.Now().UTC().Format("2006-01-02")
	row := refreshedRow(t, "tencent", "GT4.41XLARGE948", "ap-guangzhou", "--currency", "CNY")
	if row["price_per_hour"] != 80.0 || row["price_source"] != "tencent-cvm-api@"+day || row["price_as_of"] != day || row["spot_price_per_hour"] != 20.0 {
		t.Errorf("row %v, want 80 CNY/h (spot 20) from tencent-cvm-api@%s", row, day)
	}
}

// alibabaFake replays alibabaecs's fixtures: DescribeInstanceTypes answers
// the documented page (no GPU type) with a NextToken added, then the
// synthetic page with ecs.gn7e-c16g1.32xlarge; DescribePrice answers the
// synthetic answer of the same request (describeprice-gpu-synthetic.json,
// round made-up CNY prices), PriceNotFound otherwise; DescribeSpotPriceHistory
// the synthetic spot answer.
func alibabaFake(t *testing.T, secret string) *httptest.Server {
	dir := filepath.Join("..", "feeds", "alibabaecs", "testdata")
	typesDoc := strings.Replace(string(readFile(t, filepath.Join(dir, "describeinstancetypes-ecs-docs.json"))), `"RequestId"`, `"NextToken":"page-2","RequestId"`, 1)
	typesGPU := string(readFile(t, filepath.Join(dir, "describeinstancetypes-gpu-synthetic.json")))
	spot := string(readFile(t, filepath.Join(dir, "spothistory-gpu-synthetic.json")))
	var prices []struct {
		Request struct {
			RegionID     string `json:"RegionId"`
			InstanceType string
			PriceUnit    string
			Period       int
		}
		Response json.RawMessage
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "describeprice-gpu-synthetic.json")), &prices); err != nil {
		t.Fatal(err)
	}
	return newThrottleOnce(t, secret, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		action := r.Header.Get("x-acs-action")
		w.Header().Set("Content-Type", "application/json")
		if !strings.HasPrefix(r.Header.Get("Authorization"), "ACS3-HMAC-SHA256 Credential=LTAIe2e,") {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"RequestId":"x","Code":"InvalidAccessKeyId.NotFound","Message":"Specified access key is not found."}`)
			return
		}
		switch action {
		case "DescribeInstanceTypes":
			if q.Get("NextToken") == "" {
				fmt.Fprint(w, typesDoc)
			} else {
				fmt.Fprint(w, typesGPU)
			}
			return
		case "DescribeSpotPriceHistory":
			fmt.Fprint(w, spot)
			return
		case "DescribePrice":
			for _, p := range prices {
				rq := p.Request
				period := q.Get("Period")
				if rq.RegionID == q.Get("RegionId") && rq.InstanceType == q.Get("InstanceType") && rq.PriceUnit == q.Get("PriceUnit") &&
					(rq.Period == 0 && period == "" || fmt.Sprint(rq.Period) == period) {
					w.Write(p.Response)
					return
				}
			}
		}
		w.WriteHeader(400)
		fmt.Fprint(w, `{"RequestId":"p","Code":"PriceNotFound","Message":"The price of your queried resource is not available now, please try other resources."}`)
	})
}

// TestRefreshAlibabaEndToEnd: ecs.gn7e-c16g1.32xlarge in cn-hangzhou (its
// embedded price unknown) gets the synthetic 100 CNY/h, its 30 CNY/h spot
// price (zone cn-hangzhou-i) and three subscription prices.
func TestRefreshAlibabaEndToEnd(t *testing.T) {
	hermetic(t)
	const secret = "alibaba-secret-never-shown"
	srv := alibabaFake(t, secret)
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAIe2e")
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", secret)
	out, errOut, code := run(t, "catalog", "refresh", "--provider", "alibaba", "--region", "cn-hangzhou", "--endpoint", srv.URL)
	if code != 0 {
		t.Fatalf("refresh: exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, secret) {
		t.Error("the refresh output shows the secret")
	}
	if !strings.Contains(out, "3 commitment prices") {
		t.Errorf("refresh summary:\n%s", out)
	}
	day := time.Now().UTC().Format("2006-01-02")
	row := refreshedRow(t, "alibaba", "ecs.gn7e-c16g1.32xlarge", "cn-hangzhou", "--currency", "CNY")
	if row["price_per_hour"] != 100.0 || row["currency"] != "CNY" || row["price_source"] != "alibaba-ecs-api@"+day || row["price_as_of"] != day {
		t.Errorf("row %v, want 100 CNY/h from alibaba-ecs-api@%s", row, day)
	}
}
