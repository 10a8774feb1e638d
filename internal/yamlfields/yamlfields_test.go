package yamlfields

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestRoot(t *testing.T) {
	r := &Reader{Path: "u.yaml"}
	for name, tc := range map[string]struct{ in, want string }{
		"second document": {"a: 1\n---\nb: 2\n", "u.yaml:2: a second YAML document starts here"},
		"empty second":    {"a: 1\n---\n", "u.yaml:2: a second YAML document starts here"},
		"bad second":      {"a: 1\n---\n[\n", "u.yaml:3: not valid YAML"},
		"empty":           {"# only a comment\n", "u.yaml:1: the file is empty; want a mapping"},
		"one":             {"---\na: 1\n...\n", ""},
	} {
		_, err := r.Root([]byte(tc.in), "a mapping")
		if got := errString(err); tc.want == "" && err != nil || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", name, got, tc.want)
		}
	}
}

func TestReaders(t *testing.T) {
	r := &Reader{Path: "u.yaml"}
	root, err := r.Root([]byte("d: 2026-02-30\nn: 65\nm: 0.5\nz: NaN\n"), "a mapping")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	err = r.Fields(root, "the test", []string{"d", "m", "n", "z"}, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "d":
			_, err = r.Date(v, key)
		default:
			_, err = r.PositiveMax(v, key, 64)
		}
		got[key] = errString(err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"d": `u.yaml:1: field d: value "2026-02-30" is not a date; want YYYY-MM-DD with a real month and day`,
		"n": `u.yaml:2: field n: value "65" is outside the allowed range: more than 0 and at most 64`,
		"m": "",
		"z": `u.yaml:4: field z: value "NaN" is outside the allowed range: more than 0 and at most 64`,
	} {
		if got[key] != want {
			t.Errorf("%s: got %q, want %q", key, got[key], want)
		}
	}
	dup, _ := r.Root([]byte("a: 1\nb: 2\na: 3\n"), "a mapping")
	if err := r.Fields(dup, "the test", []string{"a", "b"}, func(string, *yaml.Node) error { return nil }); errString(err) != "u.yaml:3: field a: given twice" {
		t.Errorf("repeated key: %v", err)
	}
	if got := (&Error{Path: "u.yaml", Msg: "too big"}).Error(); got != "u.yaml: too big" {
		t.Errorf("whole-file error = %q", got)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
