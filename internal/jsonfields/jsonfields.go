// Package jsonfields reads uploaded and user-written JSON documents
// strictly, as yamlfields reads YAML: one JSON value and nothing after it
// but whitespace, no key given twice in any object, no field the Go type
// does not declare (a map or an `any` keeps what it is given, explicitly),
// every number a finite float64 within a bound and written with at most
// MaxDecimalPlaces decimal places, every value of the type its field wants,
// the document at most a size. Errors name the JSON path of the field
// (measurements[3].value), the byte offset and what is allowed.
//
// encoding/json alone takes the last of two equal keys, matches keys
// without regard to case, ignores what follows the first value (a
// json.Decoder) and stores 1e3000000 in a json.Number or a decimal, which a
// page that renders it then spends seconds formatting: each document kind
// (benchreport, plandoc, agentsummary) and the spot traces read through here.
package jsonfields

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// Limits bound a document; a zero field takes its default.
type Limits struct {
	MaxBytes  int64   // the document's size in bytes (DefaultMaxBytes)
	MaxNumber float64 // the largest magnitude of any number (DefaultMaxNumber)
	MaxDepth  int     // the deepest nesting of objects and arrays (DefaultMaxDepth)
}

// Defaults of Limits, and the finest precision a number may be written with.
const (
	DefaultMaxBytes  = 16 << 20
	DefaultMaxNumber = 1e15
	DefaultMaxDepth  = 64
	// MaxDecimalPlaces bounds the digits after the point a number is written
	// with (its exponent counted): 0.1 has 1, 1.5e-7 has 8; 1e-61 is refused.
	// Decimal arithmetic on such a number (a json.Number or a decimal read
	// back for a page) would otherwise take time and memory by its exponent.
	MaxDecimalPlaces = 60
	// maxExponent bounds the decimal exponent of a number's last digit, for
	// a zero written as 0e999999 that the magnitude bound does not see.
	maxExponent = 30
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if !(l.MaxNumber > 0) {
		l.MaxNumber = DefaultMaxNumber
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// Error is a document that is not what its type allows: Path is the JSON
// path of the field at fault ("" for the document itself), Offset the byte
// where its key or value begins.
type Error struct {
	Path   string
	Offset int64
	Msg    string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("at byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("field %s at byte %d: %s", e.Path, e.Offset, e.Msg)
}

// ErrTooLarge marks a document over Limits.MaxBytes (errors.Is).
var ErrTooLarge = errors.New("document too large")

// tooLarge is an *Error that is also ErrTooLarge.
type tooLarge struct{ err *Error }

func (e *tooLarge) Error() string   { return e.err.Error() }
func (e *tooLarge) Unwrap() []error { return []error{e.err, ErrTooLarge} }

func overLimit(max int64) error {
	return &tooLarge{&Error{Offset: max, Msg: fmt.Sprintf("the document is over the limit of %d bytes", max)}}
}

// Read reads a whole document of at most lim.MaxBytes bytes.
func Read(r io.Reader, lim Limits) ([]byte, error) {
	lim = lim.withDefaults()
	b, err := io.ReadAll(io.LimitReader(r, lim.MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > lim.MaxBytes {
		return nil, overLimit(lim.MaxBytes)
	}
	return b, nil
}

// Check reports whether b is one JSON value that v (a pointer) can hold
// under the rules of the package comment; v is not changed.
func Check(b []byte, v any, lim Limits) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return fmt.Errorf("jsonfields: Check of a %v; want a pointer", t)
	}
	lim = lim.withDefaults()
	if int64(len(b)) > lim.MaxBytes {
		return overLimit(lim.MaxBytes)
	}
	s := &scanner{b: b, lim: lim}
	return s.document(infoOf(t.Elem()))
}

// Unmarshal checks b (Check) and stores it in v.
func Unmarshal(b []byte, v any, lim Limits) error {
	if err := Check(b, v, lim); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return unmarshalError(err)
	}
	return nil
}

// Decode reads one document from r (Read) and stores it in v (Unmarshal).
func Decode(r io.Reader, v any, lim Limits) error {
	b, err := Read(r, lim)
	if err != nil {
		return err
	}
	return Unmarshal(b, v, lim)
}

// unmarshalError words what encoding/json refused after Check passed (a
// value a type's own UnmarshalJSON refuses).
func unmarshalError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &Error{Path: te.Field, Offset: te.Offset, Msg: fmt.Sprintf("a JSON %s is not allowed here", te.Value)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Error{Offset: se.Offset, Msg: "not valid JSON: " + se.Error()}
	}
	return &Error{Msg: err.Error()}
}
