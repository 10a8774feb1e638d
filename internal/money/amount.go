package money

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"
)

// Amount is a sum of money in one currency. The zero Amount has no currency
// and is not a valid price: a price nobody could source is "unknown" in the
// catalog, never a zero Amount.
type Amount struct {
	Value    decimal.Decimal
	Currency Currency
}

// New returns v in currency c.
func New(v decimal.Decimal, c Currency) Amount { return Amount{Value: v, Currency: c} }

// Bounds every amount a user can give (flags, usage files, price files) must
// respect, in the amount's own currency. They keep a typo (1e300, an extra
// thousand) from turning into a total that ranks first; the largest real GPU
// bill we price (a 3-year commitment on a large cluster) is far below them.
var (
	// MaxAmount bounds a single amount: a budget, a credit, a voucher, a fee.
	MaxAmount = decimal.New(1, 12) // 1,000,000,000,000
	// MaxHourly bounds an hourly price of one instance.
	MaxHourly = decimal.New(1, 5) // 100,000 per hour
)

// ErrNotSameCurrency is returned when two amounts of different currencies are combined.
var ErrNotSameCurrency = errors.New("amounts in different currencies")

// Add returns a+b; both must be in the same currency.
func (a Amount) Add(b Amount) (Amount, error) {
	if a.Currency != b.Currency {
		return Amount{}, fmt.Errorf("%w: %s + %s", ErrNotSameCurrency, a.Currency, b.Currency)
	}
	return Amount{a.Value.Add(b.Value), a.Currency}, nil
}

// Mul returns a times a plain factor (hours, a count), in a's currency.
func (a Amount) Mul(f decimal.Decimal) Amount { return Amount{a.Value.Mul(f), a.Currency} }

// IsZero reports whether the value is zero.
func (a Amount) IsZero() bool { return a.Value.IsZero() }

// In converts a into currency c with the table f.
func (a Amount) In(c Currency, f *FX) (Amount, error) {
	v, err := f.Convert(a.Value, a.Currency, c)
	if err != nil {
		return Amount{}, err
	}
	return Amount{v, c}, nil
}

// String renders the amount for people: "12,345.68 USD".
func (a Amount) String() string { return Format(a.Value, a.Currency) }

// Format renders v for people with two decimals and thousands separators,
// followed by the currency when one is given: "12,345.68 USD". Tables use it;
// machine formats (JSON, CSV) use Number and Plain instead.
func Format(v decimal.Decimal, c Currency) string {
	s := Grouped(v, 2)
	if c == "" {
		return s
	}
	return s + " " + string(c)
}

// Grouped renders v rounded to places decimals with thousands separators and
// no currency: "12,345.68". Every column of amounts in a table uses the same
// number of places.
func Grouped(v decimal.Decimal, places int32) string {
	s := v.Round(places).StringFixed(places)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// ExactDigits is the most significant digits a machine-format amount is
// written with. Every price a source writes has fewer (AWS publishes 10
// decimals, GCP nanos 9; the catalog's derived hourly prices 15 digits), and
// so do the exact sums and products of such prices and whole hours: JSON
// and CSV carry each of their digits (21.957642, 9.5326, 0.000123,
// 88.4899999025753). A longer expansion is a quotient (1/3 of a price) or
// carries float noise (hours from a simulation), and is rounded to
// ExactDigits significant digits, never fewer, so that a table rounding it
// again for display rounds the true value.
const ExactDigits = 15

// Plain renders v for machines, no separators, no currency: every digit up
// to ExactDigits significant ones ("21.957642", "3688.883856"), else
// rounded to that many ("0.333333333333333"). CSV cells and JSON numbers
// use it; the currency goes in its own column or field. Tables for people
// round for display instead (Format, or the text table's own rounding).
func Plain(v decimal.Decimal) string {
	s := v.String() // no trailing zeros
	if significantDigits(s) <= ExactDigits {
		return s
	}
	whole := v.Abs().Truncate(0).String()
	places := int32(ExactDigits - len(whole))
	if whole == "0" { // 0.000123…: the zeros after the point are not significant
		frac := s[strings.IndexByte(s, '.')+1:]
		places = int32(ExactDigits + len(frac) - len(strings.TrimLeft(frac, "0")))
	}
	return v.Round(max(places, 0)).String()
}

// significantDigits counts the digits of a decimal's text from its first
// non-zero one ("-0.0012" has 2, "120.5" has 4).
func significantDigits(s string) int {
	n, started := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		started = started || c != '0'
		if started {
			n++
		}
	}
	return n
}

// Number renders v as a JSON number (not a string), written like Plain. Every
// command writes money in JSON this way, with a "currency" field beside it.
func Number(v decimal.Decimal) *json.Number {
	n := json.Number(Plain(v))
	return &n
}

// NullNumber is Number for a value that may be missing: nil (JSON null) when
// it is not valid.
func NullNumber(v decimal.NullDecimal) *json.Number {
	if !v.Valid {
		return nil
	}
	return Number(v.Decimal)
}

// ParseAmount reads an amount a user typed: "60000USD", "60000 USD", "5e4 CNY",
// "60,000USD". A bare number takes the currency def; with def "" it has no
// currency, for the caller to complete or refuse. The value
// must be within [0, MaxAmount]; what is wrong is said in terms of the input.
func ParseAmount(s string, def Currency) (Amount, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool {
		return !(unicode.IsDigit(r) || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E' || r == ',' || r == '_')
	})
	// "e"/"E" is part of a number only when digits follow it (5e4); in "5EUR" it starts the currency.
	num, cur := t, ""
	if i >= 0 {
		num, cur = t[:i], strings.TrimSpace(t[i:])
	}
	for len(num) > 0 && (num[len(num)-1] == 'e' || num[len(num)-1] == 'E') {
		cur = num[len(num)-1:] + cur
		num = num[:len(num)-1]
	}
	num = strings.NewReplacer(",", "", "_", "").Replace(num)
	if num == "" {
		return Amount{}, fmt.Errorf("want a number followed by a currency, e.g. 60000USD")
	}
	v, err := ParseDecimal(num)
	if errors.Is(err, ErrOutOfRange) {
		return Amount{}, fmt.Errorf("amount %s is out of range: allowed 0 to %s", num, Grouped(MaxAmount, 0))
	}
	if err != nil {
		return Amount{}, fmt.Errorf("%q is not a number; want e.g. 60000USD", num)
	}
	c := def
	if cur != "" {
		if c, err = ParseCurrency(cur); err != nil {
			if k := strings.ToLower(cur); k == "k" || k == "m" || strings.HasPrefix(k, "k ") || strings.HasPrefix(k, "m ") {
				return Amount{}, fmt.Errorf("write the whole number with its currency, e.g. 60000USD: no k or M suffixes")
			}
			return Amount{}, err
		}
	}
	a := Amount{v, c}
	if err := a.CheckRange("amount", decimal.Zero, MaxAmount); err != nil {
		return Amount{}, err
	}
	return a, nil
}

// CheckRange reports an error naming what when a's value lies outside [lo, hi].
func (a Amount) CheckRange(what string, lo, hi decimal.Decimal) error {
	if a.Value.LessThan(lo) || a.Value.GreaterThan(hi) {
		return fmt.Errorf("%s %g %s is out of range: allowed %s to %s %s", what, a.Value.InexactFloat64(), a.Currency,
			Grouped(lo, 0), Grouped(hi, 0), a.Currency)
	}
	return nil
}

// MaxExponent bounds the decimal exponent of any number a user writes: no
// price, rate or amount needs more than 10^±30, and comparing a number like
// 1e-9999999 with a bound makes big-integer work that takes seconds.
const MaxExponent = 30

// ErrOutOfRange marks a number too large or too small to be any amount or rate.
var ErrOutOfRange = errors.New("out of range")

// ParseDecimal reads a decimal number a user wrote, refusing exponents beyond
// ±MaxExponent (as out of range) before any arithmetic is done with it.
func ParseDecimal(s string) (decimal.Decimal, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(s))
	if err != nil {
		return decimal.Decimal{}, err
	}
	if e := d.Exponent(); e > MaxExponent || e < -MaxExponent-20 || (!d.IsZero() && int(e)+len(d.Coefficient().String()) > MaxExponent+1) {
		return decimal.Decimal{}, fmt.Errorf("%q: %w (beyond 1e±%d)", strings.TrimSpace(s), ErrOutOfRange, MaxExponent)
	}
	return d, nil
}
