package cloudmeta

import (
	"context"
	"errors"
	"net/http"
)

// Alibaba reads Alibaba Cloud ECS's metadata service at 100.100.100.200:
// GET /latest/meta-data/instance/instance-type, region-id, zone-id and
// instance-id. In security hardening mode (which an instance may enforce) a
// token comes first from PUT /latest/api/token with
// X-aliyun-ecs-metadata-token-ttl-seconds (1 to 21600) and goes with each GET
// as X-aliyun-ecs-metadata-token; a service that refuses the PUT is asked
// in normal mode, without a token.
// https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata
type Alibaba struct {
	BaseURL string       // "" for http://100.100.100.200
	HTTP    *http.Client // nil for the package's short-timeout client
}

// AlibabaBaseURL is ECS's metadata service.
const AlibabaBaseURL = "http://100.100.100.200"

// Name implements Client.
func (Alibaba) Name() string { return "alibaba" }

// Identify implements Client.
func (c Alibaba) Identify(ctx context.Context) (*Identity, error) {
	f := newFetcher(c.Name(), orDefault(c.BaseURL, AlibabaBaseURL), c.HTTP, nil)
	tok, err := f.token(ctx, "/latest/api/token", "X-aliyun-ecs-metadata-token-ttl-seconds")
	var me *Error
	switch {
	case err == nil:
		f.header = map[string]string{"X-aliyun-ecs-metadata-token": tok}
	case errors.As(err, &me) && me.Status != 0 && me.Status != http.StatusOK:
		// Answered, but no token: normal mode.
	default:
		return nil, err
	}
	return plainPaths(ctx, f, c.Name(), "/latest/meta-data/instance/instance-type", "/latest/meta-data/region-id",
		"/latest/meta-data/zone-id", "/latest/meta-data/instance-id")
}

// plainPaths reads the instance type, region, zone and instance id from
// four plain-text paths.
func plainPaths(ctx context.Context, f *fetcher, cloud, typePath, regionPath, zonePath, idPath string) (*Identity, error) {
	id := &Identity{Provider: cloud, Source: f.base, Raw: map[string]string{}}
	for _, p := range []struct {
		path string
		to   *string
	}{{typePath, &id.InstanceType}, {regionPath, &id.Region}, {zonePath, &id.Zone}, {idPath, &id.InstanceID}} {
		v, err := f.value(ctx, p.path, nil)
		if err != nil {
			return nil, err
		}
		*p.to, id.Raw[p.path] = v, v
	}
	return id, nil
}
