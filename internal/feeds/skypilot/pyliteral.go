package skypilot

import (
	"fmt"
	"strconv"
	"strings"
)

// parsePyLiteral parses the subset of Python literal syntax that SkyPilot
// writes into its GpuInfo column: dicts, lists, single- or double-quoted
// strings, ints, floats, True, False and None. It returns map[string]any,
// []any, string, float64, bool or nil.
func parsePyLiteral(s string) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errf("unexpected %q after the value", p.s[p.i:min(p.i+10, len(p.s))])
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

const maxPyDepth = 32

func (p *pyParser) errf(format string, a ...any) error {
	return fmt.Errorf("GpuInfo offset %d: %s", p.i, fmt.Sprintf(format, a...))
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > maxPyDepth {
		return nil, p.errf("nested deeper than %d", maxPyDepth)
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.list(depth)
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for word, v := range map[string]any{"True": true, "False": false, "None": nil} {
			if strings.HasPrefix(p.s[p.i:], word) {
				p.i += len(word)
				return v, nil
			}
		}
		return nil, p.errf("unexpected %q", c)
	}
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	m := map[string]any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		ks, ok := k.(string)
		if !ok {
			return nil, p.errf("dict key %v is not a string", k)
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errf("want ':' after key %q", ks)
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[ks] = v
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		return nil, p.errf("want ',' or '}' in dict")
	}
}

func (p *pyParser) list(depth int) (any, error) {
	p.i++ // [
	var l []any
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return l, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return l, nil
		}
		return nil, p.errf("want ',' or ']' in list")
	}
}

func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
		p.i++
	}
	return nil, p.errf("unterminated string")
}

func (p *pyParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-.0123456789eE", p.s[p.i]) >= 0 {
		p.i++
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		return nil, p.errf("bad number %q", p.s[start:p.i])
	}
	return f, nil
}
