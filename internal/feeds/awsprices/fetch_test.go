package awsprices

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// AWS's documented example credentials (SigV4 docs and test suite).
const (
	exampleKeyID  = "AKIDEXAMPLE"
	exampleSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
)

// TestSignGetVanilla: the SDK's signer gives the signature of AWS's
// Signature Version 4 test suite case get-vanilla (GET / on
// example.amazonaws.com, 2015-08-30T12:36:00Z, service "service").
func TestSignGetVanilla(t *testing.T) {
	r, _ := http.NewRequest(http.MethodGet, "https://example.amazonaws.com/", nil)
	c, err := credentials(env(map[string]string{"AWS_ACCESS_KEY_ID": exampleKeyID, "AWS_SECRET_ACCESS_KEY": exampleSecret}), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := sign(context.Background(), c, r, nil, "service", "us-east-1", time.Date(2015, 8, 30, 12, 36, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	want := "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
	if got := r.Header.Get("Authorization"); got != want {
		t.Errorf("Authorization\n got %s\nwant %s", got, want)
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestCredentials: the environment first, then the shared credentials
// file's profile; errors never carry a key.
func TestCredentials(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := "# comment\n[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = " + exampleSecret + "\n\n[ci]\naws_access_key_id=AKIDCI\naws_secret_access_key=s2\naws_session_token=tok\n[broken]\naws_access_key_id=AKIDBROKEN\n"
	if err := os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		env     map[string]string
		home    string
		id, tok string
		err     string
	}{
		{"environment", map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "x", "AWS_SESSION_TOKEN": "t"}, home, "AKIDENV", "t", ""},
		{"default profile", nil, home, "AKIDFILE", "", ""},
		{"named profile", map[string]string{"AWS_PROFILE": "ci"}, home, "AKIDCI", "tok", ""},
		{"half env", map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV"}, home, "", "", "must be set together"},
		{"no profile", map[string]string{"AWS_PROFILE": "nope"}, home, "", "", "no [nope] profile"},
		{"incomplete profile", map[string]string{"AWS_PROFILE": "broken"}, home, "", "", "lacks aws_access_key_id or aws_secret_access_key"},
		{"no file", nil, t.TempDir(), "", "", "no AWS credentials"},
		{"no home", nil, "", "", "", "no AWS credentials"},
	} {
		got, err := credentials(env(c.env), c.home)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), exampleSecret) || strings.Contains(err.Error(), "AKIDBROKEN") {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got.AccessKeyID != c.id || got.SessionToken != c.tok {
			t.Errorf("%s: %+v %v", c.name, got.AccessKeyID, err)
		}
	}
}

// retrying is a Doer that resends throttled requests, as the refresh's
// client does: the importer's requests must be resendable.
type retrying struct{ c *http.Client }

func (d retrying) Do(r *http.Request) (*http.Response, error) {
	for i := 0; ; i++ {
		if i > 0 && r.GetBody != nil {
			b, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = b
		}
		resp, err := d.c.Do(r)
		if err != nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) || i == 3 {
			return resp, err
		}
		resp.Body.Close()
	}
}

// gpuElement is a GetProducts element of a GPU product, in the recorded m5.large element's layout.
func gpuElement(sku, price string) string {
	return `{"product":{"productFamily":"Compute Instance","attributes":{"instanceType":"p5.48xlarge","gpu":"8","operatingSystem":"Linux","tenancy":"Shared",
"preInstalledSw":"NA","capacitystatus":"Used","marketoption":"OnDemand","location":"US East (N. Virginia)","regionCode":"us-east-1"},"sku":"` + sku + `"},
"serviceCode":"AmazonEC2","terms":{"OnDemand":{"` + sku + `.JRTCKXETXF":{"priceDimensions":{"` + sku + `.JRTCKXETXF.6YS6EN2CT7":{"unit":"Hrs",
"pricePerUnit":{"USD":"` + price + `"}}},"sku":"` + sku + `","offerTermCode":"JRTCKXETXF","termAttributes":{}}}},
"version":"20261101000000","publicationDate":"2026-11-01T00:00:00Z"}`
}

// fakeAWS replays the feeds on loopback and records what it was asked.
type fakeAWS struct {
	t         *testing.T
	mu        sync.Mutex
	hits      map[string]int
	throttle  map[string]int // request key → 429s still to answer
	malformed string         // request key answered with a broken page
	auth      []string
}

func (f *fakeAWS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	key := r.Method + " " + r.URL.Path
	target := r.Header.Get("X-Amz-Target")
	var form url.Values
	if r.Method == http.MethodPost && target == "" {
		form, _ = url.ParseQuery(string(body))
		key += " " + form.Get("Action") + " " + form.Get("NextToken")
	}
	if target != "" {
		var q struct{ NextToken string }
		json.Unmarshal(body, &q)
		key += " " + target + " " + q.NextToken
	}
	f.hits[key]++
	if r.Method == http.MethodPost {
		f.auth = append(f.auth, r.Header.Get("Authorization"))
	} else if r.Header.Get("Authorization") != "" {
		f.t.Errorf("%s: a public file was asked for with credentials", key)
	}
	if f.throttle[key] > 0 {
		f.throttle[key]--
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"__type":"ThrottlingException","message":"Rate exceeded"}`)
		return
	}
	if key == f.malformed {
		fmt.Fprint(w, `{"PriceList":["{\"product\":`)
		return
	}
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch key {
	case "POST / AWSPriceListService.GetProducts ":
		fmt.Fprint(w, `{"FormatVersion":"aws_v1","NextToken":"p2","PriceList":[`+quote(readShared(f.t, "aws-pricing-getproducts-m5large-us-east-1.json"))+`]}`)
	case "POST / AWSPriceListService.GetProducts p2":
		fmt.Fprint(w, `{"FormatVersion":"aws_v1","PriceList":[`+quote(gpuElement("GPUSKU0000000001", "55.04"))+`]}`)
	case "GET /offers/v1.0/aws/AmazonEC2/current/us-east-1/index.json":
		el := gpuElement("GPUSKU0000000001", "55.04")
		var e struct {
			Product json.RawMessage
			Terms   struct{ OnDemand json.RawMessage }
		}
		json.Unmarshal([]byte(el), &e)
		fmt.Fprint(w, `{"formatVersion":"v1.0","offerCode":"AmazonEC2","publicationDate":"2026-11-01T00:00:00Z","products":{"GPUSKU0000000001":`+
			string(e.Product)+`},"terms":{"OnDemand":{"GPUSKU0000000001":`+string(e.Terms.OnDemand)+`}}}`)
	case "GET /offers/v1.0/cn/AmazonEC2/current/cn-north-1/index.json":
		fmt.Fprint(w, cnOffer)
	case "GET /offers/v1.0/aws/AmazonEC2/current/region_index.json":
		fmt.Fprint(w, `{"formatVersion":"v1.0","publicationDate":"2026-11-01T00:00:00Z","regions":{
"us-east-1":{"regionCode":"us-east-1","currentVersionUrl":"/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.json"},
"us-gov-west-1":{"regionCode":"us-gov-west-1","currentVersionUrl":"/offers/v1.0/aws/AmazonEC2/current/us-gov-west-1/index.json"}}}`)
	case "GET /savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json":
		fmt.Fprint(w, `{"publicationDate":"2026-11-01T00:00:00Z","regions":[{"regionCode":"us-east-1","versionUrl":"/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20261101/us-east-1/index.json"}]}`)
	case "GET /savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20261101/us-east-1/index.json":
		fmt.Fprint(w, spFile("us-east-1", "ComputeSavingsPlans", "1yr", "No Upfront",
			strings.Replace(spRateRow("A", "BoxUsage:p5.48xlarge", "RunInstances", "AmazonEC2", "Hrs", "35.2", "USD"), `"DA"`, `"GPUSKU0000000001"`, 1),
			strings.Replace(spRateRow("B", "BoxUsage:m5.large", "RunInstances", "AmazonEC2", "Hrs", "0.07", "USD"), `"DB"`, `"6C86BEPQVG73ZGGR"`, 1)))
	case "GET /spot-advisor-data.json":
		fmt.Fprint(w, readShared(f.t, "aws-spot-advisor-excerpt.json"))
	case "POST / DescribeAvailabilityZones ":
		if form.Get("AllAvailabilityZones") != "true" || form.Get("Version") != ec2APIVersion {
			f.t.Errorf("availability zones form %v", form)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "describeavailabilityzones-derived.xml"))
		if err != nil {
			f.t.Error(err)
		}
		w.Write(b)
	case "POST / DescribeSpotPriceHistory ":
		if t := form.Get("InstanceType.1"); t != "p5.48xlarge" && t != "g4dn.12xlarge" || form.Get("ProductDescription.1") != "Linux/UNIX" || form.Get("Version") != ec2APIVersion {
			f.t.Errorf("spot history form %v", form)
		}
		fmt.Fprint(w, `<DescribeSpotPriceHistoryResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><spotPriceHistorySet><item><instanceType>p5.48xlarge</instanceType>
<productDescription>Linux/UNIX</productDescription><spotPrice>25.5</spotPrice><timestamp>2026-11-30T10:00:00.000Z</timestamp><availabilityZone>us-east-1a</availabilityZone></item>
</spotPriceHistorySet><nextToken>s2</nextToken></DescribeSpotPriceHistoryResponse>`)
	case "POST / DescribeSpotPriceHistory s2":
		fmt.Fprint(w, `<DescribeSpotPriceHistoryResponse><spotPriceHistorySet><item><instanceType>p5.48xlarge</instanceType>
<productDescription>Linux/UNIX</productDescription><spotPrice>27.1</spotPrice><timestamp>2026-11-30T09:00:00.000Z</timestamp><availabilityZone>us-east-1b</availabilityZone></item>
</spotPriceHistorySet><nextToken/></DescribeSpotPriceHistoryResponse>`)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, "no such fake: %s", key)
	}
}

func fetchWith(t *testing.T, fake *fakeAWS, vars map[string]string, regions ...string) (*feeds.Result, error) {
	t.Helper()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	var progress []string
	if regions == nil {
		regions = []string{"us-east-1"}
	}
	if regions[0] == "" {
		regions = nil
	}
	res, err := New().Fetch(context.Background(), feeds.FetchRequest{Regions: regions, HTTP: retrying{srv.Client()}, Getenv: env(vars),
		Endpoint: srv.URL, Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
		Progress: func(done, total int, what string) {
			if done > total {
				t.Errorf("progress %d of %d", done, total)
			}
			progress = append(progress, what)
		}})
	if err == nil && len(progress) == 0 {
		t.Error("no progress reported")
	}
	return res, err
}

// TestFetchAPI: with credentials, GetProducts (two pages, the second
// throttled once), the Savings Plans file, two pages of spot history and
// Spot Advisor, against the fake on loopback.
func TestFetchAPI(t *testing.T) {
	fake := &fakeAWS{t: t, hits: map[string]int{}, throttle: map[string]int{"POST / AWSPriceListService.GetProducts p2": 1}}
	res, err := fetchWith(t, fake, map[string]string{"AWS_ACCESS_KEY_ID": exampleKeyID, "AWS_SECRET_ACCESS_KEY": exampleSecret})
	if err != nil {
		t.Fatal(err)
	}
	if n := fake.hits["POST / AWSPriceListService.GetProducts p2"]; n != 2 {
		t.Errorf("page 2 asked %d times, want 2 (429, then the page)", n)
	}
	// The GPU product's on-demand price from page 2; m5.large (page 1) left out: no GPU.
	if len(res.Offerings) != 3 {
		t.Fatalf("offerings %+v", res.Offerings)
	}
	od := res.Offerings[0]
	if od.InstanceType != "p5.48xlarge" || od.Region != "us-east-1" || !od.OnDemand.Amount.Equal(dec("55.04")) || od.OnDemand.Source != "aws-pricing-api@2026-11-30" || od.OnDemand.AsOf != "2026-11-01" {
		t.Errorf("on-demand %+v", od)
	}
	spot := map[string]string{}
	for _, o := range res.Offerings[1:] {
		spot[o.Zone] = o.Spot.Amount.String() + " " + o.Spot.Source + " " + o.Spot.AsOf
	}
	// Zone names mapped to ids by DescribeAvailabilityZones (testdata: us-east-1a is use1-az4, us-east-1b use1-az6).
	if spot["use1-az4"] != "25.5 aws-spot-history-us-east-1@2026-11-30 2026-11-30" || spot["use1-az6"] != "27.1 aws-spot-history-us-east-1@2026-11-30 2026-11-30" {
		t.Errorf("spot %v, want 25.5 in use1-az4 and 27.1 in use1-az6", spot)
	}
	if fake.hits["POST / DescribeAvailabilityZones "] != 1 {
		t.Errorf("DescribeAvailabilityZones asked %d times, want once", fake.hits["POST / DescribeAvailabilityZones "])
	}
	// The Savings Plans rate joined by SKU to the GPU product; the m5.large rate left out.
	if len(res.Commitments) != 1 || !res.Commitments[0].Hourly.Equal(dec("35.2")) || res.Commitments[0].Model != "savings-plan" || res.Commitments[0].Source != "aws-savings-plan-us-east-1@2026-11-01" {
		t.Errorf("commitments %+v", res.Commitments)
	}
	// Spot Advisor's recorded row for p5.48xlarge in us-east-1: {s: 52, r: 4} (>20%).
	if len(res.SpotBands) != 1 || res.SpotBands[0].Label != ">20%" || res.SpotBands[0].SavingsPct != 52 {
		t.Errorf("bands %+v", res.SpotBands)
	}
	left := fmt.Sprint(res.LeftOut)
	for _, want := range []string{"no GPU", "not one of the region's GPU on-demand products"} {
		if !strings.Contains(left, want) {
			t.Errorf("left out %s: no %q", left, want)
		}
	}
	for _, a := range fake.auth {
		if !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261130/us-east-1/") || strings.Contains(a, exampleSecret) {
			t.Errorf("Authorization %q", a)
		}
	}
	if strings.Contains(fmt.Sprintf("%+v", res), exampleSecret) {
		t.Error("the secret key is in the result")
	}
}

// TestFetchBulkWithoutCredentials: the public offer file, Savings Plans and
// Spot Advisor are read; spot prices are reported as not fetched.
func TestFetchBulkWithoutCredentials(t *testing.T) {
	fake := &fakeAWS{t: t, hits: map[string]int{}, throttle: map[string]int{"GET /spot-advisor-data.json": 2}}
	res, err := fetchWith(t, fake, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 1 || !res.Offerings[0].OnDemand.Amount.Equal(dec("55.04")) || res.Offerings[0].OnDemand.Source != "aws-offer-ec2-us-east-1@2026-11-01" {
		t.Fatalf("offerings %+v", res.Offerings)
	}
	if len(res.Commitments) != 1 || len(res.SpotBands) != 1 || len(fake.auth) != 0 {
		t.Errorf("%d commitments, %d bands, %d signed requests", len(res.Commitments), len(res.SpotBands), len(fake.auth))
	}
	if !strings.Contains(fmt.Sprint(res.LeftOut), "spot prices us-east-1: not fetched: no AWS credentials") {
		t.Errorf("left out %v", res.LeftOut)
	}
	// No regions asked: those of the offer's region index (GovCloud's partition skipped).
	fake = &fakeAWS{t: t, hits: map[string]int{}, throttle: map[string]int{}}
	res, err = fetchWith(t, fake, nil, "")
	if err != nil || len(res.Offerings) != 1 || fake.hits["GET /offers/v1.0/aws/AmazonEC2/current/region_index.json"] != 1 {
		t.Errorf("all regions: %v, %d offerings, hits %v", err, len(res.Offerings), fake.hits)
	}
}

// TestFetchFailures: a malformed page, throttling that outlasts the
// client's retries, a bad region and a bad setting are errors naming what
// failed; none carries the secret.
func TestFetchFailures(t *testing.T) {
	creds := map[string]string{"AWS_ACCESS_KEY_ID": exampleKeyID, "AWS_SECRET_ACCESS_KEY": exampleSecret}
	for _, c := range []struct {
		name string
		fake *fakeAWS
		vars map[string]string
		want string
	}{
		{"malformed page", &fakeAWS{malformed: "POST / AWSPriceListService.GetProducts p2"}, creds, "GetProducts us-east-1 page 2"},
		{"malformed offer", &fakeAWS{malformed: "GET /offers/v1.0/aws/AmazonEC2/current/us-east-1/index.json"}, nil, "aws offer file us-east-1"},
		{"throttled", &fakeAWS{throttle: map[string]int{"POST / DescribeSpotPriceHistory ": 9}}, creds, "HTTP 429 Too Many Requests: throttled"},
		{"api without credentials", &fakeAWS{}, map[string]string{PricesEnv: "api"}, "no AWS credentials"},
		{"bad setting", &fakeAWS{}, map[string]string{PricesEnv: "fast"}, `GPUSCOUT_AWS_PRICES="fast"; want bulk or api`},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.fake.t, c.fake.hits = t, map[string]int{}
			if c.fake.throttle == nil {
				c.fake.throttle = map[string]int{}
			}
			_, err := fetchWith(t, c.fake, c.vars)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), exampleSecret) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
	for region, want := range map[string]string{
		"us-east-1; rm -rf": `region "us-east-1; rm -rf" is not an AWS region code`,
		"us-gov-west-1":     "region us-gov-west-1: its partition publishes prices at its own endpoints",
	} {
		_, err := New().Fetch(context.Background(), feeds.FetchRequest{Regions: []string{region}, HTTP: http.DefaultClient})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", region, err, want)
		}
	}
}

// TestFetchBodyLimit: a body past FetchRequest.MaxBody is an error, not a truncated parse.
func TestFetchBodyLimit(t *testing.T) {
	srv := httptest.NewServer(&fakeAWS{t: t, hits: map[string]int{}, throttle: map[string]int{}})
	defer srv.Close()
	_, err := New().Fetch(context.Background(), feeds.FetchRequest{Regions: []string{"us-east-1"}, HTTP: srv.Client(), Endpoint: srv.URL, MaxBody: 100})
	if err == nil || !strings.Contains(err.Error(), "larger than the 100-byte limit") {
		t.Errorf("err %v", err)
	}
}

// cnOffer is a China-partition regional offer file holding one product: the
// layout of gpuElement's, for g4dn.12xlarge in cn-north-1 at 38.849 CNY/h
// (the price shared/data/aws-ondemand cites for it, karpenter-aws-cn@2024-11-06).
const cnOffer = `{"formatVersion":"v1.0","offerCode":"AmazonEC2","publicationDate":"2024-11-06T00:00:00Z","products":{"CNGPUSKU00000001":
{"productFamily":"Compute Instance","sku":"CNGPUSKU00000001","attributes":{"instanceType":"g4dn.12xlarge","gpu":"4","operatingSystem":"Linux","tenancy":"Shared",
"preInstalledSw":"NA","capacitystatus":"Used","marketoption":"OnDemand","location":"China (Beijing)","regionCode":"cn-north-1"}}},
"terms":{"OnDemand":{"CNGPUSKU00000001":{"CNGPUSKU00000001.JRTCKXETXF":{"priceDimensions":{"CNGPUSKU00000001.JRTCKXETXF.6YS6EN2CT7":{"unit":"Hrs",
"pricePerUnit":{"CNY":"38.849"}}},"sku":"CNGPUSKU00000001","offerTermCode":"JRTCKXETXF","termAttributes":{}}}}}}`

// TestFetchChina: a China region reads its partition's bulk offer file
// (/offers/v1.0/cn/..., CNY), also with credentials (no Pricing API there),
// and says why no Savings Plans rates were read.
func TestFetchChina(t *testing.T) {
	fake := &fakeAWS{t: t, hits: map[string]int{}, throttle: map[string]int{}}
	res, err := fetchWith(t, fake, map[string]string{"AWS_ACCESS_KEY_ID": exampleKeyID, "AWS_SECRET_ACCESS_KEY": exampleSecret}, "cn-north-1")
	if err != nil {
		t.Fatal(err)
	}
	if fake.hits["GET /offers/v1.0/cn/AmazonEC2/current/cn-north-1/index.json"] != 1 || fake.hits["POST / AWSPriceListService.GetProducts "] != 0 {
		t.Errorf("hits %v, want the China offer file once and no GetProducts", fake.hits)
	}
	var od *feeds.Offering
	for i := range res.Offerings {
		if res.Offerings[i].OnDemand.Known {
			od = &res.Offerings[i]
		}
	}
	if od == nil || od.InstanceType != "g4dn.12xlarge" || od.Region != "cn-north-1" || !od.OnDemand.Amount.Equal(dec("38.849")) || od.OnDemand.Currency != "CNY" ||
		od.OnDemand.Source != "aws-offer-ec2-cn-north-1@2024-11-06" {
		t.Errorf("on-demand %+v, want g4dn.12xlarge 38.849 CNY from aws-offer-ec2-cn-north-1@2024-11-06", od)
	}
	if !strings.Contains(fmt.Sprint(res.LeftOut), "no documented Savings Plans price file of the China partition") {
		t.Errorf("left out %v: no word on Savings Plans", res.LeftOut)
	}
	signed := false
	for _, a := range fake.auth {
		signed = signed || strings.Contains(a, "/20261130/cn-north-1/ec2/aws4_request")
	}
	if !signed {
		t.Errorf("no EC2 request signed for cn-north-1: %v", fake.auth)
	}
	if got := ec2Endpoint("cn-northwest-1"); got != "https://ec2.cn-northwest-1.amazonaws.com.cn/" {
		t.Errorf("China EC2 endpoint %s", got)
	}
}
