package alibabalist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/money"
)

// MaxSize is the largest file Parse reads (the real table is 0.4 MB).
const MaxSize = 32 << 20

// Record is one price entry of the table.
type Record struct {
	Line         int // line of the instance type's key
	Region       string
	InstanceType string
	// Price is CNY per hour, zero or more: the table writes 0 where it has
	// no price, and the feed leaves such rows out.
	Price decimal.Decimal
}

// Parse reads the table {region: {instanceType: price}}. Every price must
// be a JSON number of 0 or more within money.ParseDecimal's bounds; regions
// and instance types must be non-empty and appear once each. Records come
// in file order.
func Parse(r io.Reader) ([]Record, error) {
	b, err := feeds.ReadBody(r, MaxSize)
	if err != nil {
		var tl *feeds.TooLargeError
		if errors.As(err, &tl) {
			return nil, fmt.Errorf("alibabalist: file larger than %d bytes (the limit)", MaxSize)
		}
		return nil, fmt.Errorf("alibabalist: %w", err)
	}
	p := &parser{data: b, dec: json.NewDecoder(bytes.NewReader(b)), line: 1}
	p.dec.UseNumber()
	return p.table()
}

// parser walks the JSON tokens and maps byte offsets to lines.
type parser struct {
	data []byte
	dec  *json.Decoder
	off  int // offset up to which lines were counted
	line int // line at off
}

func (p *parser) table() ([]Record, error) {
	if err := p.delim('{', "the file (want an object of regions)"); err != nil {
		return nil, err
	}
	var out []Record
	regions := map[string]int{}
	for p.dec.More() {
		region, line, err := p.key("region")
		if err != nil {
			return nil, err
		}
		if prev, ok := regions[region]; ok {
			return nil, fmt.Errorf("alibabalist: line %d: region %q is listed twice (first on line %d)", line, region, prev)
		}
		regions[region] = line
		if err := p.delim('{', fmt.Sprintf("region %q (want an object of instance types)", region)); err != nil {
			return nil, err
		}
		types := map[string]int{}
		for p.dec.More() {
			rec, err := p.price(region)
			if err != nil {
				return nil, err
			}
			if prev, ok := types[rec.InstanceType]; ok {
				return nil, fmt.Errorf("alibabalist: line %d: region %q: instance type %q is listed twice (first on line %d)", rec.Line, region, rec.InstanceType, prev)
			}
			types[rec.InstanceType] = rec.Line
			out = append(out, rec)
		}
		if err := p.delim('}', fmt.Sprintf("the end of region %q", region)); err != nil {
			return nil, err
		}
	}
	if err := p.delim('}', "the end of the file's object"); err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("alibabalist: line %d: data after the table's closing brace; want the end of the file", p.lineAt(p.offset()))
	}
	return out, nil
}

// price reads one "instanceType": price entry of region.
func (p *parser) price(region string) (Record, error) {
	typ, line, err := p.key("instance type")
	if err != nil {
		return Record{}, err
	}
	at := fmt.Sprintf("alibabalist: line %d: region %q, instance type %q", line, region, typ)
	tok, err := p.dec.Token()
	if err != nil {
		return Record{}, p.syntax(err, "a price")
	}
	num, ok := tok.(json.Number)
	if !ok {
		return Record{}, fmt.Errorf("%s: price %s is not a number; want CNY per hour, 0 or more", at, describe(tok))
	}
	d, err := money.ParseDecimal(string(num))
	if err != nil {
		return Record{}, fmt.Errorf("%s: price %q: %v; want CNY per hour, 0 or more", at, string(num), err)
	}
	if d.IsNegative() {
		return Record{}, fmt.Errorf("%s: price %q is negative; want CNY per hour, 0 or more", at, string(num))
	}
	return Record{Line: line, Region: region, InstanceType: typ, Price: d}, nil
}

// key reads an object key (what: "region", "instance type") and its line.
func (p *parser) key(what string) (string, int, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return "", 0, p.syntax(err, "a "+what)
	}
	line := p.lineAt(p.offset())
	s, ok := tok.(string)
	if !ok { // the decoder reports non-string keys as syntax errors; kept for safety
		return "", 0, fmt.Errorf("alibabalist: line %d: %s %s is not a string", line, what, describe(tok))
	}
	if s == "" || strings.TrimSpace(s) != s {
		return "", 0, fmt.Errorf("alibabalist: line %d: %s %q is empty or has surrounding spaces; want a name such as cn-hangzhou or ecs.gn7i-c8g1.2xlarge", line, what, s)
	}
	return s, line, nil
}

// delim reads the delimiter d, the start or end of what.
func (p *parser) delim(d json.Delim, what string) error {
	tok, err := p.dec.Token()
	if err != nil {
		return p.syntax(err, fmt.Sprintf("'%c' for %s", d, what))
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("alibabalist: line %d: %s at %s; want '%c'", p.lineAt(p.offset()), describe(tok), what, d)
	}
	return nil
}

// syntax turns a decoder error into one naming the line and what was expected.
func (p *parser) syntax(err error, want string) error {
	off := p.offset()
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off = int(se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("alibabalist: line %d: the file ends where %s should be (truncated?)", p.lineAt(len(p.data)), want)
	}
	return fmt.Errorf("alibabalist: line %d: malformed JSON where %s should be: %v", p.lineAt(off), want, err)
}

func (p *parser) offset() int { return int(p.dec.InputOffset()) }

// lineAt returns the 1-based line of byte offset off. Offsets only grow
// while parsing, so lines are counted once.
func (p *parser) lineAt(off int) int {
	off = min(max(off, 0), len(p.data))
	if off < p.off {
		return 1 + bytes.Count(p.data[:off], []byte{'\n'})
	}
	p.line += bytes.Count(p.data[p.off:off], []byte{'\n'})
	p.off = off
	return p.line
}

// describe writes a JSON token for an error message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q (a string)", v)
	case json.Delim:
		return fmt.Sprintf("'%c'", rune(v))
	case json.Number:
		return string(v)
	default:
		return fmt.Sprintf("%v", v)
	}
}
