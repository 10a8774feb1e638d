package cloudmeta

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// GCP reads Compute Engine's metadata server: GET
// /computeMetadata/v1/instance/machine-type, /zone and /id with the header
// Metadata-Flavor: Google; the server answers with the same header. The
// machine type and zone come as paths: projects/123/machineTypes/a2-highgpu-8g,
// projects/123/zones/us-central1-a (region us-central1).
// https://cloud.google.com/compute/docs/metadata/querying-metadata
type GCP struct {
	BaseURL string       // "" for http://169.254.169.254 (metadata.google.internal)
	HTTP    *http.Client // nil for the package's short-timeout client
}

// GCPBaseURL is the metadata server's address (metadata.google.internal
// resolves to it; the address needs no DNS).
const GCPBaseURL = "http://169.254.169.254"

// Name implements Client.
func (GCP) Name() string { return "gcp" }

// Identify implements Client.
func (c GCP) Identify(ctx context.Context) (*Identity, error) {
	f := newFetcher(c.Name(), orDefault(c.BaseURL, GCPBaseURL), c.HTTP, map[string]string{"Metadata-Flavor": "Google"})
	get := func(path string) (string, error) {
		body, h, err := f.do(ctx, http.MethodGet, path, nil, maxValueBytes)
		if err != nil {
			return "", err
		}
		if h.Get("Metadata-Flavor") != "Google" {
			return "", &Error{Cloud: c.Name(), Method: http.MethodGet, URL: f.base + path, Status: http.StatusOK,
				Err: fmt.Errorf("the answer lacks the header Metadata-Flavor: Google; not GCP's metadata server")}
		}
		return strings.TrimSpace(string(body)), nil
	}
	id := &Identity{Provider: c.Name(), Source: f.base, Raw: map[string]string{}}
	const mtPath, zonePath, idPath = "/computeMetadata/v1/instance/machine-type", "/computeMetadata/v1/instance/zone", "/computeMetadata/v1/instance/id"
	mt, err := get(mtPath)
	if err != nil {
		return nil, err
	}
	if id.InstanceType, err = lastSegment(mt, "machineTypes"); err != nil {
		return nil, &Error{Cloud: c.Name(), Method: http.MethodGet, URL: f.base + mtPath, Status: http.StatusOK, Err: err}
	}
	z, err := get(zonePath)
	if err != nil {
		return nil, err
	}
	if id.Zone, err = lastSegment(z, "zones"); err == nil {
		id.Region, err = GCPRegion(id.Zone)
	}
	if err != nil {
		return nil, &Error{Cloud: c.Name(), Method: http.MethodGet, URL: f.base + zonePath, Status: http.StatusOK, Err: err}
	}
	if id.InstanceID, err = get(idPath); err == nil {
		err = checkValue(id.InstanceID)
	}
	if err != nil {
		return nil, err
	}
	id.Raw[mtPath], id.Raw[zonePath], id.Raw[idPath] = id.InstanceType, id.Zone, id.InstanceID
	return id, nil
}

// lastSegment reads projects/NUMBER/<kind>/NAME and returns NAME.
func lastSegment(v, kind string) (string, error) {
	parts := strings.Split(v, "/")
	if len(parts) != 4 || parts[0] != "projects" || parts[2] != kind {
		return "", fmt.Errorf("value %q: want projects/NUMBER/%s/NAME", clip(v), kind)
	}
	if err := checkValue(parts[3]); err != nil {
		return "", fmt.Errorf("value %q: %w", clip(v), err)
	}
	return parts[3], nil
}

// GCPRegion returns a zone's region: us-central1-a → us-central1.
func GCPRegion(zone string) (string, error) {
	i := strings.LastIndexByte(zone, '-')
	if i <= 0 || i == len(zone)-1 {
		return "", fmt.Errorf("zone %q: want REGION-LETTER, e.g. us-central1-a", clip(zone))
	}
	return zone[:i], nil
}
