package pricefile

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// The ranges a price file's numbers must lie in. A value outside its range is
// a typo (a misplaced decimal point, a monthly figure in an hourly field, a
// number in the wrong unit) or an attempt to break the arithmetic downstream
// (1e309, NaN), never a real price; the file is rejected with the field, the
// value and the range. They are generous: the dearest GPU instance in the
// catalog costs about 100 USD an hour (AWS p5 class, 8 GPUs).
const (
	// MaxHourlyUSD bounds every hourly price (price, spot_price,
	// hourly_steps.price, a commitment's hourly) per instance: more than 0
	// (a commitment's recurring amounts may be 0: none) and at most this many
	// US dollars, or its equivalent in the stated currency at the rate
	// gpuscout uses for it (the built-in rate or the file's fx:). Currencies
	// worth more than a dollar keep the 10000 figure itself (EUR: 10000 EUR).
	MaxHourlyUSD = 10000
	// HoursPerLongestMonth is the hours in a 31-day month: a commitment's
	// monthly amount is at most MaxHourlyUSD times this, and its upfront
	// amount at most that times the term's months.
	HoursPerLongestMonth = 31 * 24
	// MaxDecimalPlaces bounds the digits after the decimal point of any
	// amount or rate (AWS's price list, the most precise source, uses 10).
	MaxDecimalPlaces = 10
	// MinTermMonths and MaxTermMonths bound a commitment's term (the longest
	// any provider sells is 5 years: Alibaba Cloud and Tencent Cloud
	// subscriptions, Azure reservations).
	MinTermMonths, MaxTermMonths = 1, 60
	// MaxGPUCount, MaxGPUMemoryGiB, MaxVCPUs and MaxMemoryGiB bound the specs of an
	// offering the file adds; each must be more than 0 (fractions of a GPU are
	// vGPU slices). The largest instances sold have 16 GPUs, 192 GB per GPU,
	// 896 vCPUs and 32 TiB of memory.
	MaxGPUCount     = 64
	MaxGPUMemoryGiB = 1024
	MaxVCPUs        = 4096
	MaxMemoryGiB    = 65536
	// MaxFromHours bounds an hourly step's from_hours (about 114 years).
	MaxFromHours = 1e6
)

// FX rates in a file are USD per one unit of the currency, from MinFXRate to
// MaxFXRate: the weakest traded currencies are worth about 0.00001 USD (IRR,
// LBP), the strongest about 3.3 USD (KWD).
var (
	MinFXRate = decimal.RequireFromString("0.000001")
	MaxFXRate = decimal.NewFromInt(100)
)

// Discounts are fractions from 0 up to, not including, 1 (0%..100%).

// bounds computes the currency-dependent limits once per currency.
type bounds struct {
	fx     *money.FX
	hourly map[money.Currency]hourlyBound
}

// hourlyBound is the highest hourly price in a currency: MaxHourlyUSD
// converted at fx's rate, never below MaxHourlyUSD itself; rate is the rate
// used ("1 USD = 7.1843 CNY"), "" where none was.
type hourlyBound struct {
	max  decimal.Decimal
	rate string
}

func newBounds(fx *money.FX) *bounds {
	return &bounds{fx: fx, hourly: map[money.Currency]hourlyBound{}}
}

func (b *bounds) hourlyLimit(c money.Currency) (decimal.Decimal, string) {
	if h, ok := b.hourly[c]; ok {
		return h.max, h.rate
	}
	h := hourlyBound{max: decimal.NewFromInt(MaxHourlyUSD)}
	if rate, err := b.fx.Convert(decimal.NewFromInt(1), money.USD, c); err == nil && rate.GreaterThan(decimal.NewFromInt(1)) {
		h = hourlyBound{max: h.max.Mul(rate).Floor(), rate: fmt.Sprintf("1 USD = %s %s", rate.Round(6), c)}
	}
	b.hourly[c] = h
	return h.max, h.rate
}

// checkBounds checks the amounts of entries and commitments whose currency
// the file states, at the built-in rates and the file's own fx:. Those in a
// provider's own currency are checked by Apply, which knows it.
func (f *File) checkBounds() error {
	fx := defaultFX.Clone()
	for _, r := range f.FX {
		_ = fx.SetUSDValue(r.Currency, r.USD, f.Path) // USD other than 1: reported by Apply
	}
	b := newBounds(fx)
	for i := range f.Entries {
		if e := &f.Entries[i]; e.Currency != "" {
			if err := checkEntryAmounts(f.Path, b, e, e.Currency); err != nil {
				return err
			}
		}
	}
	for i := range f.Commitments {
		if c := &f.Commitments[i]; c.Currency != "" {
			if err := checkCommitmentAmounts(f.Path, b, c, c.Currency); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkEntryAmounts checks an entry's hourly prices in currency cur:
// more than 0, at most b.hourlyLimit, at most MaxDecimalPlaces decimals.
func checkEntryAmounts(path string, b *bounds, e *Entry, cur money.Currency) error {
	max, rate := b.hourlyLimit(cur)
	allowed := fmt.Sprintf("more than 0 and at most %s %s an hour per instance", max, cur)
	if rate != "" {
		allowed += fmt.Sprintf(" (%d USD at the rate %s)", MaxHourlyUSD, rate)
	}
	check := func(field string, line int, d decimal.Decimal) error {
		if line == 0 {
			line = e.Line
		}
		if !d.IsPositive() || d.GreaterThan(max) {
			hint := ""
			if d.IsZero() {
				hint = " (omit a price nobody knows)"
			}
			return &Error{Path: path, Line: line, Field: field, Msg: fmt.Sprintf("value %s is outside the allowed range: %s%s", show(d), allowed, hint)}
		}
		return checkPlaces(path, line, field, d)
	}
	if e.Price.Valid && len(e.Steps) == 0 {
		if err := check("price", e.lines.price, e.Price.Decimal); err != nil {
			return err
		}
	}
	if e.SpotPrice.Valid {
		if err := check("spot_price", e.lines.spot, e.SpotPrice.Decimal); err != nil {
			return err
		}
	}
	for i, st := range e.Steps {
		line := 0
		if i < len(e.lines.steps) {
			line = e.lines.steps[i]
		}
		if err := check("hourly_steps.price", line, st.Amount); err != nil {
			return err
		}
	}
	return nil
}

// checkCommitmentAmounts checks a commitment's amounts in currency cur: from
// 0 to b.hourlyLimit an hour, HoursPerLongestMonth times that a month, and
// that times the term's months upfront.
func checkCommitmentAmounts(path string, b *bounds, c *CommitmentEntry, cur money.Currency) error {
	hourly, rate := b.hourlyLimit(cur)
	if rate != "" {
		rate = " (at the rate " + rate + ")"
	}
	monthly := hourly.Mul(decimal.NewFromInt(HoursPerLongestMonth))
	months := catalog.TermMonths(c.Term)
	for _, a := range []struct {
		field string
		line  int
		v     decimal.Decimal
		max   decimal.Decimal
		per   string
	}{
		{"upfront", c.lines.upfront, c.Upfront, monthly.Mul(decimal.NewFromInt(int64(months))), fmt.Sprintf("for a %d-month term", months)},
		{"hourly", c.lines.hourly, c.Hourly, hourly, "an hour"},
		{"monthly", c.lines.monthly, c.Monthly, monthly, "a month"},
	} {
		line := a.line
		if line == 0 {
			line = c.Line
		}
		if a.v.IsNegative() || a.v.GreaterThan(a.max) {
			return &Error{Path: path, Line: line, Field: a.field, Msg: fmt.Sprintf("value %s is outside the allowed range: from 0 to %s %s %s%s", show(a.v), a.max, cur, a.per, rate)}
		}
		if err := checkPlaces(path, line, a.field, a.v); err != nil {
			return err
		}
	}
	return nil
}

// checkPlaces rejects more than MaxDecimalPlaces digits after the decimal point.
func checkPlaces(path string, line int, field string, d decimal.Decimal) error {
	if d.Exponent() < -MaxDecimalPlaces && !d.Round(MaxDecimalPlaces).Equal(d) {
		return &Error{Path: path, Line: line, Field: field, Msg: fmt.Sprintf("value %s has more than %d decimal places", show(d), MaxDecimalPlaces)}
	}
	return nil
}

// show writes a decimal as written in a file where it is short, and as
// mantissa and exponent (1e309) where writing it out would be long.
func show(d decimal.Decimal) string {
	s := d.String()
	if len(s) <= 24 {
		return s
	}
	return fmt.Sprintf("%se%d", d.Coefficient(), d.Exponent())
}

// MaxFileSize is the largest price file gpuscout reads: 4 MiB. A price file
// is written by hand or exported from a console: one that restates every
// offering of the catalog (about 750) with all its fields is about 200 KB,
// and 4 MiB holds some 26,000 entries. Reading and applying a file of this
// size takes under a second (0.8 s and 200 MB allocated in all on a shared
// 2-core machine: BenchmarkParseLarge); a larger file is refused before it
// is parsed, not read for seconds into hundreds of megabytes.
const MaxFileSize = 4 << 20
