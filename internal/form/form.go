// Package form is what each input of advise, offers and cost means, defined once
// for the command line and the HTTP API: a Form holds one value per input
// (the pflag.Value the CLI registers as its flag, with the same name, help
// and default), each set from its text by Set, and turns the whole set into
// the domain's request (Advise.Request, Offers.Query). `--for 7d` and
// {"for": "7d"} go through the same Set and say the same when wrong.
package form

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/gpuscout/gpuscout/internal/jsonfields"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Form is a set of named inputs. Its flag set is the CLI's: a command adds
// it to its own flags, so that what cobra parses lands here.
type Form struct {
	fs *pflag.FlagSet
}

func newForm(name string) Form {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	return Form{fs: fs}
}

// Flags is the form's inputs as flags, for a command to add.
func (f *Form) Flags() *pflag.FlagSet { return f.fs }

// Names lists the inputs, sorted.
func (f *Form) Names() []string {
	var out []string
	f.fs.VisitAll(func(fl *pflag.Flag) { out = append(out, fl.Name) })
	slices.Sort(out)
	return out
}

// Has reports whether name is an input of the form.
func (f *Form) Has(name string) bool { return f.fs.Lookup(name) != nil }

// Changed reports whether the input was set (by Set or on the command
// line), so that a value equal to the default still counts.
func (f *Form) Changed(name string) bool {
	fl := f.fs.Lookup(name)
	return fl != nil && fl.Changed
}

// Set reads one input from its text, as the flag --name text would. A
// repeatable input (credits, egress, provider, region) gains one item per
// call. The error is an *InputError.
func (f *Form) Set(name, text string) error {
	fl := f.fs.Lookup(name)
	if fl == nil {
		return f.unknown(name)
	}
	if len(text) > MaxTextLen {
		return inputErrorf(name, "--%s: %d characters; at most %d", name, len(text), MaxTextLen)
	}
	if err := f.fs.Set(name, text); err != nil {
		if fl.Value.Type() == "bool" { // pflag's own bool says strconv.ParseBool: parsing ...
			err = fmt.Errorf("invalid argument %q for \"--%s\" flag: want true or false", text, name)
		}
		return &InputError{Name: name, Err: err} // pflag's words: invalid argument "x" for "--name" flag: ...
	}
	return nil
}

// Bounds on what one input may carry, so that a request cannot make the
// parsers (or the engine, with thousands of credits) work without end.
const (
	MaxTextLen = 1000 // characters in one value
	MaxListLen = 100  // items of a repeatable input in one request
)

// unknown is the error for a name that is no input; own are the caller's
// names beside the inputs (the API's currency), listed as allowed too.
func (f *Form) unknown(name string, own ...string) *InputError {
	allowed := slices.Sorted(slices.Values(append(f.Names(), own...)))
	return &InputError{Name: name, Err: fmt.Errorf("unknown input; allowed: %s", strings.Join(allowed, ", ")), Unknown: true}
}

// InputError names the input a problem is with. Its text is the CLI's.
type InputError struct {
	Name string // the input (flag) name, without dashes
	Err  error
	// Unknown: the form has no input of that name.
	Unknown bool
}

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// inputErrorf is a problem with input name, in the CLI's words.
func inputErrorf(name, format string, a ...any) error {
	return &InputError{Name: name, Err: fmt.Errorf(format, a...)}
}

// SetJSON sets the inputs from a JSON object whose keys are the input
// names: a string is the flag's text; a number is its text as written; a
// boolean sets a switch (--no-spot); a list sets a repeatable input once per
// item (strings or numbers); egress also takes an object of GB by path,
// {"internet": 500}, as a usage file does. The keys named in own are the caller's, not
// inputs: their raw values are returned. Keys are read in sorted order;
// every problem is returned, each naming its input (or "body").
func (f *Form) SetJSON(body []byte, own ...string) (map[string]json.RawMessage, []*InputError) {
	// Strictly first (one value, each key once at any depth, bounded
	// numbers): encoding/json keeps the last of a repeated key.
	var obj map[string]json.RawMessage
	if err := jsonfields.Check(body, &obj, jsonfields.Limits{}); err != nil {
		return nil, []*InputError{{Name: "body", Err: fmt.Errorf("want a JSON object whose keys are the input names: %v", err)}}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&obj); err != nil || obj == nil {
		msg := "want a JSON object whose keys are the input names"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, []*InputError{{Name: "body", Err: fmt.Errorf("%s", msg)}}
	}
	if dec.More() {
		return nil, []*InputError{{Name: "body", Err: fmt.Errorf("one JSON object expected, found more data after it")}}
	}
	var bad []*InputError
	mine := map[string]json.RawMessage{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if slices.Contains(own, k) {
			mine[k] = obj[k]
			continue
		}
		if !f.Has(k) {
			bad = append(bad, f.unknown(k, own...))
			continue
		}
		if err := f.SetJSONValue(k, obj[k]); err != nil {
			bad = append(bad, err.(*InputError))
		}
	}
	return mine, bad
}

// SetJSONValue sets one input from its JSON value (see SetJSON).
func (f *Form) SetJSONValue(name string, raw json.RawMessage) error {
	fl := f.fs.Lookup(name)
	if fl == nil {
		return f.unknown(name)
	}
	if string(raw) == "null" {
		return inputErrorf(name, "null: give a value, or leave %s out", name)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return inputErrorf(name, "%v", err)
	}
	want := "a string in the flag's syntax"
	if isBool(fl) {
		want = "true or false"
	} else if IsRepeatable(fl) {
		want = "a string, or a list of strings (one per repeated flag)"
	}
	switch x := v.(type) {
	case string:
		return f.Set(name, x)
	case json.Number:
		if isBool(fl) {
			break
		}
		return f.Set(name, x.String())
	case bool:
		if !isBool(fl) {
			break
		}
		return f.Set(name, fmt.Sprint(x))
	case map[string]any:
		if fl.Value.Type() != "PATH=GB" { // egress: {"internet": 500}, as in a usage file
			break
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			n, ok := x[k].(json.Number)
			if !ok {
				return inputErrorf(name, "%s: want a number of GB", k)
			}
			if err := f.Set(name, k+"="+n.String()); err != nil {
				return err
			}
		}
		return nil
	case []any:
		if !IsRepeatable(fl) {
			break
		}
		if len(x) > MaxListLen {
			return inputErrorf(name, "%d items; at most %d", len(x), MaxListLen)
		}
		for i, item := range x {
			var text string
			switch it := item.(type) {
			case string:
				text = it
			case json.Number:
				text = it.String()
			default:
				return inputErrorf(name, "item %d: want a string", i+1)
			}
			if err := f.Set(name, text); err != nil {
				return err
			}
		}
		return nil
	}
	return inputErrorf(name, "got %s; want %s", raw, want)
}

// SetQuery sets the inputs from URL query parameters named as the inputs;
// a repeated parameter sets a repeatable input once per value, and a switch
// given without a value (?spot) is on, as the flag alone is. Parameters
// named in own are the caller's and skipped.
func (f *Form) SetQuery(v url.Values, own ...string) []*InputError {
	var bad []*InputError
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if slices.Contains(own, k) {
			continue
		}
		fl := f.fs.Lookup(k)
		if fl == nil {
			bad = append(bad, f.unknown(k, own...))
			continue
		}
		if len(v[k]) > MaxListLen {
			bad = append(bad, inputErrorf(k, "%d values; at most %d", len(v[k]), MaxListLen).(*InputError))
			continue
		}
		for _, text := range v[k] {
			if text == "" && fl.NoOptDefVal != "" {
				text = fl.NoOptDefVal
			}
			if err := f.Set(k, text); err != nil {
				bad = append(bad, err.(*InputError))
				break
			}
		}
	}
	return bad
}

func isBool(fl *pflag.Flag) bool { return fl.Value.Type() == "bool" }

// IsRepeatable reports whether the flag collects a value per use (credits,
// egress, pflag's lists); every other flag holds one value.
func IsRepeatable(fl *pflag.Flag) bool {
	if _, ok := fl.Value.(repeatable); ok {
		return true
	}
	_, ok := fl.Value.(pflag.SliceValue)
	return ok
}

// boolVar registers a switch: --name alone is true.
func (f *Form) boolVar(p *bool, name, usage string) {
	fl := f.fs.VarPF(&boolValue{b: p}, name, "", usage)
	fl.NoOptDefVal = "true"
}
