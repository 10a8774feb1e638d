package jsonfields

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// scanner walks one document and the type it is read into together.
type scanner struct {
	b     []byte
	i     int
	lim   Limits
	path  []step
	depth int
}

// step is one level of the path: an object's key (its bytes, unquoted)
// or an array's index.
type step struct {
	key   []byte
	index int
	isKey bool
}

// pathString writes the path: measurements[3].value, cost_breakdown["spot overhead"].
func (s *scanner) pathString() string {
	var b strings.Builder
	for _, st := range s.path {
		switch {
		case !st.isKey:
			fmt.Fprintf(&b, "[%d]", st.index)
		case plainKey(string(st.key)):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(st.key)
		default:
			b.WriteString("[" + strconv.Quote(string(st.key)) + "]")
		}
	}
	return b.String()
}

// plainKey: a key written bare in a path (letters, digits, _ and -).
func plainKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (s *scanner) errAt(off int, format string, a ...any) error {
	return &Error{Path: s.pathString(), Offset: int64(off), Msg: fmt.Sprintf(format, a...)}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// document checks the one value and that nothing but whitespace follows.
func (s *scanner) document(in *info) error {
	s.ws()
	if s.i == len(s.b) {
		return s.errAt(s.i, "the document is empty; want %s", in.want())
	}
	if err := s.value(in); err != nil {
		return err
	}
	s.ws()
	if s.i < len(s.b) {
		return s.errAt(s.i, "data after the JSON value (%s); a document holds one JSON value and nothing after it but whitespace", excerpt(s.b[s.i:]))
	}
	return nil
}

// excerpt quotes the start of b for a message.
func excerpt(b []byte) string {
	if len(b) > 20 {
		return strconv.Quote(string(b[:20])) + "…"
	}
	return strconv.Quote(string(b))
}

// got names the JSON value starting at c, for messages.
func got(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "true/false"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return fmt.Sprintf("the character %q", c)
}

// value checks the value at s.i against in.
func (s *scanner) value(in *info) error {
	s.ws()
	if s.i == len(s.b) {
		return s.errAt(s.i, "the JSON ends early; want %s", in.want())
	}
	start, c := s.i, s.b[s.i]
	if in.kind == kPtr && c != 'n' {
		in = in.elem
		for in.kind == kPtr {
			in = in.elem
		}
	}
	switch {
	case c == '{':
		if in.kind != kAny && in.kind != kStruct && in.kind != kMap {
			return s.mismatch(start, c, in)
		}
		return s.object(in)
	case c == '[':
		if in.kind != kAny && in.kind != kSlice {
			return s.mismatch(start, c, in)
		}
		return s.array(in)
	case c == '"':
		raw, err := s.str()
		if err != nil {
			return err
		}
		switch in.kind {
		case kAny, kString, kBytes:
			return nil
		case kTime:
			v, err := unquote(raw)
			if err == nil {
				_, err = time.Parse(time.RFC3339, v)
			}
			if err != nil {
				return s.errAt(start, "%s is not a time; want %s", excerpt(raw), in.want())
			}
			return nil
		case kDecimal:
			v, err := unquote(raw)
			if err == nil && !validNumber(v) {
				err = fmt.Errorf("not a number")
			}
			if err != nil {
				return s.errAt(start, "%s is not a number; want a number", excerpt(raw))
			}
			return s.bounds(start, []byte(v), in)
		}
		return s.mismatch(start, c, in)
	case c == 't' || c == 'f':
		lit := "true"
		if c == 'f' {
			lit = "false"
		}
		if err := s.literal(lit); err != nil {
			return err
		}
		if in.kind != kAny && in.kind != kBool {
			return s.mismatch(start, c, in)
		}
		return nil
	case c == 'n':
		if err := s.literal("null"); err != nil {
			return err
		}
		if !in.nullable {
			return s.errAt(start, "null is not allowed here; want %s", in.want())
		}
		return nil
	case c == '-' || c >= '0' && c <= '9':
		lit, err := s.number()
		if err != nil {
			return err
		}
		switch in.kind {
		case kAny, kInt, kUint, kFloat, kNumber, kDecimal:
			return s.bounds(start, lit, in)
		}
		return s.mismatch(start, c, in)
	}
	return s.errAt(start, "not valid JSON: unexpected %s; want %s", got(c), in.want())
}

// mismatch is the error of a value of the wrong kind at start.
func (s *scanner) mismatch(start int, c byte, in *info) error {
	return s.errAt(start, "%s is not allowed here; want %s", got(c), in.want())
}

func (s *scanner) literal(lit string) error {
	if !strings.HasPrefix(string(s.b[s.i:min(len(s.b), s.i+len(lit))]), lit) {
		return s.errAt(s.i, "not valid JSON: %s is not a JSON value", excerpt(s.b[s.i:min(len(s.b), s.i+len(lit))]))
	}
	s.i += len(lit)
	return nil
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > s.lim.MaxDepth {
		return s.errAt(s.i, "nested deeper than %d objects and arrays", s.lim.MaxDepth)
	}
	return nil
}

// object checks an object: each key once, each known to a struct.
func (s *scanner) object(in *info) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.i++ // {
	var seen [][]byte
	var seenSet map[string]bool
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return nil
	}
	for {
		s.ws()
		if s.i == len(s.b) {
			return s.errAt(s.i, "the JSON ends early inside an object")
		}
		if s.b[s.i] != '"' {
			return s.errAt(s.i, "not valid JSON: %s where an object's key (a string) should be", got(s.b[s.i]))
		}
		keyAt := s.i
		raw, err := s.str()
		if err != nil {
			return err
		}
		key, err := unquoteBytes(raw)
		if err != nil {
			return s.errAt(keyAt, "not valid JSON: key %s: %v", excerpt(raw), err)
		}
		// Each key once: a small object is searched, a large one hashed.
		dup := false
		if seenSet != nil {
			dup = seenSet[string(key)]
			seenSet[string(key)] = true
		} else {
			for _, k := range seen {
				if bytes.Equal(k, key) {
					dup = true
					break
				}
			}
			seen = append(seen, key)
			if len(seen) > 16 {
				seenSet = make(map[string]bool, 32)
				for _, k := range seen {
					seenSet[string(k)] = true
				}
			}
		}
		s.path = append(s.path, step{key: key, isKey: true})
		if dup {
			return s.errAt(keyAt, "given twice in the same object; give each field once")
		}
		elem := in.elem
		switch in.kind {
		case kAny:
			elem = anyInfo
		case kStruct:
			elem = in.fields[string(key)]
			if elem == nil {
				return s.errAt(keyAt, "unknown field; allowed: %s", strings.Join(in.names, ", "))
			}
		}
		s.ws()
		if s.i == len(s.b) || s.b[s.i] != ':' {
			return s.errAt(s.i, "not valid JSON: want a colon after the key")
		}
		s.i++
		if err := s.value(elem); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		if done, err := s.afterItem('}', "an object", "value"); done || err != nil {
			return err
		}
	}
}

// array checks an array's items against in's element.
func (s *scanner) array(in *info) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.i++ // [
	elem := in.elem
	if in.kind == kAny {
		elem = anyInfo
	}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return nil
	}
	for n := 0; ; n++ {
		s.path = append(s.path, step{index: n})
		if err := s.value(elem); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		if done, err := s.afterItem(']', "an array", "item"); done || err != nil {
			return err
		}
	}
}

// afterItem reads what follows an object's value or an array's item: a
// comma (another comes), or the closing bracket (done, the depth left).
func (s *scanner) afterItem(closing byte, what, item string) (done bool, err error) {
	s.ws()
	if s.i == len(s.b) {
		return false, s.errAt(s.i, "the JSON ends early inside %s", what)
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, nil
	case closing:
		s.i++
		s.depth--
		return true, nil
	}
	return false, s.errAt(s.i, "not valid JSON: %s after %s's %s; want , or %c", got(s.b[s.i]), what, item, closing)
}
