// Package gcpprices reads the GCP GPU price excerpt derived from Cyclenerd's
// google-cloud-pricing-cost-calculator pricing.yml (itself generated from the
// Cloud Billing Catalog): per machine type, its GPU count and per-region
// hourly on-demand and spot prices plus monthly 1y/3y committed-use prices.
package gcpprices

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Machine is one machine type with its accelerator and prices per region.
type Machine struct {
	Type     string
	GPUName  string  // the file's accelerator key, e.g. "a100", "h100-80gb"
	GPUCount float64 // from that key's value
	VCPUs    float64
	RAMGiB   float64
	LocalSSD float64 // GB
	Regions  []RegionPrice
}

// RegionPrice holds one region's prices (USD). Missing values are Known=false.
type RegionPrice struct {
	Region  string
	Hour    decimal.NullDecimal
	Spot    decimal.NullDecimal
	Month1y decimal.NullDecimal
	Month3y decimal.NullDecimal
}

// Excerpt is the parsed file.
type Excerpt struct {
	Generated string
	Machines  []Machine
}

// non-accelerator keys of an instance entry.
var plainKeys = map[string]bool{"cpu": true, "ram": true, "local-ssd": true, "cost": true}

// Parse reads the JSON excerpt.
func Parse(r io.Reader) (*Excerpt, error) {
	var raw struct {
		About struct {
			Generated string `json:"generated"`
		} `json:"about"`
		Instance map[string]map[string]json.RawMessage `json:"instance"`
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("gcpprices: %w", err)
	}
	ex := &Excerpt{Generated: raw.About.Generated}
	types := make([]string, 0, len(raw.Instance))
	for t := range raw.Instance {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		fields := raw.Instance[t]
		m := Machine{Type: t}
		for k, v := range fields {
			if plainKeys[k] {
				continue
			}
			if m.GPUName != "" {
				return nil, fmt.Errorf("gcpprices: %s: two accelerator keys %q and %q", t, m.GPUName, k)
			}
			m.GPUName = k
			if err := json.Unmarshal(v, &m.GPUCount); err != nil {
				return nil, fmt.Errorf("gcpprices: %s: accelerator count %s: %w", t, v, err)
			}
		}
		for k, dst := range map[string]*float64{"cpu": &m.VCPUs, "ram": &m.RAMGiB, "local-ssd": &m.LocalSSD} {
			if v, ok := fields[k]; ok {
				if err := json.Unmarshal(v, dst); err != nil {
					return nil, fmt.Errorf("gcpprices: %s: %s: %w", t, k, err)
				}
			}
		}
		var cost map[string]map[string]json.Number
		if err := json.Unmarshal(fields["cost"], &cost); err != nil {
			return nil, fmt.Errorf("gcpprices: %s: cost: %w", t, err)
		}
		regions := make([]string, 0, len(cost))
		for r := range cost {
			regions = append(regions, r)
		}
		sort.Strings(regions)
		for _, r := range regions {
			c := cost[r]
			rp := RegionPrice{Region: r}
			for k, dst := range map[string]*decimal.NullDecimal{"hour": &rp.Hour, "hour_spot": &rp.Spot, "month_1y": &rp.Month1y, "month_3y": &rp.Month3y} {
				n, ok := c[k]
				if !ok {
					continue
				}
				d, err := money.ParseDecimal(strings.TrimSpace(n.String()))
				if err != nil || d.IsNegative() {
					return nil, fmt.Errorf("gcpprices: %s/%s: %s %q is not a non-negative number", t, r, k, n)
				}
				*dst = decimal.NullDecimal{Decimal: d, Valid: true}
			}
			m.Regions = append(m.Regions, rp)
		}
		ex.Machines = append(ex.Machines, m)
	}
	return ex, nil
}
