package jsonfields

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

type inner struct {
	Value *float64 `json:"value"`
	Name  string   `json:"name"`
}

type embedded struct {
	Promoted string `json:"promoted"`
}

type doc struct {
	embedded
	Version int               `json:"schema_version"`
	Items   []inner           `json:"items"`
	Extra   map[string]any    `json:"extra,omitempty"`
	Spend   *json.Number      `json:"spend"`
	Dec     *decimal.Decimal  `json:"dec,omitempty"`
	At      time.Time         `json:"at,omitzero"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Counts  map[string]uint16 `json:"counts,omitempty"`
	Flag    bool              `json:"flag,omitempty"`
	Skipped string            `json:"-"`
	Small   float32           `json:"small,omitempty"`
	private int
}

func TestUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"ok", `{"schema_version": 1, "items": [{"value": 1.5, "name": "a"}, {"value": null, "name": "b"}], "spend": 12.25, "promoted": "p",
			"extra": {"any": [1, {"x": true}]}, "at": "2026-11-30T21:04:05Z", "raw": {"k": [1]}, "counts": {"a": 3}, "dec": "1.25"}`, ""},
		{"whitespace after", "{\"schema_version\": 1}\n\t \r\n", ""},
		{"empty", "  ", "at byte 2: the document is empty; want an object"},
		{"trailing object", `{"schema_version": 1}{"schema_version": 2}`, `at byte 21: data after the JSON value ("{\"schema_version\": 2"…); a document holds one JSON value`},
		{"trailing junk", `{"schema_version": 1} junk`, `at byte 22: data after the JSON value ("junk")`},
		{"duplicate", `{"schema_version": 1, "schema_version": 2}`, "field schema_version at byte 22: given twice in the same object"},
		{"duplicate deep", `{"items": [{"name": "a"}, {"name": "a", "name": "b"}]}`, "field items[1].name at byte 40: given twice"},
		{"duplicate escaped", `{"extra": {"a": 1, "\u0061": 2}}`, `field extra.a at byte 19: given twice`},
		{"duplicate in any", `{"extra": {"k": {"x": 1, "x": 2}}}`, "field extra.k.x at byte 25: given twice"},
		{"duplicate in raw", `{"raw": {"x": 1, "x": 2}}`, "field raw.x at byte 17: given twice"},
		{"duplicate many keys", `{"extra": {"a0":0,"a1":0,"a2":0,"a3":0,"a4":0,"a5":0,"a6":0,"a7":0,"a8":0,"a9":0,"b0":0,"b1":0,"b2":0,"b3":0,"b4":0,"b5":0,"b6":0,"b7":0,"a3":1}}`, "field extra.a3 at byte 137: given twice"},
		{"unknown", `{"schema_version": 1, "hello": "world"}`, `field hello at byte 22: unknown field; allowed: at, counts, dec, extra, flag, items, promoted, raw, schema_version, small, spend`},
		{"other case", `{"Schema_Version": 1}`, "field Schema_Version at byte 1: unknown field"},
		{"skipped field", `{"Skipped": "x"}`, "field Skipped at byte 1: unknown field"},
		{"private", `{"private": 1}`, "field private at byte 1: unknown field"},
		{"unknown deep", `{"items": [{"value": 1, "unit": "GB/s"}]}`, "field items[0].unit at byte 24: unknown field; allowed: name, value"},
		{"huge", `{"spend": 1e3000000}`, "field spend at byte 10: number 1e3000000 is outside the allowed range: want a number from -1e+15 to 1e+15"},
		{"huge in any", `{"extra": {"x": [-1e16]}}`, "field extra.x[0] at byte 17: number -1e16 is outside the allowed range"},
		{"tiny", `{"spend": 1e-3000000}`, "field spend at byte 10: number 1e-3000000 is written with an exponent beyond what is allowed"},
		{"zero with exponent", `{"spend": 0e999999999999999999999}`, "is written with an exponent beyond"},
		{"many places", `{"spend": 0.` + strings.Repeat("0", 60) + `1}`, "at most 60 decimal places"},
		{"places ok", `{"spend": 1.5e-40}`, ""},
		{"decimal string huge", `{"dec": "1e3000000"}`, `field dec at byte 8: number 1e3000000 is outside the allowed range`},
		{"decimal string word", `{"dec": "lots"}`, `field dec at byte 8: "\"lots\"" is not a number`},
		{"number as string", `{"spend": "12"}`, "field spend at byte 10: a string is not allowed here; want a number"},
		{"int fraction", `{"schema_version": 1.5}`, "field schema_version at byte 19: number 1.5 is not a whole number"},
		{"int exponent", `{"schema_version": 1e2}`, "number 1e2 is not a whole number"},
		{"uint negative", `{"counts": {"a": -1}}`, "field counts.a at byte 17: number -1 is negative"},
		{"uint16 overflow", `{"counts": {"a": 70000}}`, "does not fit a 16-bit whole number"},
		{"float32 overflow", `{"small": 1e39}`, "outside the allowed range"},
		{"string for object", `{"items": "a"}`, "field items at byte 10: a string is not allowed here; want an array"},
		{"null scalar", `{"schema_version": null}`, "field schema_version at byte 19: null is not allowed here; want a whole number"},
		{"null slice", `{"items": null, "extra": null}`, ""},
		{"bad time", `{"at": "yesterday"}`, `field at at byte 7: "\"yesterday\"" is not a time`},
		{"bool for string", `{"items": [{"name": true}]}`, "field items[0].name at byte 20: true/false is not allowed here; want a string"},
		{"array top", `[1]`, "at byte 0: an array is not allowed here; want an object"},
		{"syntax", `{"schema_version" 1}`, "field schema_version at byte 18: not valid JSON: want a colon"},
		{"ends early", `{"items": [{"name": "a"`, "the JSON ends early"},
		{"bad escape", `{"extra": {"k": "\q"}}`, `unknown escape \q`},
		{"control char", "{\"extra\": {\"k\": \"a\x01\"}}", "a control character (0x1) in a string"},
		{"bad utf8", "{\"extra\": {\"k\": \"a\xff\"}}", "not valid UTF-8"},
		{"leading zero", `{"spend": 01}`, "not valid JSON"},
		{"plus", `{"spend": +1}`, "not valid JSON"},
		{"bare dot", `{"spend": 1.}`, "not valid JSON: \"1.\" is not a number"},
		{"nan", `{"spend": NaN}`, "not valid JSON"},
		{"truncated literal", `{"flag": tru`, "not valid JSON"},
		{"path quoted", `{"extra": {"spot overhead": {"a": 1, "a": 2}}}`, `field extra["spot overhead"].a at byte 37: given twice`},
	} {
		var d doc
		err := Unmarshal([]byte(tc.in), &d, Limits{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v, want no error", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "jsonfields.") {
			t.Errorf("%s: the error names a Go type: %v", tc.name, err)
		}
	}
}

// What is accepted is read as encoding/json reads it.
func TestUnmarshalStores(t *testing.T) {
	var d doc
	in := `{"schema_version": 1, "items": [{"value": 2.5, "name": "x"}], "spend": 20.5, "promoted": "p", "dec": 3, "at": "2026-12-01T10:00:00Z"}`
	if err := Unmarshal([]byte(in), &d, Limits{}); err != nil {
		t.Fatal(err)
	}
	if d.Version != 1 || len(d.Items) != 1 || *d.Items[0].Value != 2.5 || d.Spend.String() != "20.5" || d.Promoted != "p" || !d.Dec.Equal(decimal.NewFromInt(3)) || d.At.Hour() != 10 {
		t.Errorf("got %+v", d)
	}
}

func TestLimits(t *testing.T) {
	var v any
	if err := Unmarshal([]byte(`{"a": 2000}`), &v, Limits{MaxNumber: 1000}); err == nil || !strings.Contains(err.Error(), "from -1000 to 1000") {
		t.Errorf("MaxNumber: got %v", err)
	}
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	if err := Unmarshal([]byte(deep), &v, Limits{}); err == nil || !strings.Contains(err.Error(), "nested deeper than 64") {
		t.Errorf("depth: got %v", err)
	}
	if err := Unmarshal([]byte(strings.Repeat("[", 10)+strings.Repeat("]", 10)), &v, Limits{MaxDepth: 10}); err != nil {
		t.Errorf("depth 10 of 10: %v", err)
	}
	_, err := Read(strings.NewReader(strings.Repeat(" ", 101)), Limits{MaxBytes: 100})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over the limit of 100 bytes") {
		t.Errorf("size: got %v", err)
	}
	if b, err := Read(strings.NewReader(strings.Repeat(" ", 100)), Limits{MaxBytes: 100}); err != nil || len(b) != 100 {
		t.Errorf("100 of 100 bytes: %d, %v", len(b), err)
	}
	if err := Check([]byte(`{}`), v, Limits{}); err == nil {
		t.Error("Check of a non-pointer: no error")
	}
}

// A recursive type is described without looping.
func TestRecursiveType(t *testing.T) {
	type node struct {
		Name string  `json:"name"`
		Next *node   `json:"next"`
		Kids []*node `json:"kids"`
	}
	var n node
	if err := Unmarshal([]byte(`{"name": "a", "next": {"name": "b", "next": null, "kids": [{"name": "c"}]}}`), &n, Limits{}); err != nil || n.Next.Kids[0].Name != "c" {
		t.Errorf("got %+v, %v", n, err)
	}
	if err := Unmarshal([]byte(`{"next": {"kids": [{"nam": "c"}]}}`), &n, Limits{}); err == nil || !strings.Contains(err.Error(), "field next.kids[0].nam at byte 20: unknown field") {
		t.Errorf("got %v", err)
	}
}
