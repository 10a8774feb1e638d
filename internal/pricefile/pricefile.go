// Package pricefile reads a user's price file (YAML): prices from a console or
// a negotiated contract that override the catalog, discounts off catalog
// prices, offerings the catalog lacks, and exchange rates. Every error names
// the file, the line, the field, the value and what is allowed.
package pricefile

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/money"
)

// File is a parsed price file.
type File struct {
	Path     string
	Currency money.Currency // default currency of entries
	AsOf     string
	Note     string
	FX       []FXRate
	Entries  []Entry
}

// FXRate is a rate from the file: one unit of Currency is worth USD dollars.
type FXRate struct {
	Currency money.Currency
	USD      decimal.Decimal
	Line     int
}

// Entry is one price, discount or new offering.
type Entry struct {
	Line         int
	Provider     string
	InstanceType string // empty: every instance of the provider (discounts only)
	Region       string // empty: every region
	Zone         string
	Price        decimal.NullDecimal
	SpotPrice    decimal.NullDecimal
	Discount     decimal.NullDecimal // fraction 0..1 off the catalog's on-demand and spot prices
	Currency     money.Currency
	AsOf         string
	Note         string
	// For offerings the catalog lacks:
	GPU          string
	GPUCount     float64
	GPUMemoryGiB float64
	VCPUs        float64
	MemoryGiB    float64
	Interconnect string
}

// Error is a validation error at a file position.
type Error struct {
	Path  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: field %s: %s", e.Path, e.Line, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

// Load reads and parses a price file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Parse parses the YAML text; path is used in messages only.
func Parse(path string, b []byte) (*File, error) {
	f := &File{Path: path}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, &Error{Path: path, Line: yamlErrLine(err), Msg: "not valid YAML: " + yamlErrMsg(err)}
	}
	if len(root.Content) == 0 {
		return nil, &Error{Path: path, Line: 1, Msg: "the file is empty; want a mapping with a prices: list"}
	}
	top := root.Content[0]
	p := &parser{path: path}
	err := p.mapping(top, "top level", map[string]func(*yaml.Node) error{
		"currency": func(n *yaml.Node) (err error) { f.Currency, err = p.currency(n, "currency"); return },
		"as_of":    func(n *yaml.Node) (err error) { f.AsOf, err = p.date(n, "as_of"); return },
		"note":     func(n *yaml.Node) (err error) { f.Note, err = p.str(n, "note"); return },
		"fx":       func(n *yaml.Node) error { return p.fx(n, f) },
		"prices":   func(n *yaml.Node) error { return p.entries(n, f) },
	})
	if err != nil {
		return nil, err
	}
	if f.Entries == nil {
		return nil, &Error{Path: path, Line: top.Line, Field: "prices", Msg: "missing; want a list of price entries"}
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Currency == "" {
			e.Currency = f.Currency
		}
		if e.AsOf == "" {
			e.AsOf = f.AsOf
		}
		if e.Note == "" {
			e.Note = f.Note
		}
	}
	return f, nil
}

type parser struct{ path string }

func (p *parser) errf(n *yaml.Node, field, format string, a ...any) error {
	return &Error{Path: p.path, Line: n.Line, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// mapping walks a mapping node, dispatching known keys and rejecting others.
func (p *parser) mapping(n *yaml.Node, what string, fields map[string]func(*yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return p.errf(n, "", "%s must be a mapping (key: value lines)", what)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		fn, ok := fields[k.Value]
		if !ok {
			return p.errf(k, k.Value, "unknown field in %s; allowed: %s", what, strings.Join(sortedKeys(fields), ", "))
		}
		if seen[k.Value] {
			return p.errf(k, k.Value, "given twice")
		}
		seen[k.Value] = true
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string]func(*yaml.Node) error) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (p *parser) str(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", p.errf(n, field, "want a single value, not a list or mapping")
	}
	return strings.TrimSpace(n.Value), nil
}

func (p *parser) nonEmpty(n *yaml.Node, field string) (string, error) {
	s, err := p.str(n, field)
	if err == nil && s == "" {
		err = p.errf(n, field, "is empty")
	}
	return s, err
}

func (p *parser) currency(n *yaml.Node, field string) (money.Currency, error) {
	s, err := p.str(n, field)
	if err != nil {
		return "", err
	}
	c, err := money.ParseCurrency(s)
	if err != nil {
		return "", p.errf(n, field, "%v", err)
	}
	return c, nil
}

func (p *parser) date(n *yaml.Node, field string) (string, error) {
	s, err := p.str(n, field)
	if err != nil {
		return "", err
	}
	if !dateRE.MatchString(s) {
		return "", p.errf(n, field, "value %q is not a date; want YYYY-MM-DD", s)
	}
	return s, nil
}

// price reads a non-negative hourly price.
func (p *parser) price(n *yaml.Node, field string) (decimal.NullDecimal, error) {
	s, err := p.str(n, field)
	if err != nil {
		return decimal.NullDecimal{}, err
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.NullDecimal{}, p.errf(n, field, "value %q is not a number; want a price per hour such as 12.5", s)
	}
	if d.IsNegative() {
		return decimal.NullDecimal{}, p.errf(n, field, "value %s is negative; want a price per hour >= 0", s)
	}
	return decimal.NullDecimal{Decimal: d, Valid: true}, nil
}

// positive reads a number > 0.
func (p *parser) positive(n *yaml.Node, field string) (float64, error) {
	s, err := p.str(n, field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v > 1e6 {
		return 0, p.errf(n, field, "value %q is not a positive number", s)
	}
	return v, nil
}

// discount reads "30%" or 0.3 as the fraction 0.3.
func (p *parser) discount(n *yaml.Node) (decimal.NullDecimal, error) {
	s, err := p.str(n, "discount")
	if err != nil {
		return decimal.NullDecimal{}, err
	}
	pct := strings.HasSuffix(s, "%")
	d, err := decimal.NewFromString(strings.TrimSpace(strings.TrimSuffix(s, "%")))
	if err != nil {
		return decimal.NullDecimal{}, p.errf(n, "discount", "value %q is not a number; want a percentage such as 30%% or a fraction such as 0.3", s)
	}
	if pct {
		d = d.Div(decimal.NewFromInt(100))
	}
	if d.IsNegative() || d.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		return decimal.NullDecimal{}, p.errf(n, "discount", "value %q is outside 0%%..100%% (exclusive of 100%%)", s)
	}
	return decimal.NullDecimal{Decimal: d, Valid: true}, nil
}

func (p *parser) fx(n *yaml.Node, f *File) error {
	if n.Kind != yaml.MappingNode {
		return p.errf(n, "fx", "want a mapping of currency: USD per unit, for example CNY: 0.138")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		c, err := money.ParseCurrency(k.Value)
		if err != nil {
			return p.errf(k, "fx", "%v", err)
		}
		r, err := p.price(v, "fx."+k.Value)
		if err != nil {
			return err
		}
		if !r.Decimal.IsPositive() {
			return p.errf(v, "fx."+k.Value, "value %s must be > 0 (USD per one %s)", v.Value, c)
		}
		f.FX = append(f.FX, FXRate{Currency: c, USD: r.Decimal, Line: v.Line})
	}
	return nil
}

func (p *parser) entries(n *yaml.Node, f *File) error {
	if n.Kind != yaml.SequenceNode {
		return p.errf(n, "prices", "want a list of entries (lines starting with '- ')")
	}
	f.Entries = []Entry{}
	for _, item := range n.Content {
		e := Entry{Line: item.Line}
		err := p.mapping(item, "a price entry", map[string]func(*yaml.Node) error{
			"provider":       func(v *yaml.Node) (err error) { e.Provider, err = p.nonEmpty(v, "provider"); return },
			"instance_type":  func(v *yaml.Node) (err error) { e.InstanceType, err = p.nonEmpty(v, "instance_type"); return },
			"region":         func(v *yaml.Node) (err error) { e.Region, err = p.nonEmpty(v, "region"); return },
			"zone":           func(v *yaml.Node) (err error) { e.Zone, err = p.nonEmpty(v, "zone"); return },
			"price":          func(v *yaml.Node) (err error) { e.Price, err = p.price(v, "price"); return },
			"spot_price":     func(v *yaml.Node) (err error) { e.SpotPrice, err = p.price(v, "spot_price"); return },
			"discount":       func(v *yaml.Node) (err error) { e.Discount, err = p.discount(v); return },
			"currency":       func(v *yaml.Node) (err error) { e.Currency, err = p.currency(v, "currency"); return },
			"as_of":          func(v *yaml.Node) (err error) { e.AsOf, err = p.date(v, "as_of"); return },
			"note":           func(v *yaml.Node) (err error) { e.Note, err = p.str(v, "note"); return },
			"gpu":            func(v *yaml.Node) (err error) { e.GPU, err = p.nonEmpty(v, "gpu"); return },
			"gpu_count":      func(v *yaml.Node) (err error) { e.GPUCount, err = p.positive(v, "gpu_count"); return },
			"gpu_memory_gib": func(v *yaml.Node) (err error) { e.GPUMemoryGiB, err = p.positive(v, "gpu_memory_gib"); return },
			"vcpus":          func(v *yaml.Node) (err error) { e.VCPUs, err = p.positive(v, "vcpus"); return },
			"memory_gib":     func(v *yaml.Node) (err error) { e.MemoryGiB, err = p.positive(v, "memory_gib"); return },
			"interconnect":   func(v *yaml.Node) (err error) { e.Interconnect, err = p.nonEmpty(v, "interconnect"); return },
		})
		if err != nil {
			return err
		}
		if e.Provider == "" {
			return p.errf(item, "provider", "missing; every entry names its provider")
		}
		if !e.Price.Valid && !e.SpotPrice.Valid && !e.Discount.Valid {
			return p.errf(item, "price", "missing; an entry needs price, spot_price or discount")
		}
		if e.Discount.Valid && (e.Price.Valid || e.SpotPrice.Valid) {
			return p.errf(item, "discount", "cannot be combined with price or spot_price in one entry")
		}
		if e.InstanceType == "" && !e.Discount.Valid {
			return p.errf(item, "instance_type", "missing; only a discount may apply to every instance of a provider")
		}
		f.Entries = append(f.Entries, e)
	}
	return nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func yamlErrLine(err error) int {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 1
}

func yamlErrMsg(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}
