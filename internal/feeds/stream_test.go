package feeds

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStreamPages(t *testing.T) {
	type rec struct{ N int }
	var got []int
	next := ""
	field := func(key string, dec *json.Decoder) error {
		if key == "next" {
			return dec.Decode(&next)
		}
		var skip json.RawMessage
		return dec.Decode(&skip)
	}
	// Two pages one after another: every record, the last token, other fields skipped.
	n, err := StreamPages(strings.NewReader(`{"items":[{"N":1},{"N":2}],"next":"a","count":2} {"x":{"y":[1]},"items":[{"N":3}],"next":"b"}`),
		"test", "items", func(r *rec) error { got = append(got, r.N); return nil }, field)
	if err != nil || n != 3 || len(got) != 3 || got[2] != 3 || next != "b" {
		t.Errorf("StreamPages = %d, %v; records %v, next %q", n, err, got, next)
	}
	for in, want := range map[string]string{
		``:                      "test: EOF",
		`[]`:                    "test: the body is not a JSON object",
		`{"items":{}}`:          "test: items: expected \"[\", found {",
		`{"items":[{"N":"x"}]}`: "test: items[0]: json: cannot unmarshal",
		`{"items":[{"N":1}`:     "test: items: EOF",
		`{"items":[],"next":3}`: "test: next: json: cannot unmarshal number",
	} {
		_, err := StreamPages(strings.NewReader(in), "test", "items", func(*rec) error { return nil }, field)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
}
