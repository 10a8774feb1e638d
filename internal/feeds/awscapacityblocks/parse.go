package awscapacityblocks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Table is the Capacity Block price table: when it was scraped and its rows.
type Table struct {
	Updated time.Time // metadata.last_updated
	Rows    []Row
}

// Row is the price of one instance type's Capacity Blocks in one region
// (or Local Zone), per instance-hour.
type Row struct {
	Line             int // of the row's object in the file
	InstanceType     string
	AcceleratorType  string
	AcceleratorCount int
	RegionName       string // "US East (N. Virginia)"
	RegionCode       string // "us-east-1", or a Local Zone "us-east-1-atl-2a"
	Hourly           decimal.Decimal
	PerAccelerator   decimal.Decimal
}

// Limits on what the table may hold.
const (
	maxFileBytes    = 16 << 20
	maxHourly       = 100000 // USD per instance-hour, the catalog's bound on any hourly price
	maxAccelerators = 1024
)

var (
	regionCodeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z]{2}(-gov)?-[a-z]+-[0-9]+(-[a-z]{3}-[0-9]+[a-z])?$`)
	})
	instanceTypeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]*(\.[a-z0-9]+)?$`) })
	// A row's hourly rate and its accelerators' agree to within a cent an
	// instance-hour (the page rounds the per-accelerator rate to 3 decimals).
	rateTolerance = decimal.RequireFromString("0.01")
)

// Parse reads the table (the JSON of koyakimu/ec2-capacity-blocks-for-ml-pricing-json,
// data/pricing.json): {"metadata": {"last_updated": RFC 3339, ...},
// "instance_types": {TYPE: {"accelerator_type", "accelerator_count",
// "pricing": [{"region", "region_code", "hourly_rate_usd",
// "accelerator_hourly_rate_usd"}]}}}. Every number is checked: a rate
// above 0 and at most 100,000 USD per instance-hour, the instance rate
// equal to the accelerator rate times the accelerators (within a cent), a
// region or instance type given once. An error names the line, the key and
// the value.
func Parse(r io.Reader) (*Table, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("larger than %d MiB: not a price table", maxFileBytes>>20)
	}
	p := &parser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	t := &Table{}
	seenTop := map[string]bool{}
	if err := p.object("the file", func(key string) error {
		if seenTop[key] {
			return p.errorf("key %q given twice", key)
		}
		seenTop[key] = true
		switch key {
		case "metadata":
			return p.metadata(t)
		case "instance_types":
			return p.instanceTypes(t)
		default:
			var skip json.RawMessage
			return p.decode(&skip)
		}
	}); err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.errorf("data after the table's closing brace")
	}
	switch {
	case !seenTop["metadata"] || t.Updated.IsZero():
		return nil, errors.New("no metadata.last_updated: the table must say when it was read")
	case len(t.Rows) == 0:
		return nil, errors.New("no instance_types with prices")
	}
	return t, nil
}

// parser walks the JSON, keeping the decoder's offset to name lines.
type parser struct {
	data []byte
	dec  *json.Decoder
}

func (p *parser) line() int { return 1 + bytes.Count(p.data[:p.dec.InputOffset()], []byte("\n")) }

// nextValueLine is the line of the next value in an array: past the
// separating comma and white space the decoder has not read yet.
func (p *parser) nextValueLine() int {
	off := p.dec.InputOffset()
	for off < int64(len(p.data)) && bytes.IndexByte([]byte(" \t\r\n,"), p.data[off]) >= 0 {
		off++
	}
	return 1 + bytes.Count(p.data[:off], []byte("\n"))
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", p.line(), fmt.Sprintf(format, args...))
}

func (p *parser) decode(v any) error {
	if err := p.dec.Decode(v); err != nil {
		return p.errorf("%v", err)
	}
	return nil
}

// object reads a JSON object, calling each for every key with the decoder
// at the key's value.
func (p *parser) object(what string, each func(key string) error) error {
	if err := p.delim('{', what); err != nil {
		return err
	}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return p.errorf("%s: %v", what, err)
		}
		key, ok := tok.(string)
		if !ok {
			return p.errorf("%s: want a key, got %v", what, tok)
		}
		if err := each(key); err != nil {
			return err
		}
	}
	return p.delim('}', what)
}

func (p *parser) delim(want json.Delim, what string) error {
	tok, err := p.dec.Token()
	if err != nil {
		return p.errorf("%s: %v", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return p.errorf("%s: want %q, got %v", what, want, tok)
	}
	return nil
}

func (p *parser) metadata(t *Table) error {
	return p.object("metadata", func(key string) error {
		if key != "last_updated" {
			var skip json.RawMessage
			return p.decode(&skip)
		}
		var s string
		if err := p.decode(&s); err != nil {
			return err
		}
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return p.errorf("metadata.last_updated %q: want an RFC 3339 time", s)
		}
		t.Updated = at.UTC()
		return nil
	})
}

func (p *parser) instanceTypes(t *Table) error {
	seen := map[string]bool{}
	return p.object("instance_types", func(typ string) error {
		if !instanceTypeRE().MatchString(typ) {
			return p.errorf("instance type %q: want an EC2 instance type name such as p5.48xlarge", typ)
		}
		if seen[typ] {
			return p.errorf("instance type %q given twice", typ)
		}
		seen[typ] = true
		var accel string
		var count json.Number
		var rows []Row
		keys := map[string]bool{}
		if err := p.object(typ, func(key string) error {
			if keys[key] {
				return p.errorf("%s: key %q given twice", typ, key)
			}
			keys[key] = true
			switch key {
			case "accelerator_type":
				return p.decode(&accel)
			case "accelerator_count":
				return p.decode(&count)
			case "pricing":
				var err error
				rows, err = p.pricing(typ)
				return err
			default:
				var skip json.RawMessage
				return p.decode(&skip)
			}
		}); err != nil {
			return err
		}
		n, err := count.Int64()
		if err != nil || n < 1 || n > maxAccelerators {
			return p.errorf("%s accelerator_count %q: want a whole number from 1 to %d", typ, count, maxAccelerators)
		}
		if accel == "" {
			return p.errorf("%s: no accelerator_type", typ)
		}
		if len(rows) == 0 {
			return p.errorf("%s: no pricing rows", typ)
		}
		for i := range rows {
			r := &rows[i]
			r.InstanceType, r.AcceleratorType, r.AcceleratorCount = typ, accel, int(n)
			want := r.PerAccelerator.Mul(decimal.NewFromInt(n))
			if r.Hourly.Sub(want).Abs().GreaterThan(rateTolerance) {
				return fmt.Errorf("line %d: %s %s hourly_rate_usd %s is not accelerator_hourly_rate_usd %s × %d accelerators (%s)",
					r.Line, typ, r.RegionCode, r.Hourly, r.PerAccelerator, n, want)
			}
		}
		t.Rows = append(t.Rows, rows...)
		return nil
	})
}

type pricingJSON struct {
	Region      string      `json:"region"`
	RegionCode  string      `json:"region_code"`
	Hourly      json.Number `json:"hourly_rate_usd"`
	Accelerator json.Number `json:"accelerator_hourly_rate_usd"`
}

func (p *parser) pricing(typ string) ([]Row, error) {
	if err := p.delim('[', typ+".pricing"); err != nil {
		return nil, err
	}
	var out []Row
	seen := map[string]bool{}
	for p.dec.More() {
		line := p.nextValueLine()
		var pj pricingJSON
		if err := p.dec.Decode(&pj); err != nil {
			return nil, fmt.Errorf("line %d: %s pricing row: %v", line, typ, err)
		}
		where := fmt.Sprintf("line %d: %s", line, typ)
		if !regionCodeRE().MatchString(pj.RegionCode) {
			return nil, fmt.Errorf("%s region_code %q: want an AWS region or Local Zone code such as us-east-1 or us-east-1-atl-2a", where, pj.RegionCode)
		}
		if seen[pj.RegionCode] {
			return nil, fmt.Errorf("%s region_code %s given twice", where, pj.RegionCode)
		}
		seen[pj.RegionCode] = true
		hourly, err := rate(pj.Hourly)
		if err != nil {
			return nil, fmt.Errorf("%s %s hourly_rate_usd %q: %v", where, pj.RegionCode, pj.Hourly, err)
		}
		per, err := rate(pj.Accelerator)
		if err != nil {
			return nil, fmt.Errorf("%s %s accelerator_hourly_rate_usd %q: %v", where, pj.RegionCode, pj.Accelerator, err)
		}
		out = append(out, Row{Line: line, RegionName: pj.Region, RegionCode: pj.RegionCode, Hourly: hourly, PerAccelerator: per})
	}
	return out, p.delim(']', typ+".pricing")
}

// rate reads a price in USD per hour: above 0, at most 100,000.
func rate(n json.Number) (decimal.Decimal, error) {
	if n == "" {
		return decimal.Decimal{}, errors.New("missing: want a price in USD per hour")
	}
	d, err := money.ParseDecimal(string(n))
	if err != nil {
		return decimal.Decimal{}, err
	}
	if !d.IsPositive() || d.GreaterThan(decimal.NewFromInt(maxHourly)) {
		return decimal.Decimal{}, fmt.Errorf("want above 0 and at most %d USD per hour", maxHourly)
	}
	return d, nil
}
