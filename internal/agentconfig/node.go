package agentconfig

import (
	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Node is what the monitored instances are and what they cost. Every field
// is optional: without a price the cost meter reports nothing (unknown,
// never zero), and without a provider the egress projection has no tiers.
type Node struct {
	Provider     string  `yaml:"provider,omitempty"`
	InstanceType string  `yaml:"instance_type,omitempty"`
	Region       string  `yaml:"region,omitempty"`
	GPU          string  `yaml:"gpu,omitempty"`
	GPUCount     float64 `yaml:"gpu_count,omitempty"`
	// Instances is how many instances the plan runs (default 1); the cost
	// meter multiplies the price by it.
	Instances    int    `yaml:"instances,omitempty"`
	PricingModel string `yaml:"pricing_model,omitempty"` // on-demand, spot, reserved, ...
	// PricePerHour is the plan's price per instance-hour under PricingModel
	// (for a commitment: its effective price per hour of use), in Currency;
	// nil where no price is sourced.
	PricePerHour *Amount `yaml:"price_per_hour,omitempty"`
	// OnDemandPricePerHour is the on-demand price per instance-hour, in
	// Currency, for comparison (a spot plan's fallback); nil where unknown.
	OnDemandPricePerHour *Amount `yaml:"on_demand_price_per_hour,omitempty"`
	Currency             string  `yaml:"currency,omitempty"` // ISO 4217, of every amount in the config
}

// Bounds of the node section.
const (
	MaxInstances    = 10000
	MaxGPUCount     = 64
	MaxPricePerHour = 1e6 // per instance-hour, any currency
)

func (n *Node) applyDefaults() {
	if n.Instances == 0 {
		n.Instances = 1
	}
}

func (n *Node) validate() error {
	if n.Instances < 1 || n.Instances > MaxInstances {
		return fieldErr("node.instances", "value %d is outside the allowed range 1 to %d", n.Instances, MaxInstances)
	}
	if !(n.GPUCount >= 0) || n.GPUCount > MaxGPUCount {
		return fieldErr("node.gpu_count", "value %v is outside the allowed range 0 to %d", n.GPUCount, MaxGPUCount)
	}
	for _, p := range []struct {
		name string
		v    *Amount
	}{{"node.price_per_hour", n.PricePerHour}, {"node.on_demand_price_per_hour", n.OnDemandPricePerHour}} {
		if p.v != nil && (p.v.IsNegative() || p.v.GreaterThan(decimal.NewFromInt(MaxPricePerHour))) {
			return fieldErr(p.name, "value %s is outside the allowed range 0 to %d", p.v, int(MaxPricePerHour))
		}
	}
	if n.PricePerHour != nil || n.OnDemandPricePerHour != nil || n.Currency != "" {
		if c, err := money.ParseCurrency(n.Currency); err != nil || string(c) != n.Currency {
			return fieldErr("node.currency", "value %q: want a three-letter ISO 4217 code such as USD (required with a price)", n.Currency)
		}
	}
	return nil
}
