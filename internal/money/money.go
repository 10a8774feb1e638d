// Package money holds currencies and the dated exchange-rate table used to show
// prices in one currency. Amounts are shopspring decimals; nothing here uses floats.
package money

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

// Currency is an ISO 4217 code such as "USD" or "CNY".
type Currency string

// Currencies gpuscout can convert between. A price in another currency can be
// stored, but not converted until the user gives a rate with --fx.
const (
	USD Currency = "USD"
	CNY Currency = "CNY"
	EUR Currency = "EUR"
)

// ParseCurrency checks that s is a three-letter ISO 4217 code and returns it upper-cased.
// Any well-formed code is accepted; whether it can be converted is the FX table's business.
func ParseCurrency(s string) (Currency, error) {
	c := strings.ToUpper(strings.TrimSpace(s))
	// Chinese users often write 人民币/元 or RMB for CNY.
	switch c {
	case "RMB", "人民币", "元", "¥", "￥":
		return CNY, nil
	case "$", "US$":
		return USD, nil
	}
	if len(c) != 3 {
		return "", fmt.Errorf("currency %q is not a three-letter ISO 4217 code (for example USD, CNY, EUR)", s)
	}
	for _, r := range c {
		if r < 'A' || r > 'Z' {
			return "", fmt.Errorf("currency %q is not a three-letter ISO 4217 code (for example USD, CNY, EUR)", s)
		}
	}
	return Currency(c), nil
}

// FX is a table of exchange rates, each expressed as units of the currency per
// one US dollar, with the source and date of the defaults and a record of which
// rates the user overrode.
type FX struct {
	perUSD     map[Currency]decimal.Decimal
	source     map[Currency]string
	overridden map[Currency]bool
}

// DefaultAsOf is the date of the built-in rates (YYYY-MM-DD).
const DefaultAsOf = "2024-12-11"

// DefaultSource names the reference fixing behind the built-in rates.
const DefaultSource = "PBOC central parity 2024-12-11 (USD-CNY 7.1843, EUR-CNY 7.6004; MNI Market News)"

// DefaultFX returns the built-in rates. They are one dated fixing, not live:
// users who need today's rate pass --fx or set fx in their price file.
func DefaultFX() *FX {
	usdcny := decimal.RequireFromString("7.1843")
	eurcny := decimal.RequireFromString("7.6004")
	f := &FX{
		perUSD: map[Currency]decimal.Decimal{
			USD: decimal.NewFromInt(1),
			CNY: usdcny,
			// EUR per USD from the same day's two fixings.
			EUR: usdcny.Div(eurcny),
		},
		source:     map[Currency]string{},
		overridden: map[Currency]bool{},
	}
	for c := range f.perUSD {
		f.source[c] = DefaultSource
	}
	f.source[USD] = "base currency"
	return f
}

// Clone returns an independent copy, so a command can override rates without
// touching the defaults another caller holds.
func (f *FX) Clone() *FX {
	g := &FX{perUSD: map[Currency]decimal.Decimal{}, source: map[Currency]string{}, overridden: map[Currency]bool{}}
	for k, v := range f.perUSD {
		g.perUSD[k] = v
	}
	for k, v := range f.source {
		g.source[k] = v
	}
	for k, v := range f.overridden {
		g.overridden[k] = v
	}
	return g
}

// SetUSDValue sets the rate of c as the value of one unit of c in US dollars
// (the --fx CNY=0.138 form).
func (f *FX) SetUSDValue(c Currency, usdPerUnit decimal.Decimal, source string) error {
	if !usdPerUnit.IsPositive() {
		return fmt.Errorf("exchange rate for %s must be a positive number of USD per %s, got %s", c, c, usdPerUnit)
	}
	if err := CheckRate(c, usdPerUnit); err != nil {
		return err
	}
	if c == USD {
		if !usdPerUnit.Equal(decimal.NewFromInt(1)) {
			return fmt.Errorf("exchange rate for USD is fixed at 1 (USD is the base currency), got %s", usdPerUnit)
		}
		return nil
	}
	f.perUSD[c] = decimal.NewFromInt(1).Div(usdPerUnit)
	f.source[c] = source
	f.overridden[c] = true
	return nil
}

// ParseOverride parses "CNY=0.138" (one CNY is worth 0.138 USD).
func ParseOverride(s string) (Currency, decimal.Decimal, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", decimal.Decimal{}, fmt.Errorf("--fx %q: want CUR=USD_PER_UNIT, for example CNY=0.138", s)
	}
	c, err := ParseCurrency(k)
	if err != nil {
		return "", decimal.Decimal{}, fmt.Errorf("--fx %q: %v", s, err)
	}
	r, err := ParseDecimal(v)
	if errors.Is(err, ErrOutOfRange) {
		return "", decimal.Decimal{}, fmt.Errorf("--fx %q: rate is out of range: allowed %s to %s USD per %s", s, MinRate, MaxRate, c)
	}
	if err != nil || !r.IsPositive() {
		return "", decimal.Decimal{}, fmt.Errorf("--fx %q: rate %q must be a positive number of USD per one %s", s, v, c)
	}
	if err := CheckRate(c, r); err != nil {
		return "", decimal.Decimal{}, fmt.Errorf("--fx %q: %v", s, err)
	}
	return c, r, nil
}

// Bounds of an exchange rate in USD per unit: the dearest currency today (the
// Kuwaiti dinar) is worth about 3.3 USD, the cheapest about 1/400,000 of one.
// Anything outside [MinRate, MaxRate] is a typo.
var (
	MinRate = decimal.New(1, -8)
	MaxRate = decimal.NewFromInt(100)
)

// CheckRate checks that usdPerUnit (the value of one unit of c in USD) is a
// plausible exchange rate.
func CheckRate(c Currency, usdPerUnit decimal.Decimal) error {
	if usdPerUnit.LessThan(MinRate) || usdPerUnit.GreaterThan(MaxRate) {
		return fmt.Errorf("rate is out of range: allowed %s to %s USD per %s", MinRate, MaxRate, c)
	}
	return nil
}

// MaxDrift is how far (as a factor, either way) a rate the user gives may be
// from the built-in one before it is refused as a likely mistake: currencies
// do not move 3× between fixings, but a rate written the other way round
// (7.18 CNY per USD for 0.139 USD per CNY) is 50× off.
const MaxDrift = 3

// CheckDrift refuses a user's rate for c that is more than MaxDrift times
// away from the built-in one, and says which way round it was probably meant.
func (f *FX) CheckDrift(c Currency, usdPerUnit decimal.Decimal) error {
	def, ok := DefaultFX().perUSD[c]
	if !ok || c == USD {
		return nil
	}
	builtin := decimal.NewFromInt(1).Div(def) // USD per unit
	ratio := usdPerUnit.Div(builtin).InexactFloat64()
	if ratio <= MaxDrift && ratio >= 1.0/MaxDrift {
		return nil
	}
	msg := fmt.Sprintf("%s USD per %s is %.3g× the built-in %s (%s); want USD per one %s", usdPerUnit, c, ratio, builtin.Round(6), DefaultAsOf, c)
	if inv := decimal.NewFromInt(1).Div(usdPerUnit); inv.Div(builtin).InexactFloat64() <= MaxDrift && inv.Div(builtin).InexactFloat64() >= 1.0/MaxDrift {
		msg += fmt.Sprintf(": that looks like %s per USD; write %s=%s", c, c, inv.Round(6))
	}
	return fmt.Errorf("%s", msg)
}

// Known reports whether c can be converted.
func (f *FX) Known(c Currency) bool { _, ok := f.perUSD[c]; return ok }

// Currencies lists the convertible currencies, sorted.
func (f *FX) Currencies() []string {
	var out []string
	for c := range f.perUSD {
		out = append(out, string(c))
	}
	sort.Strings(out)
	return out
}

// Convert converts v from one currency to another.
func (f *FX) Convert(v decimal.Decimal, from, to Currency) (decimal.Decimal, error) {
	if from == to {
		return v, nil
	}
	a, ok := f.perUSD[from]
	if !ok {
		return decimal.Decimal{}, fmt.Errorf("no exchange rate for %s (known: %s); give one with --fx %s=USD_PER_UNIT", from, strings.Join(f.Currencies(), ", "), from)
	}
	b, ok := f.perUSD[to]
	if !ok {
		return decimal.Decimal{}, fmt.Errorf("no exchange rate for %s (known: %s); give one with --fx %s=USD_PER_UNIT", to, strings.Join(f.Currencies(), ", "), to)
	}
	return v.Mul(b).Div(a), nil
}

// Describe says, in one line, which rate converts from into to and where it comes from.
func (f *FX) Describe(from, to Currency) string {
	if from == to {
		return ""
	}
	one := decimal.NewFromInt(1)
	r, err := f.Convert(one, from, to)
	if err != nil {
		return err.Error()
	}
	src := f.source[from]
	if from == USD {
		src = f.source[to]
	}
	return fmt.Sprintf("1 %s = %s %s (%s)", from, r.Round(6).String(), to, src)
}
