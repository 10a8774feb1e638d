package jsonfields

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// FuzzUnmarshal: no input panics; what is accepted is valid JSON that
// encoding/json reads to the same value, every number in it finite and
// within the bound; what encoding/json calls invalid is refused.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"schema_version": 1, "items": [{"value": 1.5, "name": "a"}], "spend": 12.25, "extra": {"k": [true, null]}}`,
		`{"a": 1, "a": 2}`, `{"a": 1} x`, `[1e3000000]`, `"\u00e9\ud83d\ude00"`, `{"items": [{"value": null}]}`,
		`{"dec": "1e5", "at": "2026-11-30T21:04:05Z", "counts": {"x": 65535}}`, `-0.0e-5`, `{"a":{"b":{"c":[[[]]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		err := Unmarshal(b, &v, Limits{MaxNumber: 1e9})
		if !json.Valid(b) {
			if err == nil {
				t.Fatalf("accepted invalid JSON %q", b)
			}
			return
		}
		if err == nil {
			var want any
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("accepted %q, which encoding/json refuses: %v", b, err)
			}
			if !reflect.DeepEqual(v, want) {
				t.Fatalf("%q read as %#v, encoding/json reads %#v", b, v, want)
			}
			checkNumbers(t, v)
		}
		// A typed read never panics, and what it accepts encoding/json reads.
		var d doc
		if Unmarshal(b, &d, Limits{}) == nil {
			var d2 doc
			if err := json.Unmarshal(b, &d2); err != nil {
				t.Fatalf("accepted %q as a doc, which encoding/json refuses: %v", b, err)
			}
		}
	})
}

func checkNumbers(t *testing.T, v any) {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > 1e9 {
			t.Fatalf("accepted the number %v", x)
		}
	case []any:
		for _, e := range x {
			checkNumbers(t, e)
		}
	case map[string]any:
		for _, e := range x {
			checkNumbers(t, e)
		}
	}
}
