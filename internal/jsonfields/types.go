package jsonfields

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// kind is what JSON a Go type takes.
type kind uint8

const (
	kAny     kind = iota // interface{}, json.RawMessage, a type with its own UnmarshalJSON: any value
	kBool                // true or false
	kString              // a string (also a TextUnmarshaler)
	kInt                 // a whole number within bits
	kUint                // a whole number ≥ 0 within bits
	kFloat               // a number
	kNumber              // json.Number: a number, never a string
	kDecimal             // decimal.Decimal: a number, or a string holding one
	kTime                // time.Time: an RFC 3339 string
	kBytes               // []byte: a base64 string
	kStruct              // an object of declared fields
	kMap                 // an object of any keys
	kSlice               // an array (a slice or a Go array)
	kPtr                 // a pointer: null, or what elem takes
)

// info is what a Go type accepts; built once per type.
type info struct {
	kind     kind
	bits     int
	nullable bool             // null is allowed (pointer, map, slice, interface)
	elem     *info            // kMap, kSlice, kPtr
	fields   map[string]*info // kStruct: by JSON name, exact case
	names    []string         // kStruct: the names, sorted, for messages
}

var (
	infoMu    sync.Mutex
	infoCache sync.Map // reflect.Type → *info

	anyInfo = &info{kind: kAny, nullable: true}

	rawType         = reflect.TypeFor[json.RawMessage]()
	numberType      = reflect.TypeFor[json.Number]()
	timeType        = reflect.TypeFor[time.Time]()
	decimalType     = reflect.TypeFor[decimal.Decimal]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// infoOf describes t, from the cache when it was described before.
func infoOf(t reflect.Type) *info {
	if v, ok := infoCache.Load(t); ok {
		return v.(*info)
	}
	infoMu.Lock()
	defer infoMu.Unlock()
	building := map[reflect.Type]*info{}
	in := build(t, building)
	for bt, bi := range building {
		infoCache.Store(bt, bi)
	}
	return in
}

// build describes t; building holds the types being described, so that a
// recursive type refers to itself.
func build(t reflect.Type, building map[reflect.Type]*info) *info {
	if v, ok := infoCache.Load(t); ok {
		return v.(*info)
	}
	if in, ok := building[t]; ok {
		return in
	}
	in := &info{}
	building[t] = in
	pt := reflect.PointerTo(t)
	switch {
	case t == rawType:
		*in = info{kind: kAny, nullable: true}
		return in
	case t == numberType:
		in.kind = kNumber
		return in
	case t == timeType:
		in.kind = kTime
		return in
	case t == decimalType:
		in.kind = kDecimal
		return in
	case t.Kind() != reflect.Pointer && (t.Implements(unmarshalerType) || pt.Implements(unmarshalerType)):
		*in = info{kind: kAny, nullable: true}
		return in
	case t.Kind() != reflect.Pointer && (t.Implements(textType) || pt.Implements(textType)):
		in.kind = kString
		return in
	}
	switch t.Kind() {
	case reflect.Pointer:
		in.kind, in.nullable, in.elem = kPtr, true, build(t.Elem(), building)
	case reflect.Interface:
		*in = *anyInfo
	case reflect.Bool:
		in.kind = kBool
	case reflect.String:
		in.kind = kString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		in.kind, in.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		in.kind, in.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		in.kind, in.bits = kFloat, t.Bits()
	case reflect.Map:
		in.kind, in.nullable, in.elem = kMap, true, build(t.Elem(), building)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(unmarshalerType) && !reflect.PointerTo(t.Elem()).Implements(textType) {
			in.kind, in.nullable = kBytes, true
			break
		}
		in.kind, in.nullable, in.elem = kSlice, true, build(t.Elem(), building)
	case reflect.Array:
		in.kind, in.elem = kSlice, build(t.Elem(), building)
	case reflect.Struct:
		in.kind, in.fields = kStruct, map[string]*info{}
		structFields(t, in, building, 0)
		for name := range in.fields {
			in.names = append(in.names, name)
		}
		slices.Sort(in.names)
	default: // chan, func, complex: encoding/json refuses them itself
		*in = *anyInfo
	}
	return in
}

// structFields adds t's JSON fields to in as encoding/json names them: the
// tag's name or the Go name, "-" left out, an untagged embedded struct's
// fields promoted unless a shallower field has the name.
func structFields(t reflect.Type, in *info, building map[reflect.Type]*info, depth int) {
	if depth > 8 {
		return
	}
	var embedded []reflect.Type
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if name == "" && ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
			if !sf.IsExported() {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, ok := in.fields[name]; ok {
			continue
		}
		fi := build(sf.Type, building)
		if slices.Contains(strings.Split(opts, ","), "string") {
			fi = anyInfo // ",string": a quoted scalar, read by encoding/json
		}
		in.fields[name] = fi
	}
	for _, et := range embedded {
		structFields(et, in, building, depth+1)
	}
}

// want says what a kind takes, for messages.
func (in *info) want() string {
	switch in.kind {
	case kBool:
		return "true or false"
	case kString:
		return "a string"
	case kInt, kUint:
		return "a whole number"
	case kFloat, kNumber:
		return "a number"
	case kDecimal:
		return "a number"
	case kTime:
		return `a time such as "2026-11-30T21:04:05Z"`
	case kBytes:
		return "a base64 string"
	case kStruct, kMap:
		return "an object"
	case kSlice:
		return "an array"
	case kPtr:
		return in.elem.want() + " or null"
	}
	return "a JSON value"
}
