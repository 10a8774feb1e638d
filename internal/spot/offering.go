package spot

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// OfferingPrices is what a simulation takes from a catalog offering: its
// on-demand price and its region's spot quote (catalog.SpotQuoteFor: the
// region's cheapest zone), per node-hour in one currency, where each comes
// from, and the interruption band its spot estimate uses
// (catalog.SpotBandChoice). `gpuscout spot --offering`, its multi-zone
// pricing and the dashboard's spot page all price an offering here, so one
// offering is simulated at the same prices everywhere.
type OfferingPrices struct {
	Offering *catalog.Offering
	// OnDemand and Spot per node-hour (floats: the simulator's), 0 where
	// the catalog has no sourced price.
	OnDemand, Spot float64
	// ODSource and SpotSource cite each known price: the offering, the
	// source and its date ("" where unknown).
	ODSource, SpotSource string
	Quote                catalog.SpotQuote // the spot price's zone and source
	Band                 catalog.BandChoice
}

// PriceOffering prices o in cur for the simulator.
func PriceOffering(c *catalog.Catalog, fx *money.FX, cur money.Currency, o *catalog.Offering) (OfferingPrices, error) {
	p := OfferingPrices{Offering: o, Band: c.SpotBandChoice(o, "")}
	if o.OnDemand.Known {
		v, err := fx.Convert(o.OnDemand.Value, o.OnDemand.Currency, cur)
		if err != nil {
			return p, err
		}
		p.OnDemand = v.InexactFloat64()
		p.ODSource = fmt.Sprintf("on-demand %s (%s, %s)", o.Key(), o.OnDemand.Source, o.OnDemand.AsOf)
	}
	p.Quote = c.SpotQuoteFor(o)
	if q := p.Quote; q.Price.Known {
		v, err := fx.Convert(q.Price.Value, q.Price.Currency, cur)
		if err != nil {
			return p, err
		}
		p.Spot = v.InexactFloat64()
		p.SpotSource = fmt.Sprintf("spot %s (the region's cheapest zone; %s, %s)", q.Offering.Key(), q.Price.Source, q.Price.AsOf)
	}
	return p, nil
}

// BandModel is the availability model of a monthly interruption band
// (BandHazard's rate; down hours of capacity shortage after each
// interruption), with the words that say how its rate was derived. origin
// says where the band comes from ("--band 5-10%", the Spot Advisor).
func BandModel(label, origin string, down float64) (Hazard, string, error) {
	lambda, p, how, err := BandHazard(label)
	if err != nil {
		return Hazard{}, "", err
	}
	note := fmt.Sprintf("band %s a month (%s): p = %.3g at the %s → λ = −ln(1−p)/730 = %.3g per hour per instance (MTBF %.0f h)", label, origin, p, how, lambda, 1/lambda)
	return Hazard{PerHour: lambda, Down: down, Origin: origin}, note, nil
}
