package jsonfields

import (
	"bytes"
	"strconv"
	"strings"
)

// number checks a number's syntax and returns it as written.
func (s *scanner) number() ([]byte, error) {
	start := s.i
	n := numberLen(s.b[s.i:])
	if n == 0 {
		end := s.i + 1
		for end < len(s.b) && strings.IndexByte("+-.eE0123456789", s.b[end]) >= 0 {
			end++
		}
		return nil, s.errAt(start, "not valid JSON: %s is not a number", excerpt(s.b[start:end]))
	}
	s.i += n
	return s.b[start:s.i], nil
}

// numberLen is the length of the JSON number b starts with; 0 for none.
func numberLen(b []byte) int {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0
		}
	}
	return i
}

// validNumber: s is exactly one JSON number.
func validNumber(s string) bool {
	return s != "" && numberLen([]byte(s)) == len(s)
}

// bounds checks a number as written against the limits and the kind:
// finite, of magnitude at most MaxNumber, at most MaxDecimalPlaces places,
// whole for an integer field. lit is converted to a string only for a
// message: a document's numbers are read without allocating.
func (s *scanner) bounds(at int, lit []byte, in *info) error {
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || v > s.lim.MaxNumber || v < -s.lim.MaxNumber {
		return s.errAt(at, "number %s is outside the allowed range: want a number from %g to %g", short(lit), -s.lim.MaxNumber, s.lim.MaxNumber)
	}
	if e := lastDigitExponent(lit); e < -MaxDecimalPlaces || e > maxExponent {
		return s.errAt(at, "number %s is written with an exponent beyond what is allowed: want at most %d decimal places and a magnitude up to %g", short(lit), MaxDecimalPlaces, s.lim.MaxNumber)
	}
	switch in.kind {
	case kInt, kUint:
		if bytes.ContainsAny(lit, ".eE") {
			return s.errAt(at, "number %s is not a whole number; want a whole number", short(lit))
		}
		if in.kind == kUint && lit[0] == '-' && v != 0 {
			return s.errAt(at, "number %s is negative; want a whole number ≥ 0", short(lit))
		}
		if in.kind == kInt {
			if _, err := strconv.ParseInt(string(lit), 10, in.bits); err != nil {
				return s.errAt(at, "number %s does not fit a %d-bit whole number", short(lit), in.bits)
			}
		} else if _, err := strconv.ParseUint(string(bytes.TrimPrefix(lit, []byte("-"))), 10, in.bits); err != nil {
			return s.errAt(at, "number %s does not fit a %d-bit whole number", short(lit), in.bits)
		}
	case kFloat:
		if in.bits == 32 {
			if _, err := strconv.ParseFloat(string(lit), 32); err != nil {
				return s.errAt(at, "number %s does not fit a 32-bit number", short(lit))
			}
		}
	}
	return nil
}

// lastDigitExponent is the decimal exponent of the last digit a number is
// written with: 1.50 → -2, 15e3 → 3, 2 → 0. The exponent part is read with
// saturation, so 1e99999999999999999999 is large, not wrapped.
func lastDigitExponent(lit []byte) int {
	mant, exp := lit, []byte(nil)
	if i := bytes.IndexAny(lit, "eE"); i >= 0 {
		mant, exp = lit[:i], lit[i+1:]
	}
	e := 0
	if len(exp) > 0 {
		neg := exp[0] == '-'
		for _, c := range bytes.TrimLeft(exp, "+-") {
			if e < 1e6 {
				e = e*10 + int(c-'0')
			}
		}
		if neg {
			e = -e
		}
	}
	if i := bytes.IndexByte(mant, '.'); i >= 0 {
		e -= len(mant) - i - 1
	}
	return e
}

// short is at most 40 characters of a number, for a message.
func short(lit []byte) string {
	if len(lit) > 40 {
		return string(lit[:40]) + "…"
	}
	return string(lit)
}
