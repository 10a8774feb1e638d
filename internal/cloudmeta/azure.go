package cloudmeta

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Azure reads Azure's Instance Metadata Service: GET
// /metadata/instance?api-version=2021-02-01 with the header Metadata: true,
// a JSON document whose compute object has vmSize, location, zone and vmId.
// https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service
type Azure struct {
	BaseURL string       // "" for http://169.254.169.254
	HTTP    *http.Client // nil for the package's short-timeout client
}

// AzureBaseURL is the link-local address of Azure's metadata service.
const AzureBaseURL = "http://169.254.169.254"

// azurePath is the instance endpoint at the API version whose response
// shape the parser follows.
const azurePath = "/metadata/instance?api-version=2021-02-01"

// Name implements Client.
func (Azure) Name() string { return "azure" }

// Identify implements Client.
func (c Azure) Identify(ctx context.Context) (*Identity, error) {
	f := newFetcher(c.Name(), orDefault(c.BaseURL, AzureBaseURL), c.HTTP, map[string]string{"Metadata": "true"})
	body, _, err := f.do(ctx, http.MethodGet, azurePath, nil, maxDocBytes)
	if err != nil {
		return nil, err
	}
	doc, err := ParseAzureInstance(body)
	if err != nil {
		return nil, &Error{Cloud: c.Name(), Method: http.MethodGet, URL: f.base + azurePath, Status: http.StatusOK, Err: err}
	}
	id := &Identity{Provider: c.Name(), InstanceType: doc.Compute.VMSize, Region: doc.Compute.Location, Zone: doc.Compute.Zone,
		InstanceID: doc.Compute.VMID, Source: f.base, Raw: map[string]string{
			"compute.vmSize": doc.Compute.VMSize, "compute.location": doc.Compute.Location, "compute.zone": doc.Compute.Zone,
			"compute.vmId": doc.Compute.VMID, "compute.azEnvironment": doc.Compute.AzEnvironment}}
	return id, nil
}

// AzureInstance holds the fields gpuscout uses of IMDS's instance document.
type AzureInstance struct {
	Compute struct {
		VMSize        string `json:"vmSize"`
		Location      string `json:"location"`
		Zone          string `json:"zone"` // "" where the VM has no availability zone
		VMID          string `json:"vmId"`
		AzEnvironment string `json:"azEnvironment"`
	} `json:"compute"`
}

// ParseAzureInstance reads the instance document; vmSize and location must
// be present and well formed, zone and vmId well formed where given.
func ParseAzureInstance(b []byte) (*AzureInstance, error) {
	var d AzureInstance
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("instance document: %w", err)
	}
	for _, f := range []struct {
		name, v  string
		optional bool
	}{{"compute.vmSize", d.Compute.VMSize, false}, {"compute.location", d.Compute.Location, false},
		{"compute.zone", d.Compute.Zone, true}, {"compute.vmId", d.Compute.VMID, true}} {
		if f.optional && f.v == "" {
			continue
		}
		if err := checkValue(f.v); err != nil {
			return nil, fmt.Errorf("instance document: %s %q: %w", f.name, clip(f.v), err)
		}
	}
	return &d, nil
}
