package catalog

import (
	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// LicenseSurcharge is the extra hourly price of running an OS licence the
// provider sells (Windows) on an instance type in a region.
type LicenseSurcharge struct {
	Provider     string          `yaml:"provider"`
	InstanceType string          `yaml:"instance_type"`
	Region       string          `yaml:"region"`
	License      string          `yaml:"license"`
	PerHour      decimal.Decimal `yaml:"per_hour"`
	Currency     money.Currency  `yaml:"currency"`
	Source       string          `yaml:"source"`
	Notes        string          `yaml:"notes"`
	// BringYourOwn names the provider's programme that waives the surcharge
	// for users who bring their own licence (Azure Hybrid Benefit); "" if none.
	BringYourOwn string `yaml:"bring_your_own"`
}

// LicenseFor returns the surcharge of a licence on an offering, or nil if none is sourced.
func (c *Catalog) LicenseFor(o *Offering, license string) *LicenseSurcharge {
	for i := range c.Licenses {
		l := &c.Licenses[i]
		if l.Provider == o.Provider && l.InstanceType == o.InstanceType && l.Region == o.Region && l.License == license {
			return l
		}
	}
	return nil
}

// Scheme is a way a provider sells commitments: a model with its terms,
// payment options and (AWS) offering classes. Whether a price is known for
// an offering is a separate matter (Catalog.Commitments).
type Scheme struct {
	Model    string   `yaml:"model"`
	Name     string   `yaml:"name"` // the provider's own name (包年包月, Reserved Instances)
	Terms    []string `yaml:"terms"`
	Payments []string `yaml:"payments"`
	Classes  []string `yaml:"classes"`
	// RecurringInAdvance: the monthly fee is charged at the start of each
	// month (AWS RI fees appear on the first day of the month); otherwise after it.
	RecurringInAdvance bool   `yaml:"recurring_in_advance"`
	Notes              string `yaml:"notes"`
}

// SchemeFor returns the provider's scheme of a model, or nil.
func (p *Provider) SchemeFor(model string) *Scheme {
	for i := range p.Schemes {
		if p.Schemes[i].Model == model {
			return &p.Schemes[i]
		}
	}
	return nil
}
