package catalog

import (
	"slices"
	"strings"
)

// Provider is a cloud that sells GPU capacity.
type Provider struct {
	Name          string   `yaml:"name"`
	DisplayName   string   `yaml:"display_name"`
	Aliases       []string `yaml:"aliases"`
	Currency      string   `yaml:"currency"`
	Billing       string   `yaml:"billing"`        // billing granularity of on-demand use, "" if not sourced
	BillingSource string   `yaml:"billing_source"` // source id of Billing
	// BillingMinimumSeconds is the shortest on-demand use billed (a shorter
	// run is billed this long), from BillingSource; 0 where not sourced.
	BillingMinimumSeconds float64    `yaml:"billing_minimum_seconds"`
	PriceNote             string     `yaml:"price_note"`     // how to get prices the catalog lacks
	Schemes               []Scheme   `yaml:"schemes"`        // how it sells commitments
	SchemesSource         string     `yaml:"schemes_source"` // source id of Schemes
	Regions               []Region   `yaml:"regions"`
	Ecosystem             *Ecosystem `yaml:"ecosystem"`
	// SkyPilotCloud is the provider's name in SkyPilot's `cloud` field, ""
	// where SkyPilot cannot launch on it.
	SkyPilotCloud string `yaml:"skypilot_cloud"`
	// SkyPilot is what SkyPilot cannot do on that cloud (its cloud's
	// unsupported-feature flags), nil where SkyPilot cannot launch on it.
	SkyPilot *SkyPilotLimits `yaml:"skypilot"`
	// Risks are capacity risks that plans on this provider carry.
	Risks []ProviderRisk `yaml:"risks"`
	// Marketplace marks a market of individual hosts (Vast.ai): host
	// quality and the network between hosts vary and are not sourced, so
	// communication-heavy work gets no multi-node plans there unless the
	// user allows it. MarketplaceSource cites it.
	Marketplace       bool   `yaml:"marketplace"`
	MarketplaceSource string `yaml:"marketplace_source"`
}

// SkyPilotLimits are the features SkyPilot does not support on a cloud, as
// its cloud class declares them (_CLOUD_UNSUPPORTED_FEATURES), and the
// regions its catalog lacks. The zero value: everything is supported.
type SkyPilotLimits struct {
	NoMultiNode bool `yaml:"no_multi_node"` // no clusters of more than one node
	NoSpot      bool `yaml:"no_spot"`       // no spot instances
	NoOpenPorts bool `yaml:"no_open_ports"` // no open ports, so no sky serve replicas
	// NoChinaRegions: SkyPilot's catalog of the cloud has no mainland-China
	// region (AWS's cn-* regions are a separate partition it does not fetch).
	NoChinaRegions bool   `yaml:"no_china_regions"`
	Source         string `yaml:"source"` // source id of these facts
}

// ProviderRisk is a capacity risk of a provider's plans: for one pricing
// model (spot, commitment, ...) or, with Model "", for every plan.
type ProviderRisk struct {
	Model string `yaml:"model"`
	// Instances, where set, are the instance-type prefixes the risk is about
	// (p5. for every p5 size); empty: every instance type.
	Instances []string `yaml:"instances"`
	Text      string   `yaml:"text"`
	Source    string   `yaml:"source"`
}

// RisksFor returns the provider's risk texts that apply to a pricing model
// on an instance type.
func (p *Provider) RisksFor(model, instanceType string) []string {
	var out []string
	for _, r := range p.Risks {
		if len(r.Instances) > 0 && !slices.ContainsFunc(r.Instances, func(pre string) bool { return strings.HasPrefix(instanceType, pre) }) {
			continue
		}
		if r.Model == "" || r.Model == model {
			out = append(out, r.Text)
		}
	}
	return out
}

// ProviderForSkyPilot returns the provider SkyPilot calls cloud: the one whose
// skypilot_cloud it is, else the one with that name or alias; nil if none.
func (c *Catalog) ProviderForSkyPilot(cloud string) *Provider {
	for _, p := range c.Providers {
		if p.SkyPilotCloud != "" && strings.EqualFold(p.SkyPilotCloud, cloud) {
			return p
		}
	}
	return c.Provider(cloud)
}

// Ecosystem is what a provider offers around the GPU: ready images with the
// driver, CUDA and frameworks, and GPU monitoring; each with its source.
type Ecosystem struct {
	Images     string `yaml:"images"`
	Monitoring string `yaml:"monitoring"`
	Source     string `yaml:"source"`
}

// Region is a provider region with the names users may type for it.
type Region struct {
	Name    string   `yaml:"name"`
	Aliases []string `yaml:"aliases"` // 华东1, Hangzhou, ...
	China   bool     `yaml:"china"`   // mainland China
}

// RegionInfo returns the provider's region entry, or nil.
func (p *Provider) RegionInfo(name string) *Region {
	for i := range p.Regions {
		if p.Regions[i].Name == name {
			return &p.Regions[i]
		}
	}
	return nil
}
