package pricefile

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// defaultFX is only read: the currencies gpuscout converts without a rate from the file.
var defaultFX = money.DefaultFX()

// checkCurrencies rejects a currency gpuscout cannot convert: one that is
// neither built in nor given a rate under the file's fx: (in any order in the
// file). It runs before entries inherit the file's currency, so that each
// message names the line where the currency was written.
func (f *File) checkCurrencies() error {
	rated := map[money.Currency]bool{}
	for _, r := range f.FX {
		rated[r.Currency] = true
	}
	check := func(c money.Currency, line int) error {
		if c == "" || defaultFX.Known(c) || rated[c] {
			return nil
		}
		return &Error{Path: f.Path, Line: line, Field: "currency", Msg: fmt.Sprintf(
			"value %q is not a currency gpuscout can convert; allowed: %s, or one given a rate under fx: (for example fx: {%s: 0.5} for 0.5 USD per %s)",
			string(c), strings.Join(defaultFX.Currencies(), ", "), c, c)}
	}
	if err := check(f.Currency, f.currencyLine); err != nil {
		return err
	}
	for i := range f.Entries {
		if err := check(f.Entries[i].Currency, f.Entries[i].lines.currency); err != nil {
			return err
		}
	}
	for i := range f.Commitments {
		if err := check(f.Commitments[i].Currency, f.Commitments[i].lines.currency); err != nil {
			return err
		}
	}
	return nil
}

// checkPayment checks the amounts against the payment scheme: no-upfront and
// monthly have no upfront amount and a recurring one (hourly or monthly);
// all-upfront has an upfront amount and no recurring one; partial-upfront has both.
func (c *CommitmentEntry) checkPayment(path string, line int) error {
	at := func(l int) int {
		if l == 0 {
			return line
		}
		return l
	}
	recurring := !c.Hourly.IsZero() || !c.Monthly.IsZero()
	switch c.Payment {
	case catalog.PayNone, catalog.PayMonthly:
		if !c.Upfront.IsZero() {
			return &Error{Path: path, Line: at(c.lines.upfront), Field: "upfront", Msg: fmt.Sprintf(
				"value %s with payment %s; want no upfront amount (use partial-upfront or all-upfront for one)", c.Upfront, c.Payment)}
		}
		if !recurring {
			return &Error{Path: path, Line: line, Field: "hourly", Msg: "missing; payment " + c.Payment + " needs hourly or monthly"}
		}
	case catalog.PayAll:
		if c.Upfront.IsZero() {
			return &Error{Path: path, Line: at(c.lines.upfront), Field: "upfront", Msg: "missing; payment all-upfront needs upfront"}
		}
		if !c.Hourly.IsZero() {
			return &Error{Path: path, Line: at(c.lines.hourly), Field: "hourly", Msg: fmt.Sprintf(
				"value %s with payment all-upfront; want no recurring amount (use partial-upfront for upfront plus hourly or monthly)", c.Hourly)}
		}
		if !c.Monthly.IsZero() {
			return &Error{Path: path, Line: at(c.lines.monthly), Field: "monthly", Msg: fmt.Sprintf(
				"value %s with payment all-upfront; want no recurring amount (use partial-upfront for upfront plus hourly or monthly)", c.Monthly)}
		}
	case catalog.PayPartial:
		const need = "missing; payment partial-upfront needs upfront and hourly or monthly"
		if c.Upfront.IsZero() {
			return &Error{Path: path, Line: at(c.lines.upfront), Field: "upfront", Msg: need}
		}
		if !recurring {
			return &Error{Path: path, Line: line, Field: "hourly", Msg: need}
		}
	}
	return nil
}

// SpotTolerance is how far a spot price may lie above the on-demand price
// (a fraction of it) before the file is rejected: the rounding of a source's
// figures (SkyPilot's AWS rows list spot at the cap as 27.433 against an
// on-demand 27.43298).
//
// A spot price above the on-demand price is an error, not a warning: no
// provider gpuscout knows charges more for spot than for on-demand. AWS and
// Azure cap what a spot instance is charged at the on-demand price unless the
// user sets a higher maximum (AWS's default maximum price is the on-demand
// price; Azure's max price -1 means "up to the pay-as-you-go price"), and
// GCP, Alibaba Cloud and Tencent Cloud sell spot or preemptible capacity at a
// discount off pay-as-you-go. Such a line is a swapped or stale price.
var SpotTolerance = decimal.RequireFromString("0.001")

const spotRule = "spot prices do not exceed on-demand prices (AWS and Azure cap them at on-demand, the other clouds sell spot at a discount); check for swapped or stale prices"

// spotAbove reports whether spot exceeds onDemand by more than SpotTolerance,
// converting currencies with fx; false when either is unknown or they cannot be converted.
func spotAbove(fx *money.FX, spot, onDemand catalog.Price) bool {
	if !spot.Known || !onDemand.Known {
		return false
	}
	v, err := fx.Convert(spot.Value, spot.Currency, onDemand.Currency)
	if err != nil {
		return false
	}
	return v.GreaterThan(onDemand.Value.Mul(decimal.NewFromInt(1).Add(SpotTolerance)))
}

// checkEntrySpot rejects an entry whose spot_price is above its own price.
func checkEntrySpot(path string, fx *money.FX, e *Entry, cur money.Currency) error {
	if !e.Price.Valid || !e.SpotPrice.Valid {
		return nil
	}
	spot := catalog.Price{Known: true, Amount: money.New(e.SpotPrice.Decimal, cur)}
	if !spotAbove(fx, spot, catalog.Price{Known: true, Amount: money.New(e.Price.Decimal, cur)}) {
		return nil
	}
	return &Error{Path: path, Line: e.lines.spot, Field: "spot_price", Msg: fmt.Sprintf(
		"value %s %s is above the on-demand price %s %s of the same entry; %s", e.SpotPrice.Decimal, cur, e.Price.Decimal, cur, spotRule)}
}

// checkOfferingSpot rejects an entry that gives one of the two prices of a
// catalog offering so that its spot price lies above its on-demand price.
func checkOfferingSpot(path string, fx *money.FX, e *Entry, o *catalog.Offering) error {
	if e.Price.Valid == e.SpotPrice.Valid || !spotAbove(fx, o.Spot, o.OnDemand) {
		return nil // both from the entry: checked by checkEntrySpot
	}
	if e.SpotPrice.Valid {
		return &Error{Path: path, Line: e.lines.spot, Field: "spot_price", Msg: fmt.Sprintf(
			"value %s %s is above the on-demand price %s %s of %s (%s); %s",
			o.Spot.Value, o.Spot.Currency, o.OnDemand.Value, o.OnDemand.Currency, o.Key(), o.OnDemand.Source, spotRule)}
	}
	return &Error{Path: path, Line: e.lines.price, Field: "price", Msg: fmt.Sprintf(
		"value %s %s is below the spot price %s %s of %s (%s); %s",
		o.OnDemand.Value, o.OnDemand.Currency, o.Spot.Value, o.Spot.Currency, o.Key(), o.Spot.Source, spotRule)}
}
