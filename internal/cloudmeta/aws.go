package cloudmeta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// AWS reads EC2's instance metadata service, version 2: a session token from
// PUT /latest/api/token (X-aws-ec2-metadata-token-ttl-seconds), then GETs
// with X-aws-ec2-metadata-token. Paths and the identity document's fields:
// https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html
// https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/retrieve-iid.html
type AWS struct {
	BaseURL string       // "" for http://169.254.169.254
	HTTP    *http.Client // nil for the package's short-timeout client
}

// AWSBaseURL is the link-local address of EC2's metadata service.
const AWSBaseURL = "http://169.254.169.254"

// Name implements Client.
func (AWS) Name() string { return "aws" }

// Identify implements Client.
func (c AWS) Identify(ctx context.Context) (*Identity, error) {
	f := newFetcher(c.Name(), orDefault(c.BaseURL, AWSBaseURL), c.HTTP, nil)
	// A minute's token will do: gpuscout asks a handful of questions.
	tok, err := f.token(ctx, "/latest/api/token", "X-aws-ec2-metadata-token-ttl-seconds")
	if err != nil {
		return nil, err
	}
	f.header = map[string]string{"X-aws-ec2-metadata-token": tok}
	id := &Identity{Provider: c.Name(), Source: f.base, Raw: map[string]string{}}
	for _, p := range []struct {
		path string
		to   *string
	}{
		{"/latest/meta-data/instance-type", &id.InstanceType},
		{"/latest/meta-data/placement/region", &id.Region},
		{"/latest/meta-data/placement/availability-zone", &id.Zone},
	} {
		if *p.to, err = f.value(ctx, p.path, nil); err != nil {
			return nil, err
		}
		id.Raw[p.path] = *p.to
	}
	// Zone ids came later (2019-10-01); an instance may lack one.
	const zoneIDPath = "/latest/meta-data/placement/availability-zone-id"
	if id.ZoneID, err = f.value(ctx, zoneIDPath, nil); err != nil {
		var me *Error
		if !errors.As(err, &me) || me.Status != http.StatusNotFound {
			return nil, err
		}
	} else {
		id.Raw[zoneIDPath] = id.ZoneID
	}
	const docPath = "/latest/dynamic/instance-identity/document"
	body, _, err := f.do(ctx, http.MethodGet, docPath, nil, maxDocBytes)
	if err != nil {
		return nil, err
	}
	doc, err := ParseAWSIdentityDocument(body)
	if err != nil {
		return nil, &Error{Cloud: c.Name(), Method: http.MethodGet, URL: f.base + docPath, Status: http.StatusOK, Err: err}
	}
	if doc.InstanceType != id.InstanceType || doc.Region != id.Region {
		return nil, &Error{Cloud: c.Name(), Method: http.MethodGet, URL: f.base + docPath, Status: http.StatusOK,
			Err: fmt.Errorf("the document says %s in %s, the meta-data paths %s in %s", doc.InstanceType, doc.Region, id.InstanceType, id.Region)}
	}
	id.InstanceID = doc.InstanceID
	id.Raw[docPath+"#instanceId"] = doc.InstanceID
	return id, nil
}

// AWSIdentityDocument holds the fields gpuscout uses of EC2's instance
// identity document (accountId and the rest are not kept).
type AWSIdentityDocument struct {
	InstanceType     string `json:"instanceType"`
	Region           string `json:"region"`
	AvailabilityZone string `json:"availabilityZone"`
	InstanceID       string `json:"instanceId"`
}

// ParseAWSIdentityDocument reads an instance identity document; the
// instance type, region and instance id must be present and well formed.
func ParseAWSIdentityDocument(b []byte) (*AWSIdentityDocument, error) {
	var d AWSIdentityDocument
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("instance identity document: %w", err)
	}
	for _, f := range []struct{ name, v string }{{"instanceType", d.InstanceType}, {"region", d.Region}, {"instanceId", d.InstanceID}} {
		if err := checkValue(f.v); err != nil {
			return nil, fmt.Errorf("instance identity document: %s %q: %w", f.name, clip(f.v), err)
		}
	}
	return &d, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
