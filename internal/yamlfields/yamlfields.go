// Package yamlfields reads user-written YAML files field by field, so that
// every error names the file, the line, the field, the value and what is
// allowed. The price file and the usage file are read with it.
package yamlfields

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Error is a validation error at a file position; Line 0 is about the whole file.
type Error struct {
	Path  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: field %s: %s", e.Path, e.Line, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

// Reader reads the nodes of one file.
type Reader struct{ Path string }

// Root parses b and returns its top-level node; want describes the expected
// content for the empty-file error. The file must hold one YAML document: a
// second one (after a --- line) is an error, never silently ignored.
func (r *Reader) Root(b []byte, want string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil && err != io.EOF {
		return nil, r.invalid(err)
	}
	if len(root.Content) == 0 {
		return nil, &Error{Path: r.Path, Line: 1, Msg: "the file is empty; want " + want}
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return nil, r.invalid(err)
	default:
		return nil, &Error{Path: r.Path, Line: next.Line, Msg: "a second YAML document starts here; the file holds one document: remove the --- line or merge the two"}
	}
	return root.Content[0], nil
}

func (r *Reader) invalid(err error) error {
	return &Error{Path: r.Path, Line: errLine(err), Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
}

// Errf makes an Error at node n.
func (r *Reader) Errf(n *yaml.Node, field, format string, a ...any) error {
	return &Error{Path: r.Path, Line: n.Line, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// Mapping walks a mapping node, dispatching known keys and rejecting others and repeats.
func (r *Reader) Mapping(n *yaml.Node, what string, fields map[string]func(*yaml.Node) error) error {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	return r.Fields(n, what, names, func(key string, v *yaml.Node) error { return fields[key](v) })
}

// Fields walks a mapping node like Mapping, calling fn with each key and value;
// allowed lists the keys, in the order the message about an unknown key
// gives them. It allocates nothing per node, for files of many entries: a
// caller declares allowed and fn once, not once per mapping.
func (r *Reader) Fields(n *yaml.Node, what string, allowed []string, fn func(key string, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return r.Errf(n, "", "%s must be a mapping (key: value lines)", what)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			return r.Errf(k, k.Value, "unknown field in %s; allowed: %s", what, strings.Join(allowed, ", "))
		}
		for j := 0; j < i; j += 2 {
			if n.Content[j].Value == k.Value {
				return r.Errf(k, k.Value, "given twice")
			}
		}
		if err := fn(k.Value, v); err != nil {
			return err
		}
	}
	return nil
}

// Sequence calls fn for each item of a list node.
func (r *Reader) Sequence(n *yaml.Node, field string, fn func(*yaml.Node) error) error {
	if n.Kind != yaml.SequenceNode {
		return r.Errf(n, field, "want a list (lines starting with '- ')")
	}
	for _, item := range n.Content {
		if err := fn(item); err != nil {
			return err
		}
	}
	return nil
}

// Str reads a scalar.
func (r *Reader) Str(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", r.Errf(n, field, "want a single value, not a list or mapping")
	}
	return strings.TrimSpace(n.Value), nil
}

// NonEmpty reads a scalar that must not be empty.
func (r *Reader) NonEmpty(n *yaml.Node, field string) (string, error) {
	s, err := r.Str(n, field)
	if err == nil && s == "" {
		err = r.Errf(n, field, "is empty")
	}
	return s, err
}

// Strings reads a list of scalars, or one scalar with comma-separated values.
func (r *Reader) Strings(n *yaml.Node, field string) ([]string, error) {
	if n.Kind == yaml.ScalarNode {
		var out []string
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	var out []string
	err := r.Sequence(n, field, func(item *yaml.Node) error {
		s, err := r.NonEmpty(item, field)
		out = append(out, s)
		return err
	})
	return out, err
}

// Currency reads an ISO 4217 code.
func (r *Reader) Currency(n *yaml.Node, field string) (money.Currency, error) {
	s, err := r.Str(n, field)
	if err != nil {
		return "", err
	}
	c, err := money.ParseCurrency(s)
	if err != nil {
		return "", r.Errf(n, field, "%v", err)
	}
	return c, nil
}

var dateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })

// Date reads YYYY-MM-DD.
func (r *Reader) Date(n *yaml.Node, field string) (string, error) {
	s, err := r.Str(n, field)
	if err != nil {
		return "", err
	}
	if !dateRE().MatchString(s) {
		return "", r.Errf(n, field, "value %q is not a date; want YYYY-MM-DD", s)
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return "", r.Errf(n, field, "value %q is not a date; want YYYY-MM-DD with a real month and day", s)
	}
	return s, nil
}

// Amount reads a non-negative decimal; what says what it is ("a price per hour such as 12.5").
func (r *Reader) Amount(n *yaml.Node, field, what string) (decimal.Decimal, error) {
	s, err := r.Str(n, field)
	if err != nil {
		return decimal.Decimal{}, err
	}
	d, err := money.ParseDecimal(s)
	if errors.Is(err, money.ErrOutOfRange) {
		return decimal.Decimal{}, r.Errf(n, field, "value %s is outside the allowed range (beyond 1e±%d); want %s", s, money.MaxExponent, what)
	}
	if err != nil {
		return decimal.Decimal{}, r.Errf(n, field, "value %q is not a number; want %s", s, what)
	}
	if d.IsNegative() {
		return decimal.Decimal{}, r.Errf(n, field, "value %s is negative; want %s", s, what)
	}
	return d, nil
}

// Price reads a non-negative price per hour.
func (r *Reader) Price(n *yaml.Node, field string) (decimal.NullDecimal, error) {
	d, err := r.Amount(n, field, "a price per hour >= 0, such as 12.5")
	return decimal.NullDecimal{Decimal: d, Valid: err == nil}, err
}

// Number reads a float within [min, max].
func (r *Reader) Number(n *yaml.Node, field string, min, max float64) (float64, error) {
	s, err := r.Str(n, field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= min && v <= max) {
		return 0, r.Errf(n, field, "value %q is not a number from %g to %g", s, min, max)
	}
	return v, nil
}

// Positive reads a number > 0.
func (r *Reader) Positive(n *yaml.Node, field string) (float64, error) {
	s, err := r.Str(n, field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v > 1e9 {
		return 0, r.Errf(n, field, "value %q is not a positive number", s)
	}
	return v, nil
}

// PositiveMax reads a number more than 0 and at most max.
func (r *Reader) PositiveMax(n *yaml.Node, field string, max float64) (float64, error) {
	s, err := r.Str(n, field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, r.Errf(n, field, "value %q is not a number; want more than 0 and at most %g", s, max)
	}
	if !(v > 0 && v <= max) {
		return 0, r.Errf(n, field, "value %q is outside the allowed range: more than 0 and at most %g", s, max)
	}
	return v, nil
}

// Fraction reads "30%" or 0.3 as 0.3; the value must lie in [0, 1) unless allowOne.
func (r *Reader) Fraction(n *yaml.Node, field string, allowOne bool) (decimal.Decimal, error) {
	s, err := r.Str(n, field)
	if err != nil {
		return decimal.Decimal{}, err
	}
	d, err := ParseFraction(s)
	if err != nil {
		return decimal.Decimal{}, r.Errf(n, field, "value %q is not a number; want a percentage such as 30%% or a fraction such as 0.3", s)
	}
	one := decimal.NewFromInt(1)
	if d.IsNegative() || d.GreaterThan(one) || (!allowOne && d.Equal(one)) {
		return decimal.Decimal{}, r.Errf(n, field, "value %q is outside 0%%..100%%", s)
	}
	return d, nil
}

// ParseFraction reads "30%" or "0.3" as 0.3.
func ParseFraction(s string) (decimal.Decimal, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	d, err := money.ParseDecimal(strings.TrimSuffix(s, "%"))
	if err != nil {
		return decimal.Decimal{}, err
	}
	if pct {
		d = d.Div(decimal.NewFromInt(100))
	}
	return d, nil
}

var lineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

func errLine(err error) int {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := lineRE().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 1
}
