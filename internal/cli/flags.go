package cli

// The flag types every command shares. A flag's syntax, range and meaning
// live here, once: the commands register these values and read the parsed
// result, and pflag reports a bad value as
//   invalid argument "8" for "--discount-rate" flag: <what is allowed>
// which Main maps to exit code 2.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/pflag"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// hoursValue is a duration read as hours: 90m, 168h, 7d, 2w, 3mo, 1y. Zero
// ("0", "0m", "0s") is accepted when zeroOK; the value is bounded by max hours.
type hoursValue struct {
	h      *float64
	zeroOK bool
	max    float64
	text   string
}

func newHours(p *float64, zeroOK bool, max float64) *hoursValue {
	return &hoursValue{h: p, zeroOK: zeroOK, max: max}
}

func (v *hoursValue) String() string { return v.text }
func (v *hoursValue) Type() string   { return "duration" }
func (v *hoursValue) Set(s string) error {
	h, err := cost.ParseNonNegativeDuration(s)
	if err != nil {
		return err
	}
	if h == 0 && !v.zeroOK {
		return fmt.Errorf("must be longer than zero, e.g. 7d, 168h, 90m")
	}
	if h > v.max {
		return fmt.Errorf("%s is too long: at most %s", humanHours(h), humanHours(v.max))
	}
	*v.h, v.text = h, s
	return nil
}

// humanHours writes hours in the largest whole unit: 10y, 30d, 36h, 90m.
func humanHours(h float64) string {
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

// fractionValue is a rate or share written "8%" or as a fraction "0.08". A
// bare number above 1 is refused rather than read as 800%.
type fractionValue struct {
	d        *decimal.Decimal
	min, max decimal.Decimal
	text     string
}

func newFraction(p *decimal.Decimal, min, max string) *fractionValue {
	return &fractionValue{d: p, min: decimal.RequireFromString(min), max: decimal.RequireFromString(max)}
}

func (v *fractionValue) String() string { return v.text }
func (v *fractionValue) Type() string   { return "percent" }
func (v *fractionValue) Set(s string) error {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	d, err := money.ParseDecimal(strings.TrimSuffix(t, "%"))
	if err != nil {
		return fmt.Errorf("want a percentage such as 8%% or a fraction such as 0.08")
	}
	if pct {
		d = d.Div(decimal.NewFromInt(100))
	} else if d.Abs().GreaterThan(decimal.NewFromInt(1)) {
		return fmt.Errorf("a bare number is a fraction (%s would be %s%%); write %s%% or %s", t, d.Mul(decimal.NewFromInt(100)), t, d.Div(decimal.NewFromInt(100)))
	}
	if d.LessThan(v.min) || d.GreaterThan(v.max) {
		return fmt.Errorf("want %s%% to %s%%", v.min.Mul(decimal.NewFromInt(100)), v.max.Mul(decimal.NewFromInt(100)))
	}
	*v.d, v.text = d, s
	return nil
}

// amountValue is money as typed: 60000USD, "60000 CNY", 5e4EUR. A bare number
// is left without a currency for the command to complete from --currency.
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

// intValue is a whole number within [min, max].
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
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want a whole number from %d to %d", v.min, v.max)
	}
	if n < v.min || n > v.max {
		return fmt.Errorf("want %d to %d", v.min, v.max)
	}
	*v.n = n
	return nil
}

// floatValue is a finite number within [min, max] (min excluded when openMin).
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
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	low := f < v.min || (v.openMin && f == v.min)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || low || f > v.max {
		lo := fmt.Sprintf("at least %g", v.min)
		if v.openMin {
			lo = fmt.Sprintf("above %g", v.min)
		}
		return fmt.Errorf("want a number %s and at most %g%s", lo, v.max, v.unit)
	}
	*v.f = f
	return nil
}

// maxEgressGB bounds egress a month on one path: an exabyte is far beyond any
// GPU cluster's traffic, so a larger figure is a typo.
const maxEgressGB = 1e9

// egressValue collects repeated --egress PATH=GB into GB a month by path.
type egressValue struct {
	m *map[string]float64
	n int
}

func (v *egressValue) String() string { return "" }
func (v *egressValue) Type() string   { return "PATH=GB" }
func (v *egressValue) Set(s string) error {
	path, gb, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	f, err := strconv.ParseFloat(strings.TrimSpace(gb), 64)
	if !ok || !validPath(path) {
		return fmt.Errorf("want PATH=GB with PATH one of %s", strings.Join(catalog.EgressPaths, ", "))
	}
	if err != nil || !(f >= 0 && f <= maxEgressGB) {
		return fmt.Errorf("GB a month %q: want a number from 0 to %g", gb, maxEgressGB)
	}
	if *v.m == nil {
		*v.m = map[string]float64{}
	}
	(*v.m)[path] = f
	v.n++
	return nil
}

func validPath(p string) bool {
	for _, x := range catalog.EgressPaths {
		if x == p {
			return true
		}
	}
	return false
}

// creditValue collects repeated credits AMOUNT CUR[@provider,...][:EXPIRES].
type creditValue struct{ cs *[]cost.Credit }

func (v *creditValue) String() string { return "" }
func (v *creditValue) Type() string   { return "credit" }
func (v *creditValue) Set(s string) error {
	c, err := parseCredit(s)
	if err != nil {
		return err
	}
	*v.cs = append(*v.cs, c)
	return nil
}

// parseCredit reads AMOUNT CUR[@providers][:EXPIRES], e.g. "1000USD@aws:6mo".
func parseCredit(s string) (cost.Credit, error) {
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

// bandValue is a monthly spot interruption band such as 10-15% or >20%.
type bandValue struct{ s *string }

func (v *bandValue) String() string { return *v.s }
func (v *bandValue) Type() string   { return "band" }
func (v *bandValue) Set(s string) error {
	if _, _, _, err := spot.BandHazard(s); err != nil {
		return err
	}
	*v.s = strings.TrimSpace(s)
	return nil
}

var (
	_ pflag.Value = (*hoursValue)(nil)
	_ pflag.Value = (*fractionValue)(nil)
	_ pflag.Value = (*amountValue)(nil)
	_ pflag.Value = (*intValue)(nil)
	_ pflag.Value = (*floatValue)(nil)
	_ pflag.Value = (*egressValue)(nil)
	_ pflag.Value = (*creditValue)(nil)
	_ pflag.Value = (*bandValue)(nil)
	_ pflag.Value = (*outPathValue)(nil)
)

// outPathValue is a file to write, whose extension says its format: the
// extension must be one of exts and the folder must exist, so a typo fails
// before any work is done, naming the flag.
type outPathValue struct {
	p    *string
	exts []string // with the dot: ".svg"
}

func (v *outPathValue) String() string { return *v.p }
func (v *outPathValue) Type() string   { return "file" }
func (v *outPathValue) Set(s string) error {
	ext := strings.ToLower(filepath.Ext(s))
	if !slices.Contains(v.exts, ext) {
		return fmt.Errorf("want a file ending in %s (the extension says what is written)", strings.Join(v.exts, ", "))
	}
	if dir := filepath.Dir(s); dir != "." {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("folder %s does not exist", dir)
		}
	}
	*v.p = s
	return nil
}

// workValue is a job's work: a duration (72h), or an uncertain length as a
// uniform range of durations, 40h..56h. A single duration is kept in h.
type workValue struct {
	h      *hoursValue
	lo, hi float64
	ranged bool
}

func (v *workValue) String() string { return v.h.text }
func (v *workValue) Type() string   { return "duration or range" }
func (v *workValue) Set(s string) error {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		v.ranged = false
		return v.h.Set(s)
	}
	var lo, hi float64
	for i, part := range []string{a, b} {
		h := newHours(new(float64), false, v.h.max)
		if err := h.Set(part); err != nil {
			return fmt.Errorf("range %q, %s end: %v", s, [2]string{"lower", "upper"}[i], err)
		}
		lo, hi = hi, *h.h
	}
	if lo > hi {
		return fmt.Errorf("range %q: the lower end is above the upper; want MIN..MAX such as 40h..56h", s)
	}
	v.lo, v.hi, v.ranged = lo, hi, true
	*v.h.h, v.h.text = hi, s
	return nil
}

// durationsValue is a list of durations, e.g. past runs 41h,44h,52h: each
// above zero and at most max hours, at most maxN of them.
type durationsValue struct {
	hs   *[]float64
	max  float64
	maxN int
	text string
}

func (v *durationsValue) String() string { return v.text }
func (v *durationsValue) Type() string   { return "durations" }
func (v *durationsValue) Set(s string) error {
	var out []float64
	for i, part := range strings.Split(s, ",") {
		h := newHours(new(float64), false, v.max)
		if err := h.Set(strings.TrimSpace(part)); err != nil {
			return fmt.Errorf("item %d %q: %v", i+1, part, err)
		}
		out = append(out, *h.h)
	}
	if len(out) > v.maxN {
		return fmt.Errorf("%d durations: at most %d", len(out), v.maxN)
	}
	*v.hs, v.text = out, s
	return nil
}
