package dashboard

import (
	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// pricedOffering is the catalog offering a report ran on, with its
// on-demand price in USD per hour (invalid: unknown).
type pricedOffering struct {
	Ref    string
	Row    catalog.Row
	Source string // the price's source id
	AsOf   string // YYYY-MM-DD
}

// matchOffering finds the offering a report names (provider/instance-type
// with or without /region, as bench writes matched_offering) through the
// catalog's query, so that the price is the one `gpuscout offers` shows;
// without a region, the instance type's cheapest region. nil when the
// catalog has no such offering.
func (d *dash) matchOffering(ref string) *pricedOffering {
	key := d.Now().UTC().Format("2006-01-02") + " " + ref
	d.offMu.Lock()
	p, ok := d.offers[key]
	d.offMu.Unlock()
	if ok {
		return p
	}
	p = d.findPriced(ref)
	d.offMu.Lock()
	if d.offers == nil || len(d.offers) >= maxCached {
		d.offers = map[string]*pricedOffering{}
	}
	d.offers[key] = p
	d.offMu.Unlock()
	return p
}

func (d *dash) findPriced(ref string) *pricedOffering {
	r, err := catalog.ParseOfferingRef(ref)
	if err != nil {
		return nil
	}
	prov, regions, err := d.Catalog.Resolve(r)
	if err != nil {
		return nil
	}
	q := catalog.Query{Providers: []string{prov}, InstanceTypes: []string{r.InstanceType}, Currency: money.USD, Sort: catalog.SortPrice}
	if r.Region != "" {
		q.Regions = regions
	}
	rows, err := d.Catalog.Query(q)
	if err != nil || len(rows) == 0 {
		return nil
	}
	row := rows[0]
	return &pricedOffering{Ref: ref, Row: row, Source: row.Offering.OnDemand.Source, AsOf: row.Offering.OnDemand.AsOf}
}

// perGPUHour is the offering's on-demand price per GPU-hour.
func (p *pricedOffering) perGPUHour() decimal.NullDecimal {
	if p == nil || !p.Row.Price.Valid || p.Row.Offering.GPUCount <= 0 {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: p.Row.Price.Decimal.Div(decimal.NewFromFloat(p.Row.Offering.GPUCount)), Valid: true}
}
