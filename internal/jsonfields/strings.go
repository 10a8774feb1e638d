package jsonfields

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// str checks the string at s.i and returns it with its quotes.
func (s *scanner) str() ([]byte, error) {
	start := s.i
	s.i++
	ascii := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			raw := s.b[start:s.i]
			if !ascii && !utf8.Valid(raw) {
				return nil, s.errAt(start, "a string that is not valid UTF-8")
			}
			return raw, nil
		case c == '\\':
			if s.i+1 == len(s.b) {
				return nil, s.errAt(s.i, "the JSON ends early inside a string")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex(s.b[s.i+2:s.i+6]) {
					return nil, s.errAt(s.i, "not valid JSON: \\u wants four hex digits")
				}
				s.i += 6
			default:
				return nil, s.errAt(s.i, "not valid JSON: unknown escape \\%c in a string", s.b[s.i+1])
			}
		case c < 0x20:
			return nil, s.errAt(s.i, "not valid JSON: a control character (%#x) in a string; write it escaped", c)
		default:
			if c >= 0x80 {
				ascii = false
			}
			s.i++
		}
	}
	return nil, s.errAt(start, "the JSON ends early inside a string")
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// unquote is the string a checked JSON string stands for.
func unquote(raw []byte) (string, error) {
	b, err := unquoteBytes(raw)
	return string(b), err
}

// unquoteBytes is unquote without a copy where the string has no escape.
func unquoteBytes(raw []byte) ([]byte, error) {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, nil
	}
	var v string
	err := json.Unmarshal(raw, &v)
	return []byte(v), err
}
