package awsprices

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Where AWS publishes the feeds. The bulk files and Spot Advisor are
// public; the Pricing API and EC2 need the user's credentials. With
// FetchRequest.Endpoint set, every request goes there instead, keeping its
// path (the Pricing API and EC2 both POST to "/": X-Amz-Target tells them apart).
const (
	bulkBase       = "https://pricing.us-east-1.amazonaws.com"
	pricingAPIURL  = "https://api.pricing.us-east-1.amazonaws.com/"
	spotAdvisorURL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
	ec2URL         = "https://ec2.%s.amazonaws.com/"
	ec2APIVersion  = "2016-11-15"
)

// The China partition (cn-north-1, cn-northwest-1) is a world of its own:
// its bulk price files are served from pricing.cn-north-1.amazonaws.com.cn
// under /offers/v1.0/cn/ (Amazon Billing User Guide for the China Regions,
// "Getting price list files manually":
// https://docs.amazonaws.cn/en_us/awsaccountbilling/latest/aboutv2/using-the-aws-price-list-bulk-api-fetching-price-list-files-manually.html,
// service index .../offers/v1.0/cn/index.json; the regional files follow the
// same layout as the aws partition's), in CNY, and its service endpoints end
// in amazonaws.com.cn (service.region.amazonaws.com.cn). Its accounts are
// apart from the global ones, so China credentials sign its EC2 requests.
// The Pricing Query API (GetProducts) and Savings Plans files of the
// partition are not fetched: no documented endpoint or path for them was
// found, so a China region always reads the bulk offer file.
const (
	cnBulkBase = "https://pricing.cn-north-1.amazonaws.com.cn"
	cnEC2URL   = "https://ec2.%s.amazonaws.com.cn/"
)

// china reports whether region is in the China partition.
func china(region string) bool { return strings.HasPrefix(region, "cn-") }

// ec2Endpoint is the EC2 Query API URL of region.
func ec2Endpoint(region string) string {
	if china(region) {
		return fmt.Sprintf(cnEC2URL, region)
	}
	return fmt.Sprintf(ec2URL, region)
}

// Limits where FetchRequest gives none: a regional EC2 offer or Savings
// Plans file is hundreds of MB and streamed; an API page is small.
const (
	maxBulkBody = 16 << 30
	maxPageBody = 64 << 20
	maxPages    = 1000
)

// PricesEnv chooses where on-demand and Reserved Instance prices come from:
// "bulk" (the public offer file), "api" (the Pricing API's GetProducts,
// filtered server-side: much less to download, needs credentials); unset:
// the API when credentials are found, else the offer file.
const PricesEnv = "GPUSCOUT_AWS_PRICES"

var regionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]+$`) })

// Fetch implements feeds.Importer: for each region, on-demand and Reserved
// Instance prices of GPU instances (offer file or GetProducts), their
// Compute and EC2 Instance Savings Plans rates (joined to the on-demand
// products by SKU), the latest spot price per zone (DescribeSpotPriceHistory,
// with credentials), and Spot Advisor's bands. Without credentials the
// public feeds are still read and the spot prices are reported as not fetched.
// China regions (cn-north-1, cn-northwest-1) read their partition's bulk
// offer file in CNY and its EC2 endpoints (see cnBulkBase); GovCloud and
// the isolated partitions are refused.
func (im *Importer) Fetch(ctx context.Context, req feeds.FetchRequest) (*feeds.Result, error) {
	if req.HTTP == nil {
		return nil, errors.New("aws: no HTTP client")
	}
	f := &fetcher{ctx: ctx, req: req, res: &feeds.Result{}, now: req.Clock()().UTC()}
	if req.Getenv == nil {
		f.req.Getenv = func(string) string { return "" }
	}
	creds, credErr := credentials(f.req.Getenv, req.HomeDir)
	if credErr != nil && !errors.Is(credErr, errNoCredentials) {
		return nil, fmt.Errorf("aws: %w", credErr)
	}
	if credErr == nil {
		f.creds = &creds
	}
	mode := f.req.Getenv(PricesEnv)
	switch mode {
	case "":
		mode = "bulk"
		if f.creds != nil {
			mode = "api"
		}
	case "bulk", "api":
	default:
		return nil, fmt.Errorf("aws: %s=%q; want bulk or api", PricesEnv, mode)
	}
	if mode == "api" && f.creds == nil {
		return nil, fmt.Errorf("aws: %s=api: %w", PricesEnv, errNoCredentials)
	}
	regions := req.Regions
	offerURL := map[string]string{}
	if len(regions) == 0 {
		var err error
		if regions, offerURL, err = f.offerRegions(); err != nil {
			return nil, err
		}
	}
	for _, r := range regions {
		if !regionRE().MatchString(r) {
			return nil, fmt.Errorf("aws: region %q is not an AWS region code (us-east-1, eu-west-1, ...)", r)
		}
		if strings.Contains(r, "-gov-") || strings.Contains(r, "-iso") {
			return nil, fmt.Errorf("aws: region %s: its partition publishes prices at its own endpoints, which this importer does not fetch yet; download the offer file and use --from-file FILE --format %s (CNY prices are read)", r, FormatOffer)
		}
	}
	f.total = 2 + 3*len(regions)
	if f.creds != nil {
		f.total += len(regions) // DescribeAvailabilityZones
	}
	gpu := map[string]map[string]string{} // region → GPU product SKU → instance type
	for _, region := range regions {
		var err error
		switch {
		case china(region): // the partition's bulk file: see cnBulkBase
			gpu[region], err = f.offer(region, cnBulkBase+"/offers/v1.0/cn/AmazonEC2/current/"+region+"/index.json")
		case mode == "api":
			gpu[region], err = f.getProducts(region)
		default:
			gpu[region], err = f.offer(region, offerURL[region])
		}
		if err != nil {
			return nil, err
		}
	}
	spIndex, err := f.savingsPlanIndex()
	if err != nil {
		return nil, err
	}
	for _, region := range regions {
		if err := f.savingsPlans(region, spIndex[region], gpu[region]); err != nil {
			return nil, err
		}
		if err := f.spotHistory(region, gpu[region]); err != nil {
			return nil, err
		}
	}
	if err := f.spotAdvisor(regions, gpu); err != nil {
		return nil, err
	}
	f.res.Lists = true // each region's whole offer file or GetProducts list
	return f.res, nil
}

type fetcher struct {
	ctx         context.Context
	req         feeds.FetchRequest
	res         *feeds.Result
	now         time.Time
	creds       *aws.Credentials
	done, total int
}

func (f *fetcher) today() string { return f.now.Format("2006-01-02") }

// url returns the URL of a feed, or the Endpoint with its path.
func (f *fetcher) url(full string) string {
	if f.req.Endpoint == "" {
		return full
	}
	u, err := url.Parse(full)
	if err != nil {
		return full
	}
	return strings.TrimSuffix(f.req.Endpoint, "/") + u.Path
}

func (f *fetcher) progress(what string) {
	f.done++
	if f.done > f.total {
		f.total = f.done
	}
	if f.req.Progress != nil {
		f.req.Progress(f.done, f.total, what)
	}
}

// get GETs a public file.
func (f *fetcher) get(full, what string, limit int64) (io.ReadCloser, error) {
	r, err := http.NewRequestWithContext(f.ctx, http.MethodGet, f.url(full), nil)
	if err != nil {
		return nil, err
	}
	return f.send(r, what, limit)
}

// post POSTs a signed request to an AWS API.
func (f *fetcher) post(full, what, service, region string, body []byte, header map[string]string) (io.ReadCloser, error) {
	r, err := http.NewRequestWithContext(f.ctx, http.MethodPost, f.url(full), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	if err := sign(f.ctx, *f.creds, r, body, service, region, f.now); err != nil {
		return nil, fmt.Errorf("%s: signing: %w", what, err)
	}
	return f.send(r, what, maxPageBody)
}

// send sends r once (the caller's Doer retries throttling) and returns the
// body of a 200 answer, cut off with an error past the limit.
func (f *fetcher) send(r *http.Request, what string, limit int64) (io.ReadCloser, error) {
	limit, _ = f.req.Limits(limit, 0)
	resp, err := f.req.HTTP.Do(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		msg := strings.Join(strings.Fields(string(b)), " ")
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			msg = "throttled (still, after the client's retries); try again later. " + msg
		}
		return nil, fmt.Errorf("%s: HTTP %s: %s", what, resp.Status, msg)
	}
	return &capped{Reader: feeds.LimitBody(resp.Body, limit), c: resp.Body, limit: limit, what: what}, nil
}

// capped reads a body up to limit bytes, then fails naming what it read.
type capped struct {
	io.Reader
	c     io.Closer
	limit int64
	what  string
}

// Read implements io.Reader.
func (c *capped) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	if tl := (*feeds.TooLargeError)(nil); errors.As(err, &tl) {
		err = fmt.Errorf("%s: the body is larger than the %d-byte limit", c.what, c.limit)
	}
	return n, err
}

// Close implements io.Closer.
func (c *capped) Close() error { return c.c.Close() }

// offerRegions lists the regions of the EC2 offer's region index.
func (f *fetcher) offerRegions() ([]string, map[string]string, error) {
	const what = "aws offer region index"
	body, err := f.get(bulkBase+"/offers/v1.0/aws/AmazonEC2/current/region_index.json", what, maxPageBody)
	if err != nil {
		return nil, nil, err
	}
	defer body.Close()
	var idx struct {
		Regions map[string]struct {
			RegionCode        string `json:"regionCode"`
			CurrentVersionURL string `json:"currentVersionUrl"`
		} `json:"regions"`
	}
	if err := json.NewDecoder(body).Decode(&idx); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	f.progress(what)
	urls := map[string]string{}
	for code, r := range idx.Regions {
		if regionRE().MatchString(code) && !strings.Contains(code, "-gov-") && strings.HasPrefix(r.CurrentVersionURL, "/") {
			urls[code] = bulkBase + r.CurrentVersionURL
		}
	}
	if len(urls) == 0 {
		return nil, nil, fmt.Errorf("%s: no regions", what)
	}
	regions := make([]string, 0, len(urls))
	for r := range urls {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	return regions, urls, nil
}

// gpuProducts records a price list's GPU products and returns their SKUs → types.
func (f *fetcher) gpuProducts(pl *PriceList, origin, source, asOf string, into map[string]string) {
	for _, p := range pl.Products {
		into[p.SKU] = p.InstanceType
	}
	pl.Records(origin, source, asOf, f.res)
}

// offer streams a region's bulk offer file.
func (f *fetcher) offer(region, full string) (map[string]string, error) {
	if full == "" {
		full = bulkBase + "/offers/v1.0/aws/AmazonEC2/current/" + region + "/index.json"
	}
	what := "aws offer file " + region
	body, err := f.get(full, what, maxBulkBody)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	origin := "aws-offer/" + region
	pl, shape, err := ParsePriceList(body, ListOptions{Origin: origin, Region: region, Keep: GPUFilter})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if shape != ShapeOffer || pl.PublicationDate.IsZero() {
		return nil, fmt.Errorf("%s: not a bulk offer file with a publicationDate", what)
	}
	f.progress(what)
	asOf := pl.PublicationDate.Format("2006-01-02")
	gpu := map[string]string{}
	f.gpuProducts(pl, origin, "aws-offer-ec2-"+region+"@"+asOf, asOf, gpu)
	return gpu, nil
}

// getProducts pages through the Pricing API's GetProducts for a region's
// Linux, shared-tenancy, on-demand, used-capacity EC2 products.
func (f *fetcher) getProducts(region string) (map[string]string, error) {
	gpu := map[string]string{}
	token := ""
	limit := f.req.MaxPages
	if limit <= 0 {
		limit = maxPages
	}
	for page := 1; ; page++ {
		if page > limit {
			return nil, fmt.Errorf("aws GetProducts %s: more than %d pages", region, limit)
		}
		q := map[string]any{"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1", "MaxResults": 100, "Filters": []map[string]string{
			{"Type": "TERM_MATCH", "Field": "regionCode", "Value": region},
			{"Type": "TERM_MATCH", "Field": "operatingSystem", "Value": "Linux"},
			{"Type": "TERM_MATCH", "Field": "tenancy", "Value": "Shared"},
			{"Type": "TERM_MATCH", "Field": "preInstalledSw", "Value": "NA"},
			{"Type": "TERM_MATCH", "Field": "capacitystatus", "Value": "Used"},
			{"Type": "TERM_MATCH", "Field": "marketoption", "Value": "OnDemand"},
		}}
		if token != "" {
			q["NextToken"] = token
		}
		body, _ := json.Marshal(q)
		what := fmt.Sprintf("aws GetProducts %s page %d", region, page)
		rc, err := f.post(pricingAPIURL, what, "pricing", "us-east-1", body, map[string]string{
			"Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "AWSPriceListService.GetProducts"})
		if err != nil {
			return nil, err
		}
		origin := fmt.Sprintf("aws-getproducts/%s/page-%d", region, page)
		pl, shape, err := ParsePriceList(rc, ListOptions{Origin: origin, Region: region, Keep: GPUFilter})
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if shape != ShapeGetProducts {
			return nil, fmt.Errorf("%s: the answer is %s, not a GetProducts response", what, shape)
		}
		f.progress(what)
		asOf := f.today()
		if !pl.PublicationDate.IsZero() {
			asOf = pl.PublicationDate.Format("2006-01-02")
		}
		f.gpuProducts(pl, origin, "aws-pricing-api@"+f.today(), asOf, gpu)
		if pl.NextToken == "" {
			return gpu, nil
		}
		if pl.NextToken == token {
			return nil, fmt.Errorf("%s: NextToken repeats the previous page's", what)
		}
		token = pl.NextToken
	}
}

// savingsPlanIndex maps regions to their Compute Savings Plans price files.
func (f *fetcher) savingsPlanIndex() (map[string]string, error) {
	const what = "aws savings plan region index"
	body, err := f.get(bulkBase+"/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json", what, maxPageBody)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	var idx struct {
		Regions []struct {
			RegionCode string `json:"regionCode"`
			VersionURL string `json:"versionUrl"`
		} `json:"regions"`
	}
	if err := json.NewDecoder(body).Decode(&idx); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	f.progress(what)
	out := map[string]string{}
	for _, r := range idx.Regions {
		if strings.HasPrefix(r.VersionURL, "/") {
			out[r.RegionCode] = bulkBase + r.VersionURL
		}
	}
	return out, nil
}

// savingsPlans reads a region's Savings Plans rates of its GPU products.
func (f *fetcher) savingsPlans(region, full string, gpu map[string]string) error {
	origin := "aws-savings-plan/" + region
	if china(region) {
		f.res.Leave(origin, "Savings Plans rates "+region, "not fetched: no documented Savings Plans price file of the China partition was found")
		return nil
	}
	if full == "" {
		f.res.Leave(origin, "Savings Plans rates "+region, "the Savings Plans region index lists no price file for the region")
		return nil
	}
	what := "aws savings plan file " + region
	body, err := f.get(full, what, maxBulkBody)
	if err != nil {
		return err
	}
	defer body.Close()
	keep := func(r *SPRate) (string, string) {
		if _, ok := gpu[r.DiscountedSKU]; ok {
			return "", ""
		}
		return catNotGPU, "the discounted product is not one of the region's GPU on-demand products read"
	}
	sp, err := ParseSavingsPlan(body, SPOptions{Origin: origin, Region: region, Keep: keep})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if sp.PublicationDate.IsZero() {
		return fmt.Errorf("%s: no publicationDate", what)
	}
	f.progress(what)
	asOf := sp.PublicationDate.Format("2006-01-02")
	sp.Records(origin, "aws-savings-plan-"+region+"@"+asOf, asOf, f.res)
	return nil
}

// spotHistory asks EC2 for the spot price in effect now of the region's GPU
// types, per zone (DescribeSpotPriceHistory with StartTime now), the zones
// named by their ids (DescribeAvailabilityZones), as the catalog's are.
func (f *fetcher) spotHistory(region string, gpu map[string]string) error {
	origin := "aws-spot-history/" + region
	if f.creds == nil {
		f.res.Leave(origin, "spot prices "+region, "not fetched: "+errNoCredentials.Error())
		return nil
	}
	types := map[string]bool{}
	for _, t := range gpu {
		types[t] = true
	}
	if len(types) == 0 {
		return nil
	}
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	ids, err := f.zones(region)
	if err != nil {
		return err
	}
	limit := f.req.MaxPages
	if limit <= 0 {
		limit = maxPages
	}
	token := ""
	for page := 1; ; page++ {
		if page > limit {
			return fmt.Errorf("aws DescribeSpotPriceHistory %s: more than %d pages", region, limit)
		}
		form := url.Values{"Action": {"DescribeSpotPriceHistory"}, "Version": {ec2APIVersion}, "ProductDescription.1": {"Linux/UNIX"},
			"StartTime": {f.now.Format(time.RFC3339)}, "MaxResults": {"1000"}}
		for i, t := range names {
			form.Set("InstanceType."+strconv.Itoa(i+1), t)
		}
		if token != "" {
			form.Set("NextToken", token)
		}
		what := fmt.Sprintf("aws DescribeSpotPriceHistory %s page %d", region, page)
		rc, err := f.post(ec2Endpoint(region), what, "ec2", region, []byte(form.Encode()),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
		if err != nil {
			return err
		}
		o := fmt.Sprintf("%s/page-%d", origin, page)
		h, err := ParseSpotHistory(rc, SpotHistoryOptions{Origin: o, Region: region,
			Keep: func(t string) (string, string) {
				if types[t] {
					return "", ""
				}
				return catNotGPU, "not one of the GPU types asked for"
			}})
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		f.progress(what)
		h.MapZones(ids, o)
		h.Records(o, "aws-spot-history-"+region+"@"+f.today(), f.res)
		if h.NextToken == "" {
			return nil
		}
		if h.NextToken == token {
			return fmt.Errorf("%s: NextToken repeats the previous page's", what)
		}
		token = h.NextToken
	}
}

// spotAdvisor reads Spot Advisor's bands of the regions' GPU types.
func (f *fetcher) spotAdvisor(regions []string, gpu map[string]map[string]string) error {
	const what = "aws spot advisor"
	body, err := f.get(spotAdvisorURL, what, maxPageBody)
	if err != nil {
		return err
	}
	defer body.Close()
	d, err := ParseSpotAdvisor(body)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	f.progress(what)
	types := map[string]map[string]bool{}
	for _, r := range regions {
		types[r] = map[string]bool{}
		for _, t := range gpu[r] {
			types[r][t] = true
		}
	}
	origin := "aws-spot-advisor"
	left := newLeaver(origin)
	kept := d.Entries[:0]
	for _, e := range d.Entries {
		ts, asked := types[e.Region]
		switch {
		case !asked: // another region: not asked for
		case !ts[e.InstanceType]:
			left.leave(catNotGPU, origin+"#"+e.Region+"/"+e.OS+"/"+e.InstanceType, e.InstanceType+" "+e.Region, "not one of the region's GPU types read")
		default:
			kept = append(kept, e)
		}
	}
	d.Entries = kept
	d.Records(origin, "aws-spot-advisor@"+f.today(), f.today(), f.res)
	f.res.LeftOut = append(f.res.LeftOut, left.done()...)
	return nil
}
