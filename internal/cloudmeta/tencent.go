package cloudmeta

import (
	"context"
	"net/http"
)

// Tencent reads Tencent Cloud CVM's metadata service: GET
// /latest/meta-data/instance/instance-type, placement/region (ap-guangzhou),
// placement/zone (ap-guangzhou-3) and instance-id, plain text, no token
// (none is documented). The region, zone and instance-id paths are in
// https://www.tencentcloud.com/document/product/213/4934, with examples in
// https://cloud.tencent.com/developer/article/1883323; instance/instance-type
// is the path public tooling for CVM reads (we found it in no table we could
// read: a 404 there fails the identification, naming the path).
type Tencent struct {
	BaseURL string       // "" for http://metadata.tencentyun.com
	HTTP    *http.Client // nil for the package's short-timeout client
}

// TencentBaseURL is CVM's metadata service.
const TencentBaseURL = "http://metadata.tencentyun.com"

// Name implements Client.
func (Tencent) Name() string { return "tencent" }

// Identify implements Client.
func (c Tencent) Identify(ctx context.Context) (*Identity, error) {
	f := newFetcher(c.Name(), orDefault(c.BaseURL, TencentBaseURL), c.HTTP, nil)
	return plainPaths(ctx, f, c.Name(), "/latest/meta-data/instance/instance-type", "/latest/meta-data/placement/region",
		"/latest/meta-data/placement/zone", "/latest/meta-data/instance-id")
}

// Clients returns a client for every cloud at its real address.
func Clients() []Client {
	return []Client{AWS{}, Azure{}, GCP{}, Alibaba{}, Tencent{}}
}
