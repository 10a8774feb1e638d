package cli

// The flag types the commands share. A flag's syntax, range and meaning
// live in the form package (internal/advise/form), once, for the CLI and the
// API; advise and offers register the form's inputs whole. pflag reports a
// bad value as
//   invalid argument "8" for "--discount-rate" flag: <what is allowed>
// which Main maps to exit code 2.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/pflag"

	"github.com/gpuscout/gpuscout/internal/advise/form"
	"github.com/gpuscout/gpuscout/internal/cost"
)

// The values below are the flags of cost and spot: thin pflag.Values over
// the form package's parsers, where advise's and offers' inputs (and the
// API's) read the same syntax with the same bounds.

// hoursValue is a duration read as hours (form.ParseHours).
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
	h, err := form.ParseHours(s, v.zeroOK, v.max)
	if err != nil {
		return err
	}
	*v.h, v.text = h, s
	return nil
}

// humanHours writes hours in the largest whole unit: 10y, 30d, 36h, 90m.
func humanHours(h float64) string { return form.HumanHours(h) }

// fractionValue is a rate or share, "8%" or "0.08" (form.ParseFraction).
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
	d, err := form.ParseFraction(s, v.min, v.max)
	if err != nil {
		return err
	}
	*v.d, v.text = d, s
	return nil
}

// intValue is a whole number within [min, max] (form.ParseInt).
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
	n, err := form.ParseInt(s, v.min, v.max)
	if err != nil {
		return err
	}
	*v.n = n
	return nil
}

// floatValue is a finite number within [min, max] (form.ParseFloat).
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
	f, err := form.ParseFloat(s, v.min, v.max, v.openMin, v.unit)
	if err != nil {
		return err
	}
	*v.f = f
	return nil
}

// egressValue collects repeated --egress PATH=GB (form.ParseEgress).
type egressValue struct{ m *map[string]float64 }

func (v *egressValue) String() string { return "" }
func (v *egressValue) Type() string   { return "PATH=GB" }
func (v *egressValue) Set(s string) error {
	path, gb, err := form.ParseEgress(s)
	if err != nil {
		return err
	}
	if *v.m == nil {
		*v.m = map[string]float64{}
	}
	(*v.m)[path] = gb
	return nil
}

// creditValue collects repeated credits (form.ParseCredit).
type creditValue struct{ cs *[]cost.Credit }

func (v *creditValue) String() string { return "" }
func (v *creditValue) Type() string   { return "credit" }
func (v *creditValue) Set(s string) error {
	c, err := form.ParseCredit(s)
	if err != nil {
		return err
	}
	*v.cs = append(*v.cs, c)
	return nil
}

// bandValue is a monthly spot interruption band such as 10-15% or >20%.
type bandValue struct{ s *string }

func (v *bandValue) String() string { return *v.s }
func (v *bandValue) Type() string   { return "band" }
func (v *bandValue) Set(s string) error {
	b, err := form.ParseBand(s)
	if err != nil {
		return err
	}
	*v.s = b
	return nil
}

var (
	_ pflag.Value = (*hoursValue)(nil)
	_ pflag.Value = (*fractionValue)(nil)
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
