package catalog

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"

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
	// AsOf is the price's date where the record gives one (a refreshed
	// feed); the embedded ones are dated by their source entry.
	AsOf  string `yaml:"as_of"`
	Notes string `yaml:"notes"`
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

// LicensesFile is the licence surcharges' file in a user catalog set (the
// embedded ones are in data/licenses.yaml).
const LicensesFile = "licenses.csv"

// LicenseColumns is the header of LicensesFile.
var LicenseColumns = []string{"provider", "instance_type", "region", "license", "per_hour", "currency", "bring_your_own", "source", "as_of", "notes"}

// WriteLicensesCSV writes licence surcharges in the LicensesFile format.
func WriteLicensesCSV(w io.Writer, ls []LicenseSurcharge) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(LicenseColumns); err != nil {
		return err
	}
	for _, l := range ls {
		if err := cw.Write([]string{l.Provider, l.InstanceType, l.Region, l.License, l.PerHour.String(), string(l.Currency), l.BringYourOwn, l.Source, l.AsOf, l.Notes}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadLicensesCSV parses the LicensesFile format; an empty input is an
// empty list. Every row needs a provider, type, region, licence, source
// and a positive price.
func ReadLicensesCSV(r io.Reader) ([]LicenseSurcharge, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("licenses: %w", err)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	if strings.Join(recs[0], ",") != strings.Join(LicenseColumns, ",") {
		return nil, fmt.Errorf("licenses: header %q, want %q", strings.Join(recs[0], ","), strings.Join(LicenseColumns, ","))
	}
	var out []LicenseSurcharge
	for i, rec := range recs[1:] {
		l := LicenseSurcharge{Provider: rec[0], InstanceType: rec[1], Region: rec[2], License: rec[3], Currency: money.Currency(rec[5]),
			BringYourOwn: rec[6], Source: rec[7], AsOf: rec[8], Notes: rec[9]}
		if l.Provider == "" || l.InstanceType == "" || l.Region == "" || l.License == "" || l.Source == "" || l.Currency == "" {
			return nil, fmt.Errorf("licenses line %d: want provider, instance_type, region, license, currency and source", i+2)
		}
		p, err := decimal.NewFromString(rec[4])
		if err != nil || !p.IsPositive() {
			return nil, fmt.Errorf("licenses line %d: per_hour %q is not a positive number", i+2, rec[4])
		}
		l.PerHour = p
		out = append(out, l)
	}
	return out, nil
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

// PaidAhead reports whether a commitment of the model pays each month's
// recurring fee at the start of that month rather than at its end. A
// subscription (Alibaba and Tencent 包年包月) always does: it is prepaid, each
// month bought before it is used. Other models do where the provider's
// scheme bills in advance (RecurringInAdvance: AWS RI fees). p may be nil (a
// price file's commitment of a provider with no schemes listed).
//
// This is the one rule for when a commitment's fees fall due: the cost
// engine's schedules, break-even and implied rate, and OfferKey, read it.
func (p *Provider) PaidAhead(model string) bool {
	if model == ModelSubscription {
		return true
	}
	if p == nil {
		return false
	}
	s := p.SchemeFor(model)
	return s != nil && s.RecurringInAdvance
}

// OfferKey names one commitment offer of a provider (model, term, payment,
// class) so that two names of the same product meet: a one-month term paid
// ahead (PaidAhead) is paid whole at its start whether it is called monthly
// or all-upfront (Tencent's data says monthly, Alibaba's all-upfront), so
// both key as all-upfront.
func (p *Provider) OfferKey(model, term, payment, class string) string {
	if TermMonths(term) == 1 && payment == PayMonthly && p.PaidAhead(model) {
		payment = PayAll
	}
	return model + "/" + term + "/" + payment + "/" + class
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
