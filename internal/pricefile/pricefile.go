// Package pricefile reads a user's price file (YAML): prices from a console or
// a negotiated contract that override the catalog, discounts off catalog
// prices, offerings the catalog lacks, and exchange rates. Every error names
// the file, the line, the field, the value and what is allowed.
package pricefile

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
	"github.com/gpuscout/gpuscout/internal/yamlfields"
)

// File is a parsed price file.
type File struct {
	Path        string
	Currency    money.Currency // default currency of entries
	AsOf        string
	Note        string
	FX          []FXRate
	Entries     []Entry
	Commitments []CommitmentEntry

	currencyLine int // line of the top-level currency, for messages
}

// CommitmentEntry is a commitment price the user supplies (a subscription
// quote from a console, a negotiated reservation).
type CommitmentEntry struct {
	Line         int
	Provider     string
	InstanceType string
	Region       string
	Model        string
	Term         string
	Payment      string
	Class        string
	Upfront      decimal.Decimal
	Hourly       decimal.Decimal
	Monthly      decimal.Decimal
	Currency     money.Currency
	AsOf         string

	lines commitmentLines
}

// commitmentLines are the lines of a commitment's fields, for messages.
type commitmentLines struct{ currency, term, upfront, hourly, monthly int }

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
	// SpotBand is the provider's own monthly spot interruption band for the
	// entry's instance type (every type when none) and region (every region
	// when none), e.g. "5-10%": it replaces the assumed default.
	SpotBand string
	// NewRegion says the entry's region is one the catalog does not know for
	// its provider (a region launched since): without it such a region is
	// taken for a typing mistake and refused.
	NewRegion bool
	Currency  money.Currency
	AsOf      string
	Note      string
	// For offerings the catalog lacks:
	GPU          string
	GPUCount     float64
	GPUMemoryGiB float64
	VCPUs        float64
	MemoryGiB    float64
	Interconnect string
	// Steps: pay-as-you-go prices by cumulative hours of use (hourly_steps).
	Steps []catalog.PriceStep

	lines entryLines
}

// entryLines are the lines of an entry's fields, for messages.
type entryLines struct {
	currency, price, spot int
	steps                 []int // of each hourly step's price
}

// Error is a validation error at a file position.
type Error = yamlfields.Error

// Load reads and parses a price file of at most MaxFileSize bytes.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse parses the YAML text of at most MaxFileSize bytes; path is used in messages only.
func Parse(path string, b []byte) (*File, error) {
	if len(b) > MaxFileSize {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("the file is more than %d bytes (%d MiB), the most a price file may be; "+
			"a price file holds your own prices, not a copy of the catalog: keep the entries that differ from it", MaxFileSize, MaxFileSize>>20)}
	}
	f := &File{Path: path}
	p := &yamlfields.Reader{Path: path}
	top, err := p.Root(b, "a mapping with a prices: list")
	if err != nil {
		return nil, err
	}
	err = p.Mapping(top, "top level", map[string]func(*yaml.Node) error{
		"currency": func(n *yaml.Node) (err error) {
			f.Currency, err = p.Currency(n, "currency")
			f.currencyLine = n.Line
			return
		},
		"as_of":       func(n *yaml.Node) (err error) { f.AsOf, err = asOf(p, n, "as_of"); return },
		"note":        func(n *yaml.Node) (err error) { f.Note, err = p.Str(n, "note"); return },
		"fx":          func(n *yaml.Node) error { return parseFX(p, n, f) },
		"prices":      func(n *yaml.Node) error { return parseEntries(p, n, f) },
		"commitments": func(n *yaml.Node) error { return parseCommitments(p, n, f) },
	})
	if err != nil {
		return nil, err
	}
	if f.Entries == nil && f.Commitments == nil {
		return nil, &Error{Path: path, Line: top.Line, Field: "prices", Msg: "missing; want a list of price entries (and/or commitments)"}
	}
	if err := f.checkCurrencies(); err != nil {
		return nil, err
	}
	for i := range f.Commitments {
		c := &f.Commitments[i]
		if c.Currency == "" {
			c.Currency = f.Currency
		}
		if c.AsOf == "" {
			c.AsOf = f.AsOf
		}
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
	if err := f.checkBounds(); err != nil {
		return nil, err
	}
	return f, nil
}

func parseFX(p *yamlfields.Reader, n *yaml.Node, f *File) error {
	if n.Kind != yaml.MappingNode {
		return p.Errf(n, "fx", "want a mapping of currency: USD per unit, for example CNY: 0.138")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		c, err := money.ParseCurrency(k.Value)
		if err != nil {
			return p.Errf(k, "fx", "%v", err)
		}
		field := "fx." + k.Value
		r, err := p.Amount(v, field, "USD per one "+string(c))
		if err != nil {
			return err
		}
		if r.LessThan(MinFXRate) || r.GreaterThan(MaxFXRate) {
			return p.Errf(v, field, "value %s is outside the allowed range: from %s to %s USD per one %s", show(r), MinFXRate, MaxFXRate, c)
		}
		if err := checkPlaces(p.Path, v.Line, field, r); err != nil {
			return err
		}
		if err := money.DefaultFX().CheckDrift(c, r); err != nil {
			return p.Errf(v, field, "%v", err)
		}
		f.FX = append(f.FX, FXRate{Currency: c, USD: r, Line: v.Line})
	}
	return nil
}

// clock is today, for the dates of quotes (tests set it).
var clock = time.Now

// asOf reads the date prices were quoted: a real date, not after today (a
// day of slack for time zones).
func asOf(p *yamlfields.Reader, n *yaml.Node, field string) (string, error) {
	s, err := p.Date(n, field)
	if err != nil {
		return "", err
	}
	if latest := clock().AddDate(0, 0, 1).Format(time.DateOnly); s > latest {
		return "", p.Errf(n, field, "value %s is in the future (today is %s); as_of is the day the prices were quoted", s, clock().Format(time.DateOnly))
	}
	return s, nil
}

// entryFields are the keys of a price entry, in the order messages list them.
var entryFields = []string{"as_of", "currency", "discount", "gpu", "gpu_count", "gpu_memory_gib", "hourly_steps", "instance_type",
	"interconnect", "memory_gib", "new_region", "note", "price", "provider", "region", "spot_band", "spot_price", "vcpus", "zone"}

// entryField reads one field of a price entry into e.
func entryField(p *yamlfields.Reader, e *Entry, key string, v *yaml.Node) (err error) {
	switch key {
	case "provider":
		e.Provider, err = p.NonEmpty(v, key)
	case "instance_type":
		e.InstanceType, err = p.NonEmpty(v, key)
	case "region":
		e.Region, err = p.NonEmpty(v, key)
	case "zone":
		e.Zone, err = p.NonEmpty(v, key)
	case "price":
		e.Price, err = p.Price(v, key)
		e.lines.price = v.Line
	case "spot_price":
		e.SpotPrice, err = p.Price(v, key)
		e.lines.spot = v.Line
	case "spot_band":
		if e.SpotBand, err = p.NonEmpty(v, key); err == nil {
			if _, _, berr := spot.ParseBand(e.SpotBand); berr != nil {
				err = p.Errf(v, key, "%v", berr)
			}
		}
	case "discount":
		e.Discount, err = fraction(p, v, key)
	case "currency":
		e.Currency, err = p.Currency(v, key)
		e.lines.currency = v.Line
	case "as_of":
		e.AsOf, err = asOf(p, v, key)
	case "new_region":
		var b string
		if b, err = p.Str(v, key); err == nil {
			if e.NewRegion, err = strconv.ParseBool(b); err != nil {
				err = p.Errf(v, key, "value %q: want true or false", b)
			}
		}
	case "note":
		e.Note, err = p.Str(v, key)
	case "gpu":
		e.GPU, err = p.NonEmpty(v, key)
	case "gpu_count":
		e.GPUCount, err = p.PositiveMax(v, key, MaxGPUCount)
	case "gpu_memory_gib":
		e.GPUMemoryGiB, err = p.PositiveMax(v, key, MaxGPUMemoryGiB)
	case "vcpus":
		e.VCPUs, err = p.PositiveMax(v, key, MaxVCPUs)
	case "memory_gib":
		e.MemoryGiB, err = p.PositiveMax(v, key, MaxMemoryGiB)
	case "interconnect":
		e.Interconnect, err = p.NonEmpty(v, key)
	case "hourly_steps":
		e.Steps, e.lines.steps, err = parseSteps(p, v)
	}
	return err
}

func parseEntries(p *yamlfields.Reader, n *yaml.Node, f *File) error {
	f.Entries = make([]Entry, 0, len(n.Content))
	var e Entry
	field := func(key string, v *yaml.Node) error { return entryField(p, &e, key, v) }
	return p.Sequence(n, "prices", func(item *yaml.Node) error {
		e = Entry{Line: item.Line}
		err := p.Fields(item, "a price entry", entryFields, field)
		if err != nil {
			return err
		}
		if e.Provider == "" {
			return p.Errf(item, "provider", "missing; every entry names its provider")
		}
		if len(e.Steps) > 0 {
			if e.Price.Valid && !e.Price.Decimal.Equal(e.Steps[0].Amount) {
				return p.Errf(item, "price", "differs from the first of hourly_steps; give one or make them equal")
			}
			e.Price = decimal.NullDecimal{Decimal: e.Steps[0].Amount, Valid: true}
		}
		if !e.Price.Valid && !e.SpotPrice.Valid && !e.Discount.Valid && e.SpotBand == "" {
			return p.Errf(item, "price", "missing; an entry needs price, spot_price, hourly_steps, discount or spot_band")
		}
		if e.Discount.Valid && (e.Price.Valid || e.SpotPrice.Valid) {
			return p.Errf(item, "discount", "cannot be combined with price or spot_price in one entry")
		}
		if e.InstanceType == "" && !e.Discount.Valid && (e.Price.Valid || e.SpotPrice.Valid) {
			return p.Errf(item, "instance_type", "missing; only a discount or a spot_band may apply to every instance of a provider")
		}
		f.Entries = append(f.Entries, e)
		return nil
	})
}

var (
	models   = []string{"reserved", "savings-plan", "commitment", "subscription"}
	payments = []string{"no-upfront", "partial-upfront", "all-upfront", "monthly"}
)

func oneOf(p *yamlfields.Reader, n *yaml.Node, field string, allowed []string) (string, error) {
	v, err := p.NonEmpty(n, field)
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", p.Errf(n, field, "value %q is not one of %s", v, strings.Join(allowed, ", "))
}

// commitmentFields are the keys of a commitment, in the order messages list them.
var commitmentFields = []string{"as_of", "class", "currency", "hourly", "instance_type", "model", "monthly", "payment", "provider", "region", "term", "upfront"}

// commitmentField reads one field of a commitment into c.
func commitmentField(p *yamlfields.Reader, c *CommitmentEntry, key string, v *yaml.Node) (err error) {
	switch key {
	case "provider":
		c.Provider, err = p.NonEmpty(v, key)
	case "instance_type":
		c.InstanceType, err = p.NonEmpty(v, key)
	case "region":
		c.Region, err = p.NonEmpty(v, key)
	case "model":
		c.Model, err = oneOf(p, v, key, models)
	case "payment":
		c.Payment, err = oneOf(p, v, key, payments)
	case "class":
		c.Class, err = oneOf(p, v, key, []string{"standard", "convertible"})
	case "term":
		var t string
		if t, err = p.NonEmpty(v, key); err != nil {
			return err
		}
		switch m := catalog.TermMonths(t); {
		case m == 0:
			return p.Errf(v, key, "value %q: want 1y, 3y or Nmo", t)
		case m < MinTermMonths || m > MaxTermMonths:
			return p.Errf(v, key, "value %q is outside the allowed range: from %d to %d months (1y..5y, 1mo..60mo)", t, MinTermMonths, MaxTermMonths)
		}
		c.Term, c.lines.term = t, v.Line
	case "upfront":
		c.Upfront, err = p.Amount(v, key, "an amount >= 0")
		c.lines.upfront = v.Line
	case "hourly":
		c.Hourly, err = p.Amount(v, key, "an amount >= 0")
		c.lines.hourly = v.Line
	case "monthly":
		c.Monthly, err = p.Amount(v, key, "an amount >= 0")
		c.lines.monthly = v.Line
	case "currency":
		c.Currency, err = p.Currency(v, key)
		c.lines.currency = v.Line
	case "as_of":
		c.AsOf, err = asOf(p, v, key)
	}
	return err
}

func parseCommitments(p *yamlfields.Reader, n *yaml.Node, f *File) error {
	f.Commitments = make([]CommitmentEntry, 0, len(n.Content))
	var c CommitmentEntry
	field := func(key string, v *yaml.Node) error { return commitmentField(p, &c, key, v) }
	return p.Sequence(n, "commitments", func(item *yaml.Node) error {
		c = CommitmentEntry{Line: item.Line}
		if err := p.Fields(item, "a commitment entry", commitmentFields, field); err != nil {
			return err
		}
		for _, req := range []struct{ field, v string }{{"provider", c.Provider}, {"instance_type", c.InstanceType}, {"region", c.Region},
			{"model", c.Model}, {"term", c.Term}, {"payment", c.Payment}} {
			if req.v == "" {
				return p.Errf(item, req.field, "missing; a commitment names provider, instance_type, region, model, term and payment")
			}
		}
		if err := c.checkPayment(p.Path, item.Line); err != nil {
			return err
		}
		f.Commitments = append(f.Commitments, c)
		return nil
	})
}

// parseSteps reads [{from_hours: 0, price: 16.09}, {from_hours: 96, price: 12.0}, ...].
func parseSteps(p *yamlfields.Reader, n *yaml.Node) ([]catalog.PriceStep, []int, error) {
	var out []catalog.PriceStep
	var lines []int
	err := p.Sequence(n, "hourly_steps", func(item *yaml.Node) error {
		var st catalog.PriceStep
		set := false
		err := p.Mapping(item, "a price step", map[string]func(*yaml.Node) error{
			"from_hours": func(v *yaml.Node) (err error) {
				st.FromHours, err = p.Number(v, "hourly_steps.from_hours", 0, MaxFromHours)
				return
			},
			"price": func(v *yaml.Node) error {
				lines = append(lines, v.Line)
				d, err := p.Price(v, "hourly_steps.price")
				st.Amount, set = d.Decimal, err == nil
				return err
			},
		})
		if err != nil {
			return err
		}
		if !set {
			return p.Errf(item, "hourly_steps.price", "missing")
		}
		if len(out) == 0 && st.FromHours != 0 {
			return p.Errf(item, "hourly_steps.from_hours", "the first step must start at 0 hours")
		}
		if len(out) > 0 && st.FromHours <= out[len(out)-1].FromHours {
			return p.Errf(item, "hourly_steps.from_hours", "value %g must be above the previous step's %g", st.FromHours, out[len(out)-1].FromHours)
		}
		out = append(out, st)
		return nil
	})
	if err == nil && len(out) == 0 {
		err = p.Errf(n, "hourly_steps", "is empty")
	}
	return out, lines, err
}

func fraction(p *yamlfields.Reader, n *yaml.Node, field string) (decimal.NullDecimal, error) {
	d, err := p.Fraction(n, field, false)
	return decimal.NullDecimal{Decimal: d, Valid: err == nil}, err
}
