// Package agentconfig is the schema of the agent configuration: what
// `gpuscout advise --export agent` writes and what the coming agent reads.
// It imports nothing of gpuscout's, so that the agent owns the schema
// without importing advise.
package agentconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Version is the format version this package writes and reads.
const Version = 0

// Config is the agent configuration for the nodes of one plan.
type Config struct {
	Version int     `yaml:"version"`
	Node    Node    `yaml:"node"`
	Alerts  []Alert `yaml:"alerts"`
	Notify  Notify  `yaml:"notify"`
}

// Node is what the monitored instances are and what they cost.
type Node struct {
	Provider     string  `yaml:"provider"`
	InstanceType string  `yaml:"instance_type"`
	Region       string  `yaml:"region"`
	GPU          string  `yaml:"gpu"`
	GPUCount     float64 `yaml:"gpu_count"`
	Instances    int     `yaml:"instances"`
	PricingModel string  `yaml:"pricing_model"` // on-demand, spot, reserved, ...
	// PricePerHour is the plan's price per instance-hour under PricingModel
	// (for a commitment: its effective price per hour of use), in Currency;
	// nil where no price is sourced (unknown is never zero).
	PricePerHour *float64 `yaml:"price_per_hour"`
	// OnDemandPricePerHour is the on-demand price per instance-hour, in
	// Currency, for comparison (a spot plan's fallback); nil where unknown.
	OnDemandPricePerHour *float64 `yaml:"on_demand_price_per_hour"`
	Currency             string   `yaml:"currency"` // ISO 4217, of every amount in the config
}

// Alert is one rule the agent evaluates.
type Alert struct {
	Name   string `yaml:"name"`
	Expr   string `yaml:"expr"` // PromQL-style, over gpuscout_* metrics
	For    string `yaml:"for"`  // how long Expr must hold, a Go duration
	Action string `yaml:"action"`
	Note   string `yaml:"note,omitempty"`
}

// Alert actions.
const (
	ActionNotify = "notify"
	ActionStop   = "stop"
)

// Notify says where alerts go.
type Notify struct {
	Alertmanager string `yaml:"alertmanager"`
	Webhook      string `yaml:"webhook"`
}

// MaxPricePerHour bounds a price per instance-hour in any currency.
const MaxPricePerHour = 1e6

// Validate checks the config; it changes nothing. Errors name the field.
func (c *Config) Validate() error {
	if c.Version != Version {
		return fmt.Errorf("version %d: this gpuscout reads format version %d", c.Version, Version)
	}
	n := &c.Node
	if n.Provider == "" || n.InstanceType == "" {
		return errors.New("node.provider and node.instance_type are required")
	}
	if n.Instances < 1 || n.Instances > 10000 {
		return fmt.Errorf("node.instances %d: want 1 to 10000", n.Instances)
	}
	if !(n.GPUCount >= 0) || n.GPUCount > 64 {
		return fmt.Errorf("node.gpu_count %v: want 0 to 64", n.GPUCount)
	}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"node.price_per_hour", n.PricePerHour}, {"node.on_demand_price_per_hour", n.OnDemandPricePerHour}} {
		if p.v != nil && (!(*p.v >= 0) || *p.v > MaxPricePerHour) {
			return fmt.Errorf("%s %v: want 0 to %g", p.name, *p.v, float64(MaxPricePerHour))
		}
	}
	if (n.PricePerHour != nil || n.OnDemandPricePerHour != nil) && !isCurrency(n.Currency) {
		return fmt.Errorf("node.currency %q: want a three-letter ISO 4217 code such as USD", n.Currency)
	}
	for i, a := range c.Alerts {
		if a.Name == "" || a.Expr == "" {
			return fmt.Errorf("alerts[%d]: name and expr are required", i)
		}
		if a.Action != ActionNotify && a.Action != ActionStop {
			return fmt.Errorf("alerts[%d] (%s).action %q: want %s or %s", i, a.Name, a.Action, ActionNotify, ActionStop)
		}
		if d, err := time.ParseDuration(a.For); err != nil || d < 0 {
			return fmt.Errorf("alerts[%d] (%s).for %q: want a duration such as 5m", i, a.Name, a.For)
		}
	}
	return nil
}

func isCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	return strings.ToUpper(s) == s && strings.IndexFunc(s, func(r rune) bool { return r < 'A' || r > 'Z' }) < 0
}

// Write validates the config and writes it as YAML with a header comment.
func Write(w io.Writer, c *Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	b, err := yaml.Marshal(c)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "# gpuscout agent config, format version %d (README: advise, --export agent)\n%s", c.Version, b)
	return err
}

// Read decodes one YAML document into a Config, rejecting unknown fields,
// and validates it.
func Read(r io.Reader) (*Config, error) {
	b, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("agent config: %v", err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("agent config: %v", err)
	}
	return &c, nil
}

// Price returns v as a price field, or nil where it is unknown.
func Price(v float64, known bool) *float64 {
	if !known || math.IsNaN(v) {
		return nil
	}
	return &v
}
