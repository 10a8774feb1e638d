package cli

// The flag types the commands share. A flag's syntax, range and meaning
// live in the form package (internal/form), once, for the CLI and the
// API; advise and offers register the form's inputs whole. pflag reports a
// bad value as
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

	"github.com/spf13/pflag"

	"github.com/gpuscout/gpuscout/internal/form"
)

// The values of cost's and spot's flags are the form package's (form.Hours,
// form.Int, form.Float, form.Fraction, form.Egress, form.Credits,
// form.Band): the same syntax and bounds as advise's inputs and the API's.

// hoursValue is a duration flag (form.Hours).
type hoursValue = form.Hours

func newHours(p *float64, zeroOK bool, max float64) *hoursValue { return form.NewHours(p, zeroOK, max) }

// humanHours writes hours in the largest whole unit: 10y, 30d, 36h, 90m.
func humanHours(h float64) string { return form.HumanHours(h) }

var _ pflag.Value = (*outPathValue)(nil)

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

func (v *workValue) String() string { return v.h.Text }
func (v *workValue) Type() string   { return "duration or range" }
func (v *workValue) Set(s string) error {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		v.ranged = false
		return v.h.Set(s)
	}
	var lo, hi float64
	for i, part := range []string{a, b} {
		h := newHours(new(float64), false, v.h.Max)
		if err := h.Set(part); err != nil {
			return fmt.Errorf("range %q, %s end: %v", s, [2]string{"lower", "upper"}[i], err)
		}
		lo, hi = hi, *h.P
	}
	if lo > hi {
		return fmt.Errorf("range %q: the lower end is above the upper; want MIN..MAX such as 40h..56h", s)
	}
	v.lo, v.hi, v.ranged = lo, hi, true
	*v.h.P, v.h.Text = hi, s
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
		out = append(out, *h.P)
	}
	if len(out) > v.maxN {
		return fmt.Errorf("%d durations: at most %d", len(out), v.maxN)
	}
	*v.hs, v.text = out, s
	return nil
}

// countValue is a whole count that may be written in scientific notation
// (--max-events 2e8), within [min, max].
type countValue struct {
	n        *int64
	min, max int64
}

func (v *countValue) String() string { return strconv.FormatInt(*v.n, 10) }
func (v *countValue) Type() string   { return "count" }
func (v *countValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != math.Trunc(f) || f < float64(v.min) || f > float64(v.max) {
		return fmt.Errorf("want a whole number from %d to %d (2e8 allowed)", v.min, v.max)
	}
	*v.n = int64(f)
	return nil
}

// seedValue is a random seed: a whole number from 0 to 2^64-1.
type seedValue struct{ n *uint64 }

func (v *seedValue) String() string { return strconv.FormatUint(*v.n, 10) }
func (v *seedValue) Type() string   { return "uint" }
func (v *seedValue) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	*v.n = n
	return nil
}

var (
	_ pflag.Value = (*countValue)(nil)
	_ pflag.Value = (*seedValue)(nil)
)
