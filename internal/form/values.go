package form

// The value types of the inputs: each reads one input from its text, with
// its syntax and bounds, and is the pflag.Value the CLI registers as the
// flag. pflag reports a bad value as
//   invalid argument "8" for "--discount-rate" flag: <what is allowed>
// and Form.Set answers the same words, so the CLI and the API say the same.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/pflag"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// ParseHours reads a duration as hours: 90m, 168h, 7d, 2w, 3mo, 1y. Zero
// ("0", "0m", "0s") is accepted when zeroOK; the value is bounded by max hours.
func ParseHours(s string, zeroOK bool, max float64) (float64, error) {
	h, err := cost.ParseNonNegativeDuration(s)
	if err != nil {
		return 0, err
	}
	if h == 0 && !zeroOK {
		return 0, fmt.Errorf("must be longer than zero, e.g. 7d, 168h, 90m")
	}
	if h > max {
		return 0, fmt.Errorf("%s is too long: at most %s", HumanHours(h), HumanHours(max))
	}
	return h, nil
}

// HumanHours writes hours in the largest whole unit: 10y, 30d, 36h, 90m.
func HumanHours(h float64) string {
	for _, u := range []struct {
		hours float64
		unit  string
	}{{8760, "y"}, {24, "d"}, {1, "h"}, {1.0 / 60, "m"}} {
		if n := h / u.hours; n >= 1 && math.Abs(n-math.Round(n)) < 1e-9 {
			return strconv.FormatFloat(math.Round(n), 'f', -1, 64) + u.unit
		}
	}
	return cost.FormatHours(h)
}

// ParseFraction reads a rate or share written "8%" or as a fraction "0.08",
// within [min, max] (as fractions). A bare number above 1 is refused rather
// than read as 800%.
func ParseFraction(s string, min, max decimal.Decimal) (decimal.Decimal, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	d, err := money.ParseDecimal(strings.TrimSuffix(t, "%"))
	if err != nil {
		return d, fmt.Errorf("want a percentage such as 8%% or a fraction such as 0.08")
	}
	hundred := decimal.NewFromInt(100)
	if pct {
		d = d.Div(hundred)
	} else if d.Abs().GreaterThan(decimal.NewFromInt(1)) {
		return d, fmt.Errorf("a bare number is a fraction (%s would be %s%%); write %s%% or %s", t, d.Mul(hundred), t, d.Div(hundred))
	}
	if d.LessThan(min) || d.GreaterThan(max) {
		return d, fmt.Errorf("want %s%% to %s%%", min.Mul(hundred), max.Mul(hundred))
	}
	return d, nil
}

// ParseInt reads a whole number within [min, max].
func ParseInt(s string, min, max int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("want a whole number from %d to %d", min, max)
	}
	if n < min || n > max {
		return 0, fmt.Errorf("want %d to %d", min, max)
	}
	return n, nil
}

// ParseFloat reads a finite number within [min, max] (min excluded when
// openMin); unit follows max in the message (" hours").
func ParseFloat(s string, min, max float64, openMin bool, unit string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	low := f < min || (openMin && f == min)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || low || f > max {
		lo := fmt.Sprintf("at least %g", min)
		if openMin {
			lo = fmt.Sprintf("above %g", min)
		}
		return 0, fmt.Errorf("want a number %s and at most %g%s", lo, max, unit)
	}
	return f, nil
}

// MaxEgressGB bounds egress a month on one path: an exabyte is far beyond
// any GPU cluster's traffic, so a larger figure is a typo.
const MaxEgressGB = 1e9

// ParseEgress reads PATH=GB, GB a month on one egress path.
func ParseEgress(s string) (string, float64, error) {
	path, gb, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	f, err := strconv.ParseFloat(strings.TrimSpace(gb), 64)
	if !ok || !validPath(path) {
		return "", 0, fmt.Errorf("want PATH=GB with PATH one of %s", strings.Join(catalog.EgressPaths, ", "))
	}
	if err != nil || !(f >= 0 && f <= MaxEgressGB) {
		return "", 0, fmt.Errorf("GB a month %q: want a number from 0 to %g", gb, MaxEgressGB)
	}
	return path, f, nil
}

func validPath(p string) bool {
	for _, x := range catalog.EgressPaths {
		if x == p {
			return true
		}
	}
	return false
}

// ParseCredit reads AMOUNT CUR[@providers][:EXPIRES], e.g. "1000USD@aws:6mo".
func ParseCredit(s string) (cost.Credit, error) {
	c := cost.Credit{Name: "credit"}
	rest := strings.TrimSpace(s)
	if i := strings.LastIndex(rest, ":"); i >= 0 {
		h, err := cost.ParseDuration(rest[i+1:])
		if err != nil {
			return c, fmt.Errorf("expiry: %v", err)
		}
		c.ExpiresMonths = h / catalog.HoursPerMonth
		rest = rest[:i]
	}
	if a, provs, ok := strings.Cut(rest, "@"); ok {
		rest = a
		for _, p := range strings.Split(provs, ",") {
			c.Providers = append(c.Providers, strings.TrimSpace(p))
		}
	}
	a, err := money.ParseAmount(rest, "")
	if err != nil || a.Currency == "" {
		return c, fmt.Errorf("want AMOUNT CUR[@provider,...][:EXPIRES], e.g. 1000USD@aws:6mo")
	}
	if !a.Value.IsPositive() {
		return c, fmt.Errorf("amount %s must be above zero", a.Value)
	}
	c.Amount, c.Currency = a.Value, a.Currency
	return c, nil
}

// ParseBand reads a monthly spot interruption band such as 10-15% or >20%.
func ParseBand(s string) (string, error) {
	if _, _, _, err := spot.BandHazard(s); err != nil {
		return "", err
	}
	return strings.TrimSpace(s), nil
}

// ParseContext reads a token count such as 4096, 32k or 1m (k = 1024,
// m = 1024², as context lengths are given: 32k = 32,768 tokens).
func ParseContext(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1024, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1024*1024, strings.TrimSuffix(t, "m")
	}
	f, err := strconv.ParseFloat(t, 64)
	n := f * mult
	if err != nil || math.IsNaN(n) || n < 1 || n > advise.MaxContext || n != math.Trunc(n) {
		return 0, fmt.Errorf("want a whole number of tokens from 1 to %d, such as 4096 or 32k (= 32768)", advise.MaxContext)
	}
	return int(n), nil
}

// Hours is a duration value read as hours (ParseHours): the flags and
// inputs of advise, cost and spot. Text keeps what was typed, for messages.
type Hours struct {
	P      *float64
	ZeroOK bool // 0 is allowed
	Max    float64
	Text   string
}

// NewHours is a duration value stored in p.
func NewHours(p *float64, zeroOK bool, max float64) *Hours {
	return &Hours{P: p, ZeroOK: zeroOK, Max: max}
}

func (v *Hours) String() string { return v.Text }
func (v *Hours) Type() string   { return "duration" }
func (v *Hours) Set(s string) error {
	h, err := ParseHours(s, v.ZeroOK, v.Max)
	if err != nil {
		return err
	}
	*v.P, v.Text = h, s
	return nil
}

// The other shared values, for the commands whose flags are not a form's
// (cost, spot): the same syntax and bounds as the form's inputs.

// Fraction is a rate or share in [min, max], "8%" or "0.08", stored in p.
func Fraction(p *decimal.Decimal, min, max decimal.Decimal) pflag.Value {
	return &fractionValue{d: p, min: min, max: max}
}

// Int is a whole number in [min, max] stored in p.
func Int(p *int, min, max int) pflag.Value { return &intValue{n: p, min: min, max: max} }

// Float is a finite number in [min, max] (above min if openMin) stored in
// p; unit is appended to the bounds in messages (" GB").
func Float(p *float64, min, max float64, openMin bool, unit string) pflag.Value {
	return &floatValue{f: p, min: min, max: max, openMin: openMin, unit: unit}
}

// Egress collects repeated PATH=GB into m.
func Egress(m *map[string]float64) pflag.Value { return &egressValue{m: m} }

// Credits collects repeated credits into cs.
func Credits(cs *[]cost.Credit) pflag.Value { return &creditValue{cs: cs} }

// Band is a monthly spot interruption band (ParseBand) stored in s.
func Band(s *string) pflag.Value { return &bandValue{s: s} }

// fractionValue is a rate input (ParseFraction).
type fractionValue struct {
	d        *decimal.Decimal
	min, max decimal.Decimal
	text     string
}

func (v *fractionValue) String() string { return v.text }
func (v *fractionValue) Type() string   { return "percent" }
func (v *fractionValue) Set(s string) error {
	d, err := ParseFraction(s, v.min, v.max)
	if err != nil {
		return err
	}
	*v.d, v.text = d, s
	return nil
}

// amountValue is money as typed: 60000USD, "60000 CNY", 5e4EUR. A bare
// number is left without a currency, for the request to complete.
type amountValue struct {
	a    *money.Amount
	text string
}

func (v *amountValue) String() string { return v.text }
func (v *amountValue) Type() string   { return "amount" }
func (v *amountValue) Set(s string) error {
	a, err := money.ParseAmount(s, "")
	if err != nil {
		return err
	}
	*v.a, v.text = a, s
	return nil
}

// intValue is a whole-number input (ParseInt).
type intValue struct {
	n        *int
	min, max int
}

func (v *intValue) String() string {
	if v.n == nil {
		return "0"
	}
	return strconv.Itoa(*v.n)
}
func (v *intValue) Type() string { return "int" }
func (v *intValue) Set(s string) error {
	n, err := ParseInt(s, v.min, v.max)
	if err != nil {
		return err
	}
	*v.n = n
	return nil
}

// floatValue is a number input (ParseFloat).
type floatValue struct {
	f        *float64
	min, max float64
	openMin  bool
	unit     string
}

func (v *floatValue) String() string {
	if v.f == nil || *v.f == 0 {
		return ""
	}
	return strconv.FormatFloat(*v.f, 'g', -1, 64)
}
func (v *floatValue) Type() string { return "number" }
func (v *floatValue) Set(s string) error {
	f, err := ParseFloat(s, v.min, v.max, v.openMin, v.unit)
	if err != nil {
		return err
	}
	*v.f = f
	return nil
}

// egressValue collects repeated PATH=GB into GB a month by path.
type egressValue struct{ m *map[string]float64 }

func (v *egressValue) String() string { return "" }
func (v *egressValue) Type() string   { return "PATH=GB" }
func (v *egressValue) repeatable()    {}
func (v *egressValue) Set(s string) error {
	path, gb, err := ParseEgress(s)
	if err != nil {
		return err
	}
	if *v.m == nil {
		*v.m = map[string]float64{}
	}
	(*v.m)[path] = gb
	return nil
}

// creditValue collects repeated credits (ParseCredit).
type creditValue struct{ cs *[]cost.Credit }

func (v *creditValue) String() string { return "" }
func (v *creditValue) Type() string   { return "credit" }
func (v *creditValue) repeatable()    {}
func (v *creditValue) Set(s string) error {
	c, err := ParseCredit(s)
	if err != nil {
		return err
	}
	*v.cs = append(*v.cs, c)
	return nil
}

// bandValue is a spot interruption band (ParseBand).
type bandValue struct{ s *string }

func (v *bandValue) String() string { return *v.s }
func (v *bandValue) Type() string   { return "band" }
func (v *bandValue) Set(s string) error {
	b, err := ParseBand(s)
	if err != nil {
		return err
	}
	*v.s = b
	return nil
}

// contextValue is a token count (ParseContext).
type contextValue struct{ n *int }

func (v *contextValue) String() string {
	if *v.n == 0 {
		return ""
	}
	return strconv.Itoa(*v.n)
}
func (v *contextValue) Type() string { return "tokens" }
func (v *contextValue) Set(s string) error {
	n, err := ParseContext(s)
	if err != nil {
		return err
	}
	*v.n = n
	return nil
}

// boolValue is a switch: --no-spot alone, or true/false as text.
type boolValue struct{ b *bool }

func (v *boolValue) String() string   { return strconv.FormatBool(*v.b) }
func (v *boolValue) Type() string     { return "bool" }
func (v *boolValue) IsBoolFlag() bool { return true }
func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*v.b = b
	return nil
}

// repeatable marks the values that collect one item per Set (credits,
// egress); pflag's slice values are the others.
type repeatable interface{ repeatable() }

var (
	_ pflag.Value = (*Hours)(nil)
	_ pflag.Value = (*fractionValue)(nil)
	_ pflag.Value = (*amountValue)(nil)
	_ pflag.Value = (*intValue)(nil)
	_ pflag.Value = (*floatValue)(nil)
	_ pflag.Value = (*egressValue)(nil)
	_ pflag.Value = (*creditValue)(nil)
	_ pflag.Value = (*bandValue)(nil)
	_ pflag.Value = (*contextValue)(nil)
	_ pflag.Value = (*boolValue)(nil)
	_ repeatable  = (*creditValue)(nil)
)
