package azuretable

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// MaxLineBytes is the longest line Parse reads (the real table's longest
// is under 100 bytes); a longer one is refused.
const MaxLineBytes = 4096

// Record is one price entry of the table: a "key": price line inside a
// region's map.
type Record struct {
	Line   int    // 1-based line of the entry
	Region string // the region whose map holds it (eastus)
	// Key is the key exactly as written between the quotes (unescaped);
	// Size is Key without surrounding spaces, the name gpuscout uses.
	Key, Size string
	Price     decimal.Decimal // USD per hour, 0 or more
	Text      string          // the price literal as written (98.320000)
}

// Normalized reports whether the key as written had surrounding spaces
// that Size drops.
func (r Record) Normalized() bool { return r.Key != r.Size }

// Table is a parsed price file.
type Table struct {
	GeneratedAt time.Time // the file's "generated at" stamp
	Regions     []string  // in file order
	Records     []Record  // in file order
}

// Normalized returns the records whose key Parse trimmed.
func (t *Table) Normalized() []Record {
	var out []Record
	for _, r := range t.Records {
		if r.Normalized() {
			out = append(out, r)
		}
	}
	return out
}

var (
	generatedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^//\s*generated at\s+(\S+)\s*$`) })
	updateRE    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^var\s+InitialPriceUpdate\s*,\s*_\s*=\s*time\.Parse\(\s*time\.RFC3339\s*,\s*"([^"]*)"\s*\)\s*$`)
	})
	declRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^var\s+initialOnDemandPrices\s*=\s*map\[string\]map\[string\]float64\s*\{\s*\}\s*$`)
	})
	initRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^func\s+init\(\)\s*\{\s*$`) })
	headerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^initialOnDemandPrices\s*\[\s*"([^"\\]*)"\s*\]\s*=\s*map\[string\]float64\s*\{\s*$`)
	})
	entryRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^"((?:[^"\\]|\\.)*)"\s*:\s*([^\s,]*)\s*,\s*$`) })
	regionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]{1,40}$`) })
	// numberRE is a Go decimal float or integer literal without sign,
	// underscores or hexadecimal: what the generator writes (%f).
	numberRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)
	})
)

type state int

const (
	preamble state = iota // before func init() {
	inInit                // inside init, between region maps
	inRegion              // inside a region's map
	done                  // after init's closing brace
)

// parser holds what Parse has read so far.
type parser struct {
	t         Table
	st        state
	line      int
	region    string         // the open region (inRegion)
	regionAt  int            // its header's line
	regions   map[string]int // region -> header line
	sizes     map[string]int // size -> line, in the open region
	generated string         // the "generated at" stamp as written
	update    string         // InitialPriceUpdate's stamp as written
	declared  bool           // the initialOnDemandPrices declaration was read
}

// Parse reads the generated price file. It accepts only the generated
// shape (see the package documentation): anything else, a price that is not
// a decimal number of 0 or more within money.ParseDecimal's bounds, a key
// listed twice in a region, a region listed twice, or a file that ends
// before init's closing brace is an error naming the line and the text.
func Parse(r io.Reader) (*Table, error) {
	p := &parser{regions: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1024), MaxLineBytes)
	for sc.Scan() {
		p.line++
		if err := p.next(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("azuretable: line %d: longer than %d bytes; want one entry a line", p.line+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("azuretable: line %d: %w", p.line+1, err)
	}
	return p.finish()
}

// next reads one line (without its newline).
func (p *parser) next(line string) error {
	s := strings.TrimSpace(line)
	switch p.st {
	case preamble:
		return p.preambleLine(s)
	case inInit:
		return p.initLine(s)
	case inRegion:
		return p.regionLine(s)
	}
	if s != "" {
		return p.errorf("%s after the closing brace of init; want the end of the file", quote(s))
	}
	return nil
}

func (p *parser) preambleLine(s string) error {
	if m := generatedRE().FindStringSubmatch(s); m != nil {
		return p.stamp(&p.generated, m[1], `the "generated at" comment`)
	}
	if m := updateRE().FindStringSubmatch(s); m != nil {
		return p.stamp(&p.update, m[1], "InitialPriceUpdate")
	}
	switch {
	case declRE().MatchString(s):
		p.declared = true
	case initRE().MatchString(s):
		if p.generated == "" || !p.declared {
			return p.errorf(`func init() before the "// generated at" stamp and the initialOnDemandPrices declaration; want Karpenter's generated zz_generated.pricing.go`)
		}
		p.st = inInit
	case headerRE().MatchString(s), entryRE().MatchString(s):
		return p.errorf("%s before func init() {; want the generated file's header first", quote(s))
	}
	return nil
}

// stamp reads a generation time; the comment and InitialPriceUpdate must agree.
func (p *parser) stamp(dst *string, v, what string) error {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return p.errorf("%s %q is not an RFC 3339 time (2026-06-18T03:43:41Z)", what, v)
	}
	if *dst != "" {
		return p.errorf("%s is given twice", what)
	}
	*dst = v
	if p.generated != "" && p.update != "" && p.generated != p.update {
		return p.errorf(`InitialPriceUpdate %q and the "generated at" comment %q differ`, p.update, p.generated)
	}
	p.t.GeneratedAt = t.UTC()
	return nil
}

func (p *parser) initLine(s string) error {
	switch {
	case s == "" || strings.HasPrefix(s, "//"):
		return nil
	case s == "}":
		p.st = done
		return nil
	}
	m := headerRE().FindStringSubmatch(s)
	if m == nil {
		return p.errorf(`%s inside func init(); want initialOnDemandPrices["region"] = map[string]float64{, a comment or init's closing brace`, quote(s))
	}
	region := m[1]
	if !regionRE().MatchString(region) {
		return p.errorf("region %q is not an Azure region name (lower-case letters and digits, such as eastus)", region)
	}
	if prev, ok := p.regions[region]; ok {
		return p.errorf("region %q is listed twice (first on line %d)", region, prev)
	}
	p.regions[region] = p.line
	p.t.Regions = append(p.t.Regions, region)
	p.st, p.region, p.regionAt, p.sizes = inRegion, region, p.line, map[string]int{}
	return nil
}

func (p *parser) regionLine(s string) error {
	switch {
	case s == "" || strings.HasPrefix(s, "//"):
		return nil
	case s == "}":
		p.st, p.region = inInit, ""
		return nil
	}
	m := entryRE().FindStringSubmatch(s)
	if m == nil {
		return p.errorf(`region %q: %s; want a "size": price, entry or the map's closing brace`, p.region, quote(s))
	}
	key, err := strconv.Unquote(`"` + m[1] + `"`)
	if err != nil {
		return p.errorf("region %q: key %s is not a valid Go string", p.region, quote(`"`+m[1]+`"`))
	}
	size := strings.TrimSpace(key)
	at := fmt.Sprintf("region %q, key %q", p.region, key)
	switch {
	case size == "":
		return p.errorf("%s: the key is empty; want a size name such as Standard_ND96isr_H100_v5", at)
	case !numberRE().MatchString(m[2]):
		return p.errorf("%s: price %q is not a decimal number of 0 or more; want USD per hour such as 98.320000", at, m[2])
	}
	price, err := money.ParseDecimal(m[2])
	if err != nil {
		return p.errorf("%s: price %q: %v; want USD per hour such as 98.320000", at, m[2], err)
	}
	if prev, ok := p.sizes[size]; ok {
		return p.errorf("%s: size %q is listed twice in the region (first on line %d)", at, size, prev)
	}
	p.sizes[size] = p.line
	p.t.Records = append(p.t.Records, Record{Line: p.line, Region: p.region, Key: key, Size: size, Price: price, Text: m[2]})
	return nil
}

// finish checks the file ended where it should.
func (p *parser) finish() (*Table, error) {
	switch p.st {
	case preamble:
		return nil, fmt.Errorf("azuretable: line %d: the file ends before func init() {; want Karpenter's generated zz_generated.pricing.go (truncated?)", p.line)
	case inInit:
		return nil, fmt.Errorf("azuretable: line %d: the file ends inside func init(), without its closing brace (truncated?)", p.line)
	case inRegion:
		return nil, fmt.Errorf("azuretable: line %d: the file ends inside region %q's map (opened on line %d) (truncated?)", p.line, p.region, p.regionAt)
	}
	if len(p.t.Regions) == 0 {
		return nil, fmt.Errorf("azuretable: line %d: func init() holds no region's map; want initialOnDemandPrices[\"region\"] = map[string]float64{...}", p.line)
	}
	return &p.t, nil
}

func (p *parser) errorf(format string, a ...any) error {
	return fmt.Errorf("azuretable: line %d: %s", p.line, fmt.Sprintf(format, a...))
}

// quote writes a line for an error message, cut to 80 characters.
func quote(s string) string {
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return strconv.Quote(s)
}
